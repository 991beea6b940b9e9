package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/internal/testgen"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// TestDOMArgs checks the arguments of the DOM actions before anything is
// queued: one target, name only with role, what each action needs.
func TestDOMArgs(t *testing.T) {
	tests := []struct {
		action string
		args   string
		want   string // "" for valid, else a part of the error message
	}{
		{"click", `{"ref":"e1"}`, ""},
		{"click", `{"role":"button","name":"Go","button":"right","click_count":2,"modifiers":["Shift"]}`, ""},
		{"click", `{}`, "needs a target"},
		{"click", `{"ref":"e1","text":"Go"}`, "more than one target"},
		{"click", `{"name":"Go"}`, "name goes with role"},
		{"click", `{"ref":"e1","modifiers":["Hyper"]}`, `unknown modifier "Hyper"`},
		{"fill", `{"ref":"e1","text":"ada@example.com"}`, ""},
		{"fill", `{"ref":"e1","text":""}`, ""},
		{"fill", `{"text":"ada"}`, "needs a target"},
		{"fill", `{"ref":"e1"}`, "fill and type need text"},
		{"type", `{"selector":"#q","text":null}`, "fill and type need text"},
		{"type", `{"selector":"#q","text":"hi"}`, ""},
		{"select", `{"ref":"e2","values":["fr"]}`, ""},
		{"select", `{"ref":"e2"}`, `"values" is required for select`},
		{"check", `{"text":"Remember me"}`, ""},
		{"key_press", `{"key":"Enter"}`, ""},
		{"key_press", `{"key":"a","selector":"#q","modifiers":["Control"]}`, ""},
		{"key_press", `{}`, `"key" is required for key_press`},
		{"wait_for", `{"text":"Welcome"}`, ""},
		{"wait_for", `{"selector":"#x","gone":true}`, ""},
		{"wait_for", `{"url":"*/done"}`, ""},
		{"wait_for", `{"network_idle":true}`, ""},
		{"wait_for", `{}`, "exactly one thing"},
		{"wait_for", `{"text":"a","url":"b"}`, "exactly one thing"},
		{"get_text", `{}`, ""},
		{"query", `{"role":"link"}`, ""},
		{"query", `{}`, "needs a target"},
		// target: a ref, a selector, {role, name} or {text}.
		{"click", `{"target":"e5"}`, ""},
		{"click", `{"target":"f7e12"}`, ""},
		{"click", `{"target":"#save > button"}`, ""},
		{"click", `{"target":{"role":"checkbox","name":"Walk the dog"}}`, ""},
		{"click", `{"target":{"role":"button","name":"Go","exact":true}}`, ""},
		{"click", `{"target":{"text":"Accept"}}`, ""},
		{"fill", `{"target":{"text":"Email"},"text":"ada@example.com"}`, ""},
		{"wait_for", `{"target":"#done","gone":true}`, ""},
		{"wait_for", `{"target":"#done","url":"x"}`, "exactly one thing"},
		{"get_text", `{"target":"main"}`, ""},
		{"click", `{"target":""}`, "target is empty"},
		{"click", `{"target":"  "}`, "target is empty"},
		{"click", `{"target":42}`, "not a string or {role, name} / {text} object"},
		{"click", `{"target":["e5"]}`, "not a string or {role, name} / {text} object"},
		{"click", `{"target":{"ref":"e5"}}`, "not a string or {role, name} / {text} object"},
		{"click", `{"target":{}}`, "needs role (with name) or text"},
		{"click", `{"target":{"name":"Go"}}`, "needs role (with name) or text"},
		{"click", `{"target":{"role":"button","text":"Go"}}`, "both role and text"},
		{"click", `{"target":"e5","ref":"e5"}`, "more than one target"},
		{"click", `{"target":{"role":"button"},"name":"Go"}`, "name goes with role"},
		{"click", `{"ref":"#save"}`, `"#save" is not a ref`},
	}
	acts := map[string]action{}
	for _, a := range domActions() {
		acts[a.Name] = a
	}
	for _, tt := range tests {
		t.Run(tt.action+" "+tt.args, func(t *testing.T) {
			a, ok := acts[tt.action]
			if !ok {
				t.Fatalf("no DOM action %s", tt.action)
			}
			err := checkArgs(a, json.RawMessage(tt.args))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want valid", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			case err != nil:
				var te *mcp.ToolError
				if !errors.As(err, &te) || te.Code != "invalid_arguments" {
					t.Errorf("got %#v, want an invalid_arguments tool error", err)
				}
			}
		})
	}
}

// checkArgs runs the argument checks of a, the way its run does before
// queuing anything.
func checkArgs(a action, raw json.RawMessage) error {
	_, err := parseJSON(&a, raw)
	return err
}

