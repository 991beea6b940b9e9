//go:build unix

package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
