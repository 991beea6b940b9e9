package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// env is the tools served by a real MCP server over a real tracker and
// output store, as the daemon wires them.
type env struct {
	s     *mcp.Server
	trk   *tracker.Tracker
	store *output.Store
	keep  *result.Keeper
	ids   int
}

// newEnv serves the tools over fresh dependencies, which each of with may
// change before the tools are made.
func newEnv(t *testing.T, with ...func(*Deps)) *env {
	t.Helper()
	log := zerolog.New(zerolog.NewTestWriter(t))
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	store := output.New(output.Options{InlineTokens: 100})
	keep := result.NewKeeper(trk, store, log)
	s := mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "test"}, Instructions, log)
	health := func() apitype.Health { return apitype.Health{Service: apitype.ServiceName, Version: "test"} }
	d := Deps{Tracker: trk, Health: health, Results: keep, Log: log}
	for _, f := range with {
		f(&d)
	}
	New(d).Register(s)
	return &env{s: s, trk: trk, store: store, keep: keep}
}

// callResult is a tools/call answer as the tests read it.
type callResult struct {
	Text    string          // the text content
	Body    json.RawMessage // structuredContent
	IsError bool
}

// call runs tools/call name(args) for client; args is a JSON text.
func (e *env) call(t *testing.T, client, name, args string) callResult {
	t.Helper()
	e.ids++
	msg := `{"jsonrpc":"2.0","id":` + itoa(e.ids) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	out := e.s.Handle(context.Background(), client, []byte(msg))
	var resp struct {
		Result struct {
			Content           []protocol.Content `json:"content"`
			StructuredContent json.RawMessage    `json:"structuredContent"`
			IsError           bool               `json:"isError"`
		} `json:"result"`
		Error *protocol.WireError `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.Error != nil || len(resp.Result.Content) != 1 {
		t.Fatalf("tools/call %s %s: got %s (%v)", name, args, out, err)
	}
	if resp.Result.Content[0].Text != string(resp.Result.StructuredContent) {
		t.Fatalf("text and structuredContent differ: %s", out)
	}
	return callResult{Text: resp.Result.Content[0].Text, Body: resp.Result.StructuredContent, IsError: resp.Result.IsError}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// field decodes the member at path of r's structured content.
func (r callResult) field(path ...string) any {
	var v any
	json.Unmarshal(r.Body, &v)
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

// delivered polls the command the last call queued, as an extension would.
func (e *env) delivered(t *testing.T) tracker.Command {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := e.trk.Poll(ctx, "ext", 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("poll: got %d commands, %v; want the queued one", len(cs), err)
	}
	return cs[0]
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestArguments runs every action with good and bad arguments: good ones
// queue a command with the params the extension expects (or answer), bad
// ones get an invalid_arguments error that names the argument and says
// what to do.
func TestArguments(t *testing.T) {
	tests := []struct {
		name, tool, args string
		// wantParams is what the extension gets; "" when nothing is queued.
		wantParams string
		wantAction string
		wantPrefix string
		// wantCode and wantIn describe a tool error.
		wantCode, wantIn string
	}{
		{name: "execute_js", tool: "interact", args: `{"action":"execute_js","script":"document.title","tab_id":3,"timeout_ms":5000}`,
			wantParams: `{"script":"document.title","tab_id":3}`, wantAction: "execute_js", wantPrefix: "exec_"},
		{name: "execute_js without script", tool: "interact", args: `{"action":"execute_js"}`,
			wantCode: "invalid_arguments", wantIn: `"script" is required for execute_js`},
		{name: "script of the wrong type", tool: "interact", args: `{"action":"execute_js","script":7}`,
			wantCode: "invalid_arguments", wantIn: `argument "script" must be of type string, got number`},
		{name: "tab_id of the wrong type", tool: "interact", args: `{"action":"execute_js","script":"1","tab_id":"3"}`,
			wantCode: "invalid_arguments", wantIn: `argument "tab_id" must be of type int64, got string`},
		{name: "wait_ms too long", tool: "interact", args: `{"action":"execute_js","script":"1","wait_ms":60000}`,
			wantCode: "invalid_arguments", wantIn: "wait_ms 60000 is out of range"},
		{name: "timeout_ms zero", tool: "interact", args: `{"action":"execute_js","script":"1","timeout_ms":0}`,
			wantCode: "invalid_arguments", wantIn: "timeout_ms 0 is out of range"},
		{name: "navigate", tool: "interact", args: `{"action":"navigate","url":"http://localhost:3000/a"}`,
			wantParams: `{"url":"http://localhost:3000/a"}`, wantAction: "navigate", wantPrefix: "nav_"},
		{name: "navigate without url", tool: "interact", args: `{"action":"navigate"}`,
			wantCode: "invalid_arguments", wantIn: `"url" is required`},
		{name: "navigate to javascript:", tool: "interact", args: `{"action":"navigate","url":"javascript:alert(1)"}`,
			wantCode: "invalid_arguments", wantIn: "unsupported url"},
		{name: "new_tab bare", tool: "interact", args: `{"action":"new_tab"}`,
			wantParams: `{}`, wantAction: "new_tab", wantPrefix: "tab_"},
		{name: "new_tab in the background", tool: "interact", args: `{"action":"new_tab","url":"about:blank","active":false}`,
			wantParams: `{"url":"about:blank","active":false}`, wantAction: "new_tab", wantPrefix: "tab_"},
		{name: "switch_tab", tool: "interact", args: `{"action":"switch_tab","tab_id":4}`,
			wantParams: `{"tab_id":4}`, wantAction: "switch_tab", wantPrefix: "tab_"},
		{name: "switch_tab without tab_id", tool: "interact", args: `{"action":"switch_tab"}`,
			wantCode: "invalid_arguments", wantIn: `"tab_id" is required for switch_tab`},
		{name: "close_tab", tool: "interact", args: `{"action":"close_tab"}`,
			wantParams: `{}`, wantAction: "close_tab", wantPrefix: "tab_"},
		{name: "cancel without id", tool: "interact", args: `{"action":"cancel"}`,
			wantCode: "invalid_arguments", wantIn: `"correlation_id" is required for cancel`},
		{name: "cancel an unknown id", tool: "interact", args: `{"action":"cancel","correlation_id":"exec_nope"}`,
			wantCode: "unknown_correlation_id", wantIn: "exec_nope"},
		{name: "unknown action", tool: "interact", args: `{"action":"fly"}`,
			wantCode: "invalid_arguments", wantIn: `unknown action "fly"`},
		{name: "no action", tool: "interact", args: `{}`,
			wantCode: "invalid_arguments", wantIn: `"action" is required`},
		{name: "action of the wrong type", tool: "interact", args: `{"action":5}`,
			wantCode: "invalid_arguments", wantIn: `argument "action" must be of type string, got number`},
		{name: "arguments not an object", tool: "interact", args: `[1]`,
			wantCode: "invalid_arguments", wantIn: "invalid arguments"},
		{name: "command_result without id", tool: "observe", args: `{"what":"command_result"}`,
			wantCode: "invalid_arguments", wantIn: `"correlation_id" is required for command_result`},
		{name: "command_result of an unknown id", tool: "observe", args: `{"what":"command_result","correlation_id":"exec_nope"}`,
			wantCode: "unknown_correlation_id", wantIn: "exec_nope"},
		{name: "command_result wait too long", tool: "observe", args: `{"what":"command_result","correlation_id":"exec_nope","wait_ms":55001}`,
			wantCode: "invalid_arguments", wantIn: "wait_ms 55001 is out of range"},
		{name: "read with an unknown mode", tool: "observe", args: `{"what":"command_result","correlation_id":"exec_nope","mode":"all"}`,
			wantCode: "invalid_arguments", wantIn: `unknown mode "all"`},
		{name: "slice start of the wrong type", tool: "observe", args: `{"what":"command_result","correlation_id":"exec_nope","mode":"slice","start":"0"}`,
			wantCode: "invalid_arguments", wantIn: `argument "start" must be of type int, got string`},
		{name: "unknown what", tool: "observe", args: `{"what":"everything"}`,
			wantCode: "invalid_arguments", wantIn: "one of: command_result, pending_commands"},
		{name: "query_status without id", tool: "configure", args: `{"action":"query_status"}`,
			wantCode: "invalid_arguments", wantIn: `"correlation_id" is required`},
		{name: "unknown configure action", tool: "configure", args: `{"action":"reboot"}`,
			wantCode: "invalid_arguments", wantIn: "one of: health, query_status"},
		// One decoder (decodeArgs): unknown arguments are refused with the
		// allowed ones, and the tags' enums and bounds are enforced.
		{name: "an unknown argument", tool: "interact", args: `{"action":"get_text","selector":"main","max_char":500}`,
			wantCode: "invalid_arguments", wantIn: `unknown argument "max_char" for get_text; allowed: action, target, ref, selector, text, role, name, frame, tab_id, force, max_chars, timeout_ms, wait_ms`},
		{name: "an argument of another action", tool: "interact", args: `{"action":"click","ref":"e1","limit":3}`,
			wantCode: "invalid_arguments", wantIn: `unknown argument "limit" for click`},
		{name: "get_text max_chars", tool: "interact", args: `{"action":"get_text","selector":"main","max_chars":500}`,
			wantParams: `{"target":{"selector":"main"},"max_chars":500}`, wantAction: "get_text", wantPrefix: "act_"},
		{name: "get_text max_chars too large", tool: "interact", args: `{"action":"get_text","max_chars":40001}`,
			wantCode: "invalid_arguments", wantIn: "max_chars 40001 is out of range"},
		{name: "click with an unknown button", tool: "interact", args: `{"action":"click","ref":"e1","button":"back"}`,
			wantCode: "invalid_arguments", wantIn: `unknown button "back"`},
		{name: "click four times", tool: "interact", args: `{"action":"click","ref":"e1","click_count":4}`,
			wantCode: "invalid_arguments", wantIn: "click_count 4 is out of range"},
		{name: "query too many", tool: "interact", args: `{"action":"query","selector":"a","limit":101}`,
			wantCode: "invalid_arguments", wantIn: "limit 101 is out of range"},
		{name: "dom under its smallest budget", tool: "analyze", args: `{"what":"dom","max_tokens":50}`,
			wantCode: "invalid_arguments", wantIn: "max_tokens 50 is out of range"},
		{name: "screenshot too small", tool: "interact", args: `{"action":"screenshot","max_dim":10}`,
			wantCode: "invalid_arguments", wantIn: "max_dim 10 is out of range"},
		// The arguments are decoded once (arguments); the key and the
		// common arguments, read from their members, are worded as
		// decoding the object words them (issue 33).
		{name: "timeout_ms of the wrong type", tool: "interact", args: `{"action":"execute_js","script":"1","timeout_ms":"5"}`,
			wantCode: "invalid_arguments", wantIn: `argument "timeout_ms" must be of type int64, got string`},
		{name: "wait_ms not an integer", tool: "interact", args: `{"action":"execute_js","script":"1","wait_ms":1.5}`,
			wantCode: "invalid_arguments", wantIn: `argument "wait_ms" must be of type int64, got number 1.5`},
		{name: "two common arguments of the wrong type", tool: "interact", args: `{"action":"execute_js","script":"1","wait_ms":"a","timeout_ms":"b"}`,
			wantCode: "invalid_arguments", wantIn: `argument "wait_ms" must be of type int64, got string`},
		{name: "dialog's timeout_ms of the wrong type", tool: "interact", args: `{"action":"dialog","dialog":"accept","timeout_ms":"x"}`,
			wantCode: "invalid_arguments", wantIn: `argument "timeout_ms" must be of type int64, got string`},
		{name: "audit's timeout_ms of the wrong type", tool: "analyze", args: `{"what":"accessibility","timeout_ms":"x"}`,
			wantCode: "invalid_arguments", wantIn: `argument "timeout_ms" must be of type int64, got string`},
		{name: "the key in another case", tool: "interact", args: `{"ACTION":"execute_js","script":"1"}`,
			wantCode: "invalid_arguments", wantIn: `unknown argument "ACTION" for execute_js`},
		{name: "the key twice, the last in another case", tool: "observe", args: `{"what":"command_result","WHAT":"x"}`,
			wantCode: "invalid_arguments", wantIn: `unknown what "x"`},
		{name: "an escaped action name", tool: "interact", args: `{"action":"execute_\u006as","script":"1"}`,
			wantParams: `{"script":"1"}`, wantAction: "execute_js", wantPrefix: "exec_"},
		{name: "query_status takes command_result's arguments", tool: "configure", args: `{"action":"query_status","correlation_id":"exec_nope","mode":"slice","verbose":true}`,
			wantCode: "unknown_correlation_id", wantIn: "exec_nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.call(t, "agent", tt.tool, tt.args)
			if tt.wantCode != "" {
				msg, _ := r.field("error", "message").(string)
				hint, _ := r.field("error", "hint").(string)
				if !r.IsError || r.field("error", "code") != tt.wantCode || !strings.Contains(msg+" "+hint, tt.wantIn) {
					t.Fatalf("got %s, want error %s saying %q", r.Body, tt.wantCode, tt.wantIn)
				}
				if r.field("error", "hint") == nil {
					t.Errorf("got %s, want a hint saying what to do", r.Body)
				}
				return
			}
			if r.IsError || r.field("status") != "queued" || !strings.HasPrefix(r.field("correlation_id").(string), tt.wantPrefix) {
				t.Fatalf("got %s, want a queued %s... handle", r.Body, tt.wantPrefix)
			}
			c := e.delivered(t)
			if c.Action != tt.wantAction || !sameJSON(c.Params, []byte(tt.wantParams)) {
				t.Errorf("queued %s %s, want %s %s", c.Action, c.Params, tt.wantAction, tt.wantParams)
			}
		})
	}
}

// TestBrowserArgsOf: the common arguments read from a call's members are
// what decoding the whole object gives, errors included.
func TestBrowserArgsOf(t *testing.T) {
	for _, raw := range []string{
		`{}`, `null`, `{"timeout_ms":1234}`, `{"wait_ms":0,"timeout_ms":5}`, `{"timeout_ms":null,"wait_ms":null}`,
		`{"timeout_ms":"5"}`, `{"wait_ms":1.5}`, `{"wait_ms":"a","timeout_ms":"b"}`, `{"timeout_ms":1e3}`,
	} {
		in, err := argumentsOf(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got, gotErr := browserArgsOf(in)
		want, wantErr := decode[browserArgs](json.RawMessage(raw))
		if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: got %+v, %v; want %+v, %v", raw, got, gotErr, want, wantErr)
		}
	}
}

// FuzzArgumentsOf: the members argumentsOf finds in valid JSON are what
// encoding/json decodes, and it refuses what encoding/json refuses.
func FuzzArgumentsOf(f *testing.F) {
	for _, seed := range []string{
		`{"action":"execute_js","script":"document.title"}`, `{}`, `null`, `[1]`, `"x"`, `5`,
		"{ \"a\" :\t1\r\n, \"b\":[1,{\"c\":\"}\"}] ,\"d\":null\t}", `{"a":1,"\u0061":2}`, `{"\u00e9\"":"\\"}`,
		`{"a":"\""}`, `{"a":true,"b":false,"c":-1.5e3}`, "{\"\xff\":1}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal([]byte(raw), &want)
		in, err := argumentsOf(json.RawMessage(raw))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("argumentsOf(%s): error %v; encoding/json: %v", raw, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(in.obj, want) {
			t.Fatalf("argumentsOf(%s) = %q; encoding/json: %q", raw, in.obj, want)
		}
	})
}

// FuzzPlainString: what plainString takes as a string is what
// encoding/json decodes.
func FuzzPlainString(f *testing.F) {
	for _, seed := range []string{`"execute_js"`, `""`, `"a\"b"`, `"\u0041"`, `"é"`, "\"\x7f\"", "\"\t\"", `5`, `null`, `"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := plainString(json.RawMessage(raw))
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil || got != want {
			t.Fatalf("plainString(%s) = %q; encoding/json gives %q, %v", raw, got, want, err)
		}
	})
}