// parseJSON decodes raw, as served.handle does, and parses it as a's
// arguments, as a's run does: the extension's params, or the
// invalid_arguments error.
func parseJSON(a *action, raw json.RawMessage) (any, error) {
	in, err := argumentsOf(raw)
	if err != nil {
		return nil, err
	}
	return a.parse(a, in)
}

// TestDOMActionsPolicy: every DOM action queues an act_ command for the
// browser; only those that read are idempotent.
func TestDOMActionsPolicy(t *testing.T) {
	reads := map[string]bool{"scroll_to": true, "wait_for": true, "get_text": true, "query": true}
	for _, a := range domActions() {
		if a.Tool != "interact" || a.Prefix != "act" || !a.BrowserBound || a.MaxWait != MaxWait {
			t.Errorf("%s: policy %+v, want an interact browser action with prefix act", a.Name, a.Action)
		}
		if a.Idempotent != reads[a.Name] {
			t.Errorf("%s: idempotent %v, want %v", a.Name, a.Idempotent, reads[a.Name])
		}
	}
}

// TestPresentDOM cuts an outline at its budget on a line boundary, stores
// the whole for slice and extract, and leaves a small one whole.
func TestPresentDOM(t *testing.T) {
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	store := output.New(output.Options{})
	tl := New(Deps{Tracker: trk, Results: result.NewKeeper(trk, store, zerolog.Nop()), Log: zerolog.Nop()})
	var lines []string
	for i := range 300 {
		// One ref a line, in each of the outline's forms.
		switch i % 3 {
		case 0:
			lines = append(lines, fmt.Sprintf(`  [Item %d](e%d) about item %d`, i, i+1, i))
		case 1:
			lines = append(lines, fmt.Sprintf(`  e%d button 'Item %d' =e%d`, i+1, i, i))
		default:
			lines = append(lines, fmt.Sprintf(`  | Item %d | e%d checkbox 'Pick' checked |`, i, i+1))
		}
	}
	whole := strings.Join(lines, "\n")
	finished := time.Now()

	report := func(id, value string, maxTokens int) tracker.Command {
		r, _ := json.Marshal(domReport{Value: value, Interactive: 300, MaxTokens: maxTokens, TabID: 7, URL: "http://x/", Title: "X"})
		return tracker.Command{ID: id, Action: "dom", State: tracker.StateComplete, Result: r, FinishedAt: &finished}
	}

	v := tl.commandView(report("dom_1", whole, 500), finished, false)
	var dv domView
	if err := json.Unmarshal(v.Result, &dv); err != nil {
		t.Fatal(err)
	}
	if len(dv.Outline) > 2000 || !strings.HasPrefix(whole, dv.Outline+"\n") {
		t.Errorf("cut outline: %d chars, want at most 2000 and a prefix of whole lines", len(dv.Outline))
	}
	if dv.Tokens > 500 || dv.TabID != 7 || dv.URL != "http://x/" || dv.Interactive != 300 {
		t.Errorf("view %+v", dv)
	}
	shownRefs := strings.Count(dv.Outline, "\n") + 1
	if want := fmt.Sprintf("(about %d of 300 interactive elements)", 300-shownRefs); !strings.Contains(dv.Omitted, want) {
		t.Errorf("omitted %q, want it to contain %q", dv.Omitted, want)
	}
	if !strings.Contains(v.Message, `mode:"slice"`) || !strings.Contains(v.Message, `correlation_id:"dom_1"`) {
		t.Errorf("message %q, want how to read on", v.Message)
	}
	sl, err := store.Slice("dom_1", output.SliceRequest{Anchor: "Item 299", Window: 100})
	if err != nil || !strings.Contains(sl.Text, `| Item 299 | e300 checkbox`) {
		t.Errorf("the whole outline is not readable: %q, %v", sl.Text, err)
	}

	small := tl.commandView(report("dom_2", strings.Join(lines[:3], "\n"), 0), finished, false)
	dv = domView{}
	json.Unmarshal(small.Result, &dv)
	if dv.Omitted != "" || dv.Outline != strings.Join(lines[:3], "\n") || small.Message != "" || dv.Clipped != "" {
		t.Errorf("a small outline: %+v, message %q; want it whole", dv, small.Message)
	}

	r, _ := json.Marshal(domReport{Value: "Long text…", Clipped: 1, Interactive: 0, TabID: 7, URL: "http://x/"})
	clipped := tl.commandView(tracker.Command{ID: "dom_3", Action: "dom", State: tracker.StateComplete, Result: r, FinishedAt: &finished}, finished, false)
	dv = domView{}
	json.Unmarshal(clipped.Result, &dv)
	if !strings.HasPrefix(dv.Clipped, "1 of the lines end in …") || !strings.Contains(dv.Clipped, "get_text") {
		t.Errorf("a clipped outline should say how to read the rest: %+v", dv)
	}
}

