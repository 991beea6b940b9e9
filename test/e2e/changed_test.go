//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// todoPage behaves as TodoMVC's vanilla app does: Enter in the new-todo
// field adds an item (a toggle, its label, a destroy button) and clears
// the field, the toggle completes it, the destroy button removes it, and
// the footer counts what is left.
const todoPage = `<!doctype html><title>Todos</title>
<section class="todoapp"><header><h1>todos</h1><input class="new-todo" placeholder="What needs to be done?" autofocus></header>
<ul class="todo-list"></ul><footer><span class="todo-count">0 items left</span></footer></section>
<script>
const list = document.querySelector('.todo-list');
const count = () => {
  const n = list.querySelectorAll('li:not(.completed)').length;
  document.querySelector('.todo-count').textContent = n + (n === 1 ? ' item' : ' items') + ' left';
};
document.querySelector('.new-todo').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || !e.target.value.trim()) return;
  const li = document.createElement('li');
  li.innerHTML = '<div class="view"><input class="toggle" type="checkbox" aria-label="Toggle"><label></label><button class="destroy" aria-label="Delete">×</button></div>';
  li.querySelector('label').textContent = e.target.value.trim();
  li.querySelector('.toggle').addEventListener('change', (ev) => { li.classList.toggle('completed', ev.target.checked); count(); });
  li.querySelector('.destroy').addEventListener('click', () => { li.remove(); count(); });
  list.append(li);
  e.target.value = '';
  count();
});
</script>`

// TestEffectsChanged: on a TodoMVC page, each action's effects.changed
// says what it did in a few tokens: the item that appeared with its
// controls' refs and the field cleared, the count's new text, the item
// gone. Its size is logged (estimated tokens: 4 characters a token).
func TestEffectsChanged(t *testing.T) {
	e := ready(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, todoPage)
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