// TestTimeoutReachesTheCommand checks that timeout_ms becomes the command's
// execution deadline.
func TestTimeoutReachesTheCommand(t *testing.T) {
	e := newEnv(t)
	e.call(t, "agent", "interact", `{"action":"navigate","url":"http://localhost/","timeout_ms":1234}`)
	if c := e.delivered(t); c.Timeout != 1234*time.Millisecond {
		t.Errorf("got timeout %v, want 1.234s", c.Timeout)
	}
}

// TestGeneratedDefinitions checks that every tool's enum, properties and
// description come from its actions: every action is in the enum and
// listed with its arguments, and every argument has a property.
func TestGeneratedDefinitions(t *testing.T) {
	for _, tl := range all {
		acts := tl.actions()
		def := tl.def(acts)
		var schema struct {
			Properties map[string]struct {
				Type  json.RawMessage `json:"type"`
				Items json.RawMessage `json:"items"`
				AnyOf []struct {
					Type  string          `json:"type"`
					Items json.RawMessage `json:"items"`
				} `json:"anyOf"`
				Enum        []string `json:"enum"`
				Description string   `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(def.InputSchema, &schema); err != nil {
			t.Fatalf("%s: schema %s: %v", tl.name, def.InputSchema, err)
		}
		key := schema.Properties[tl.key]
		if !slices.Equal(schema.Required, []string{tl.key}) || len(key.Enum) != len(acts) {
			t.Errorf("%s: key %q: got enum %v required %v, want every action and the key required", tl.name, tl.key, key.Enum, schema.Required)
		}
		for i, a := range acts {
			if key.Enum[i] != a.Name {
				t.Errorf("%s: enum[%d] = %s, want %s", tl.name, i, key.Enum[i], a.Name)
			}
			if !strings.Contains(def.Description, a.entry()) {
				t.Errorf("%s: description does not list %q", tl.name, a.entry())
			}
			for _, f := range a.fields {
				p, ok := schema.Properties[f.name]
				if f.typ == "" {
					// Several types: anyOf, one type each (no list of
					// types, which single-type schema dialects refuse).
					var got []string
					for _, one := range p.AnyOf {
						got = append(got, one.Type)
						if one.Type == "array" && len(one.Items) == 0 {
							t.Errorf("%s.%s: argument %s's array has no items", tl.name, a.Name, f.name)
						}
					}
					if !ok || len(p.Type) != 0 || len(got) < 2 || !slices.Equal(got, f.types) {
						t.Errorf("%s.%s: argument %s has type %s anyOf %v, want anyOf %v and no type", tl.name, a.Name, f.name, p.Type, got, f.types)
					}
					continue
				}
				want := `"` + f.typ + `"`
				if !ok || string(p.Type) != want {
					t.Errorf("%s.%s: argument %s has type %s, want %s", tl.name, a.Name, f.name, p.Type, want)
				}
				if f.typ == "array" && len(p.Items) == 0 {
					t.Errorf("%s.%s: array argument %s has no items", tl.name, a.Name, f.name)
				}
			}
		}
	}
}

// TestEntries pins how an action is listed in its tool's description.
func TestEntries(t *testing.T) {
	tests := []struct {
		a    action
		want string
	}{
		{executeJS(), `execute_js {script}: an expression ("document.title") or a function body with return`},
		{switchTab(), "switch_tab {tab_id}"},
		{refresh(), "refresh"}, // tab_id: the preamble says every page action takes it
		{dialogAction(), "dialog {dialog, text?}: " + dialogAction().summary},
		{uploadAction(), "upload {target, paths}: into a file input"},
		{commandResult(), "command_result {correlation_id, wait_ms?, mode?}: " + commandResult().summary},
		{pendingCommands(), "pending_commands: your running, completed and failed commands"},
	}
	for _, tt := range tests {
		if got := tt.a.entry(); got != tt.want {
			t.Errorf("entry(%s): got %q, want %q", tt.a.Name, got, tt.want)
		}
	}
}

// TestAliasIsBare checks that query_status declares only what a poll needs,
// without repeating command_result's descriptions; it still reads outputs
// with mode (see TestQueryStatusReadsOutputs).
func TestAliasIsBare(t *testing.T) {
	q := queryStatus()
	var names []string
	for _, f := range q.fields {
		names = append(names, f.name)
		if f.desc != "" {
			t.Errorf("query_status argument %s is described (%q); its summary points to command_result", f.name, f.desc)
		}
	}
	if q.Tool != "configure" || strings.Join(names, ",") != "correlation_id,wait_ms" {
		t.Fatalf("query_status: got %s with %v, want configure with correlation_id,wait_ms", q.Tool, names)
	}
}

// reportOf is a complete report of command id with result.
func reportOf(id, res string) apitype.QueryResult {
	return apitype.QueryResult{CorrelationID: id, Status: "complete", Result: json.RawMessage(res)}
}

// TestQueryStatusReadsOutputs checks that query_status, whose schema shows
// only correlation_id and wait_ms, still reads a result with mode as
// command_result does.
func TestQueryStatusReadsOutputs(t *testing.T) {
	e := newEnv(t)
	q := e.call(t, "agent", "interact", `{"action":"execute_js","script":"document.title"}`)
	id, _ := q.field("correlation_id").(string)
	cmd := e.delivered(t)
	if _, err := e.keep.Report("ext", reportOf(cmd.ID, `{"value":"<title>Checkout</title>","tab_id":1}`)); err != nil {
		t.Fatal(err)
	}
	r := e.call(t, "agent", "configure", `{"action":"query_status","correlation_id":"`+id+`","mode":"slice","anchor":"Checkout","window":8}`)
	if r.IsError || !strings.Contains(r.Text, "Checkout") {
		t.Fatalf("query_status with mode slice: got %s, want the slice", r.Text)
	}
}
