//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEffectsChanged: on a TodoMVC page, each action's effects.changed
// says what it did in a few tokens: the item that appeared with its
// controls' refs and the field cleared, the count's new text, the item
// gone. Its size is logged (estimated tokens: 4 characters a token).
func TestEffectsChanged(t *testing.T) {
	e := ready(t)
	// testdata/changed/todo.html behaves as TodoMVC's vanilla app does:
	// Enter in the new-todo field adds an item (a toggle, its label, a
	// destroy button) and clears the field, the toggle completes it, the
	// destroy button removes it, and the footer counts what is left.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "changed", "todo.html"))
	}))
	t.Cleanup(srv.Close)
	e.open("/a")
	e.ok("navigate", map[string]any{"url": srv.URL + "/todo"})

	changed := func(action string, r map[string]any) string {
		t.Helper()
		c := effectsOf(t, action, r)["changed"]
		b, _ := json.Marshal(c)
		t.Logf("%s: changed %s (%d chars, about %d tokens)", action, b, len(b), (len(b)+3)/4)
		if len(b) > 4*60 {
			t.Errorf("%s: effects.changed is %d chars, over about 60 tokens: %s", action, len(b), b)
		}
		return string(b)
	}

	e.ok("fill", map[string]any{"role": "textbox", "name": "What needs to be done?", "text": "Buy milk"})
	got := changed("key_press Enter", e.ok("key_press", map[string]any{"key": "Enter", "role": "textbox", "name": "What needs to be done?"}))
	for _, want := range []string{`Buy milk`, `checkbox 'Toggle' e`, `button 'Delete' e`, `1 item left`, `''`} {
		if !strings.Contains(got, want) {
			t.Errorf("adding a todo: changed %s, want %q in it", got, want)
		}
	}
	if got := changed("check", e.ok("check", map[string]any{"role": "checkbox", "name": "Toggle"})); !strings.Contains(got, "0 items left") {
		t.Errorf("completing the todo: changed %s, want the count's new text", got)
	}
	if got := changed("click Delete", e.ok("click", map[string]any{"role": "button", "name": "Delete"})); !strings.Contains(got, `"removed":["Buy milk`) {
		t.Errorf("deleting the todo: changed %s, want the item removed", got)
	}
}