// TestDOMActionsDeclared: each DOM action (declared with dom) says how the
// extension runs it and what analyze test does with it: internal/testgen
// replays it, or the declaration says why not (a note, or replayNothing);
// testgen replays no action that is not declared; and a page verb declared
// a file of its own has the file, and every file there is declared.
func TestDOMActionsDeclared(t *testing.T) {
	declared := map[string]bool{}
	files := map[string]bool{}
	for _, a := range interact.actions() {
		if a.page == nil {
			if testgen.Replays(a.Name) {
				t.Errorf("testgen replays %s, which is not a DOM action", a.Name)
			}
			continue
		}
		declared[a.Name] = true
		if a.replay == "" && !testgen.Replays(a.Name) {
			t.Errorf("%s: internal/testgen does not replay it and its declaration does not say why (notReplayed)", a.Name)
		}
		if a.replay != "" && testgen.Replays(a.Name) {
			t.Errorf("%s: declared notReplayed(%q), but internal/testgen replays it", a.Name, a.replay)
		}
		if a.page.own && a.page.File != "" {
			t.Errorf("%s: a worker handler of its own and a page verb file", a.Name)
		}
		if a.page.File != "" {
			files[filepath.Base(a.page.File)] = true
			if _, err := os.Stat(filepath.Join(extensionDir, a.page.File)); err != nil {
				t.Errorf("%s: its page verb file: %v", a.Name, err)
			}
		}
	}
	for _, name := range []string{"click", "fill", "type", "select", "check", "uncheck", "key_press", "fill_form", "drag", "upload", "hover", "scroll_to", "wait_for", "get_text", "query"} {
		if !declared[name] {
			t.Errorf("%s is not declared a DOM action", name)
		}
	}
	got, err := filepath.Glob(filepath.Join(extensionDir, pageVerbDir, "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		if !files[filepath.Base(f)] {
			t.Errorf("%s is a page verb file no Go action declares (addPageAction)", f)
		}
	}
}

// TestReplayedFromDeclarations: analyze test keeps the agent's calls of
// the DOM actions testgen replays, and of those that say why not with
// their note; reads it leaves out.
func TestReplayedFromDeclarations(t *testing.T) {
	for name, want := range map[string]struct {
		kept bool
		note string
	}{
		"click": {true, ""}, "fill_form": {true, ""}, "drag": {true, "add the drag to the test by hand"},
		"hover": {true, "add the hover to the test by hand"}, "get_text": {false, ""}, "navigate": {false, ""},
		"click_at": {true, ""}, "scroll_by": {true, ""},
	} {
		note, kept := replayed[name]
		if kept != want.kept || note != want.note {
			t.Errorf("%s: replayed (%q, %v), want (%q, %v)", name, note, kept, want.note, want.kept)
		}
	}
}

// domAction returns interact's DOM action called name, for the tests of
// the actions declared a file each.
func domAction(t *testing.T, name string) action {
	t.Helper()
	for _, a := range domActions() {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no DOM action %s", name)
	return action{}
}

// targetCases are the forms of a target and the canonical target the
// extension gets for each; extension/test/target.test.js checks that
// targetOf decodes every one of them to itself.
const targetCases = "testdata/targets.json"

// TestCanonicalTarget: whichever form a call names its target in, the
// extension gets one canonical target and no flat form; fill's text stays
// the text to enter; get_text's max_chars has its default.
func TestCanonicalTarget(t *testing.T) {
	raw, err := os.ReadFile(targetCases)
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Action string          `json:"action"`
		Args   json.RawMessage `json:"args"`
		Target json.RawMessage `json:"target"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		a := domAction(t, c.Action)
		p, err := parseJSON(&a, c.Args)
		if err != nil {
			t.Errorf("%s %s: %v", c.Action, c.Args, err)
			continue
		}
		sent, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		json.Unmarshal(sent, &got)
		if g, w := string(cmpJSON(t, got["target"])), string(cmpJSON(t, c.Target)); g != w {
			t.Errorf("%s %s: target %s, want %s", c.Action, c.Args, g, w)
		}
		for _, flat := range []string{"ref", "selector", "role", "name"} {
			if _, ok := got[flat]; ok {
				t.Errorf("%s %s: sends %s %s besides the canonical target", c.Action, c.Args, flat, got[flat])
			}
		}
		if _, ok := got["text"]; ok != (c.Action == "fill") {
			t.Errorf("%s %s: sends text %s, want it only as fill's text to enter", c.Action, c.Args, got["text"])
		}
		if c.Action == "get_text" && string(got["max_chars"]) != "8000" {
			t.Errorf("get_text sends max_chars %s, want the default 8000", got["max_chars"])
		}
	}
}

// cmpJSON is raw re-encoded with sorted keys ("null" for none).
func cmpJSON(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	if len(raw) == 0 {
		return []byte("null")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return b
}
