//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newLeaveSite serves a search form that submits to another page, and
// that page. The form's page can flood the console: window.flood() logs
// about 3.2 MB a second (8 000-character lines) until the page is left,
// more than the relay forwards (LIMITS.rateChars, 1 MB a second), so from
// then on the relay is always paced or has a batch in flight;
// window.logged counts the lines.
func newLeaveSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Search</title></head><body>%s</body></html>", body)
	}
	mux.HandleFunc("GET /leave/form.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<h1>Search</h1><form method="get" action="/leave/done.html">
<label for="q">Query</label> <input id="q" name="q"> <button type="submit">Search</button></form>
<script>
window.logged = 0;
const line = 'x'.repeat(7900);
window.flood = () => setInterval(() => { for (let i = 0; i < 8; i++) console.log('flood ' + window.logged++ + ' ' + line); }, 20);
</script>`)
	})
	mux.HandleFunc("GET /leave/done.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<h1>Results</h1><p>No results for this query.</p>`)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestRecordMadeAtLeaveKept: the user types a query and submits the form
// while the page floods the console, so the relay is paced (or has a batch
// in flight) when the submit unloads the page. The typed input and the
// click on Search, handed to the relay at the click and at pagehide, must
// still reach observe actions and the test analyze test writes: no timer
// runs in a page that is gone, so a relay that only paces loses them.
func TestRecordMadeAtLeaveKept(t *testing.T) {
	e := ready(t)
	site := newLeaveSite(t)
	form := site.URL + "/leave/form.html"
	p := e.openPage(form)

	// Flood until the relay's queue is well behind: 500 lines are about
	// 4 MB, four seconds of the relay's rate; the flood goes on meanwhile.
	p.eval(`(flood(), true)`, new(bool))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if p.eval(`window.logged`, &n); n >= 500 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page logged %d flood lines within 20 s, want 500", n)
		}
	}
	const query = "gasoline leaves"
	p.typeInto("#q", query)
	p.click("button[type=submit]")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		if err := p.s.Evaluate(e.ctx, `location.pathname === "/leave/done.html" && document.readyState === "complete"`, &ok); err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the search did not reach /leave/done.html within 15 s")
		}
	}

	o := e.observeUntil(map[string]any{"what": "actions", "tabs": "all", "url": form, "limit": 100}, 15*time.Second, func(o observed) error {
		var typed, clicked bool
		for _, a := range o.Entries {
			typed = typed || (a.str("type") == "input" && a.str("value") == query)
			clicked = clicked || (a.str("type") == "click" && a.str("name") == "Search")
		}
		if !typed || !clicked {
			return fmt.Errorf("the input of %q recorded: %v; the click on Search recorded: %v (both were handed to the paced relay as the page unloaded)", query, typed, clicked)
		}
		return nil
	})
	n, _ := o.Entries[0]["tab_id"].(float64)
	g := e.generate(map[string]any{"what": "test", "tab_id": int64(n)}, "fill('"+query+"')", "'Search'")
	if !strings.Contains(g.File, ".click()") {
		t.Errorf("the recorded test clicks nothing:\n%s", g.File)
	}
}