// TestEffectsChangedRest: a click that adds 200 rows answers with
// effects.changed as short as ever, the rest counted in more and named in
// rest; reading rest as an agent would (observe command_result, mode raw)
// gives every row's text, between the page fence's markers. Controls whose
// state the page's script changed are said with their refs: the Export
// button the rows enabled, a disclosure button expanded with the panel it
// shows.
func TestEffectsChangedRest(t *testing.T) {
	e := ready(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "changed", "rows.html"))
	}))
	t.Cleanup(srv.Close)
	e.open("/a")
	e.ok("navigate", map[string]any{"url": srv.URL + "/rows"})

	r := e.act("click", map[string]any{"role": "button", "name": "Load 200 rows"})
	var res struct {
		Effects struct {
			Changed json.RawMessage `json:"changed"`
		} `json:"effects"`
	}
	if err := json.Unmarshal(r.Value, &res); err != nil || r.Status != "complete" {
		t.Fatalf("click: %v: %s", err, r)
	}
	// Its size as the agent gets it, without rest: what every action costs.
	var ch map[string]json.RawMessage
	json.Unmarshal(res.Effects.Changed, &ch)
	rb := ch["rest"]
	delete(ch, "rest")
	short := compactJSON(t, ch) // as the daemon sends it: < and > unescaped
	t.Logf("click Load 200 rows: changed %s (%d chars, about %d tokens) + rest %s (%d chars, about %d tokens)", short, len(short), (len(short)+3)/4, rb, len(rb), (len(rb)+3)/4)
	if len(short) > 4*60 {
		t.Errorf("effects.changed without rest is %d chars, over about 60 tokens: %s", len(short), short)
	}
	var more int
	var shown []string
	json.Unmarshal(ch["more"], &more)
	json.Unmarshal(ch["appeared"], &shown)
	if len(shown) == 0 || more+len(shown) != 200 {
		t.Errorf("changed %s: want some rows shown and the rest of the 200 counted in more", short)
	}
	var rest struct {
		CorrelationID string `json:"correlation_id"`
		Read          string `json:"read"`
	}
	if json.Unmarshal(rb, &rest) != nil || rest.CorrelationID == "" || rest.Read == "" {
		t.Fatalf("changed %s: want rest to name the whole list and how to read it", res.Effects.Changed)
	}
	id := rest.CorrelationID

	r = e.call("observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "raw"})
	var raw struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(r.Raw, &raw); err != nil {
		t.Fatalf("raw read of %s: %v: %s", id, err, r)
	}
	lines := strings.Split(strings.TrimSpace(raw.Content), "\n")
	if len(lines) != 201 || !strings.HasPrefix(lines[0], "~ button 'Export' e") || !strings.HasSuffix(lines[0], " enabled") {
		t.Errorf("the whole list has %d lines, want Export enabled and 200 rows: %.300s", len(lines), raw.Content)
	}
	for i := range 200 {
		if want := fmt.Sprintf("+ Row %d: invoice %d <paid>", i, 1000+i); !slices.Contains(lines, want) {
			t.Errorf("the whole list lacks %q", want)
		}
	}
	// What the agent reads: the rows only between the fence's markers.
	open, closing, row := strings.Index(r.Text, "⟦page:"), strings.Index(r.Text, "⟦/page:"), strings.Index(r.Text, "Row 199")
	if open < 0 || !(open < row && row < closing) {
		t.Errorf("the rows are not inside the page fence (open %d, row %d, close %d): %.400s", open, row, closing, r.Text)
	}

	// A table rendered at once (one node added) is said row by row: each in the rest.
	ch = map[string]json.RawMessage{}
	b, _ := json.Marshal(effectsOf(t, "click Show report", e.ok("click", map[string]any{"role": "button", "name": "Show report"}))["changed"])
	json.Unmarshal(b, &ch)
	t.Logf("click Show report: changed %s", b)
	if err := json.Unmarshal(ch["rest"], &rest); err != nil || !strings.Contains(string(ch["appeared"]), "Report row 0 0 EUR") {
		t.Fatalf("click Show report: changed %s, want its first rows and rest", b)
	}
	whole := e.call("observe", map[string]any{"what": "command_result", "correlation_id": rest.CorrelationID, "mode": "raw"})
	json.Unmarshal(whole.Raw, &raw)
	if !strings.Contains(raw.Content, "+ Report row 99 693 EUR\n") {
		t.Errorf("the table's whole list lacks its last row: %.300s", raw.Content)
	}

	// A disclosure button: expanded with the panel it shows, then collapsed with it gone.
	for _, step := range []struct{ state, list, text string }{{"expanded", "appeared", "Paid only"}, {"collapsed", "removed", "Paid only"}} {
		var ch struct {
			State, Appeared, Removed []string
		}
		b, _ := json.Marshal(effectsOf(t, "click Filters", e.ok("click", map[string]any{"role": "button", "name": "Filters"}))["changed"])
		json.Unmarshal(b, &ch)
		t.Logf("click Filters: changed %s", b)
		list := map[string][]string{"appeared": ch.Appeared, "removed": ch.Removed}[step.list]
		if len(ch.State) != 1 || !strings.HasPrefix(ch.State[0], "button 'Filters' e") || !strings.HasSuffix(ch.State[0], " "+step.state) || !slices.Contains(list, step.text) {
			t.Errorf("click Filters: changed %s, want the button %s and %q %s", b, step.state, step.text, step.list)
		}
	}
}

// compactJSON encodes m as the daemon does (no escaping of <, > and &,
// which the client's decoding of structured content may have added).
func compactJSON(t *testing.T, raw map[string]json.RawMessage) string {
	t.Helper()
	m := map[string]any{}
	for k, v := range raw {
		var x any
		json.Unmarshal(v, &x)
		m[k] = x
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
