//go:build unix

package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// namesPages serves testdata/names/, and /names/slow: an answer that takes
// 2.5 s, the request in flight of a page that loads data.
func namesPages() http.Handler {
	files := handsPages()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/names/slow" {
			files.ServeHTTP(w, r)
			return
		}
		select {
		case <-time.After(2500 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte("Fetched button"))
	})
}

// TestNamesAndTargets plays an agent on a TodoMVC-like list, whose checkboxes
// have no accessible name (each sits beside a label not tied to it), and on
// a form named every way accname knows: analyze dom shows each todo's title
// beside its checkbox and each field's name; click by target {role, name}
// toggles the right todo, target as a ref and as a selector work; a missing
// element on an idle page fails fast, while one that comes later on a busy
// page (DOM changes, or only a request in flight) is still waited for.
func TestNamesAndTargets(t *testing.T) {
	e := ready(t)
	e.open("/names/todo.html")

	dom, _ := e.analyze("dom", nil)
	outline := dom["outline"].(string)
	for _, want := range []string{
		` checkbox in 'Walk the dog'` + "\n",
		` checkbox in 'Walk the dog again'` + "\n",
		` checkbox in 'Buy milk' checked`,
		` textbox 'What needs to be done?'`,
		` textbox 'Full name'`, ` textbox 'Nickname'`, ` textbox 'Email'`, ` spinbutton 'Age'`,
		` textbox 'City'`, ` textbox 'Postcode'`, ` button 'Save profile'`,
	} {
		if !strings.Contains(outline, want) {
			t.Errorf("outline lacks %q:\n%s", want, outline)
		}
	}

	// The name the outline shows is the name role matching uses; the exact
	// title wins over "Walk the dog again".
	e.ok("click", map[string]any{"target": map[string]any{"role": "checkbox", "name": "Walk the dog"}})
	milk := refIn(t, outline, "checkbox in", "Buy milk")
	e.ok("click", map[string]any{"target": milk})
	e.ok("click", map[string]any{"target": "#save"})
	e.ok("fill", map[string]any{"target": map[string]any{"role": "textbox", "name": "Full name"}, "text": "Ada Lovelace"})
	if got, want := e.pageText("#log", nil), "Walk the dog done\nBuy milk open\nsaved\n"; got != want {
		t.Errorf("the page logged %q, want %q", got, want)
	}
	if got := e.ok("query", map[string]any{"target": "#full"})["elements"].([]any)[0].(map[string]any)["name"]; got != "Full name" {
		t.Errorf("query names #full %v, want Full name", got)
	}

	// A missing element on an idle page: not_found within a few seconds
	// (the idle window is 1 s; the deadline's wait would be 8.5 s).
	start := time.Now()
	msg := e.fails("click", map[string]any{"target": "#nope"}, "not_found")
	took := time.Since(start)
	t.Logf("not_found on an idle page took %v", took)
	if took > 5*time.Second || !strings.Contains(msg, "idle") {
		t.Errorf("not_found took %v (%q), want well under the 8.5 s wait and a word on the idle page", took, msg)
	}

	// A busy page (a DOM change every 100 ms) adds its button 2.5 s after
	// the click on Start ticking: the next click waits for it.
	e.ok("click", map[string]any{"target": map[string]any{"text": "Start ticking"}})
	e.ok("click", map[string]any{"target": "#late"})
	if got := e.pageText("#log", nil); !strings.HasSuffix(got, "late clicked\n") {
		t.Errorf("the page logged %q, want the late button clicked", got)
	}

	// A page whose only activity is a request in flight (2.5 s, no DOM
	// change meanwhile) is busy too: the click waits for the button its
	// answer adds.
	e.ok("click", map[string]any{"target": "#load"})
	e.ok("click", map[string]any{"target": map[string]any{"role": "button", "name": "Fetched button"}})
	if got := e.pageText("#log", nil); !strings.HasSuffix(got, "fetched clicked\n") {
		t.Errorf("the page logged %q, want the fetched button clicked", got)
	}
}
