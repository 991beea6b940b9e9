//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// earlyPage is a page whose parsing stops at a script the server holds
// back: its first buttons show while document.readyState is still
// "loading", before document_end, when the DOM engine arrives.
const earlyPage = `<!doctype html><html><head><title>early</title>
<script>window.hits = []; addEventListener('click', (e) => hits.push(e.target.textContent), true);</script>
</head><body>
<button data-testid="early-save">Save</button>
<div><button>Go</button></div>
<script src="/held.js"></script>
<button>Later</button>
</body></html>`

// TestRecordedBeforeEngine clicks, as a user, two buttons of a page still
// parsing (before document_end, so before the DOM engine is in the frame):
// each click must be recorded at once, with dom/early.js's locator (the
// test id, else the CSS path) that interact replays onto the same button.
// Once the page is parsed, a click gets the engine's role and name.
func TestRecordedBeforeEngine(t *testing.T) {
	e := ready(t)
	release := make(chan struct{})
	var released bool
	free := func() {
		if !released {
			released = true
			close(release)
		}
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/early.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, earlyPage)
		case "/held.js":
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "window.held = true;")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	t.Cleanup(free) // before Close, which waits for the held request

	id, err := e.cdp.CreateTarget(e.ctx, site.URL+"/early.html")
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.cdp.Attach(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Detach(context.WithoutCancel(e.ctx)) })
	p := &page{e: e, s: s, targetID: id}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var parsing bool
		err := s.Evaluate(e.ctx, `document.readyState === "loading" && document.querySelectorAll("button").length === 2`, &parsing)
		if err == nil && parsing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page did not stop at its held script within 20 s (last error %v)", err)
		}
	}
	p.click(`[data-testid="early-save"]`)
	p.click(`div > button`)
	var state string
	if p.eval(`document.readyState`, &state); state != "loading" {
		t.Fatalf("readyState %q after the early clicks, want loading (the engine would be there)", state)
	}

	early := e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 15*time.Second, func(o observed) error {
		if len(clicksOn(o, site.URL+"/early.html")) < 2 {
			return fmt.Errorf("the two early clicks are not both recorded yet")
		}
		return nil
	})
	clicks := clicksOn(early, site.URL+"/early.html")
	save, goBtn := clicks[0], clicks[1]
	if loc, _ := save["locator"].(map[string]any); fmt.Sprintf("%v %v %v", loc["by"], loc["attr"], loc["value"]) != "testid data-testid early-save" {
		t.Errorf("the early click on Save has locator %v, want the test id", save["locator"])
	}
	loc, _ := goBtn["locator"].(map[string]any)
	if loc["by"] != "css" {
		t.Errorf("the early click on Go has locator %v, want its CSS path", goBtn["locator"])
	}
	for _, a := range []ev{save, goBtn} {
		if a["role"] != nil || a["name"] != nil {
			t.Errorf("an early record has a role or name without the engine: %v", a)
		}
	}

	free()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if p.eval(`document.readyState`, &state); state == "complete" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page did not finish loading within 20 s once released")
		}
	}
	p.click(`body > button:last-of-type`)
	late := e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 15*time.Second, func(o observed) error {
		if len(clicksOn(o, site.URL+"/early.html")) < 3 {
			return fmt.Errorf("the click after parsing is not recorded yet")
		}
		return nil
	})
	later := clicksOn(late, site.URL+"/early.html")[2]
	if l, _ := later["locator"].(map[string]any); fmt.Sprintf("%v %v %v", l["by"], l["role"], l["name"]) != "role button Later" || later["name"] != "Later" {
		t.Errorf("the click after parsing is %v, want the engine's role and name", later)
	}

	// The early locators find the same buttons again.
	for _, a := range []ev{save, goBtn} {
		p.eval(`(window.hits = [], true)`, new(bool))
		l, _ := a["locator"].(map[string]any)
		e.ok("click", map[string]any{"target": targetOf(t, l), "tab_id": a["tab_id"]})
		var hits []string
		p.eval(`window.hits`, &hits)
		if want := a.str("text"); !slices.Equal(hits, []string{want}) {
			t.Errorf("replaying %v clicked %v, want [%s]", l, hits, want)
		}
	}
}

// clicksOn is the recorded clicks in the tab that loaded url, oldest
// first (its load entry may come after a click made while it loaded).
func clicksOn(o observed, url string) []ev {
	var tab any
	for _, a := range o.Entries {
		if a.str("type") == "load" && a.str("to") == url {
			tab = a["tab_id"]
		}
	}
	var out []ev
	for _, a := range o.Entries {
		if a.str("type") == "click" && tab != nil && a["tab_id"] == tab {
			out = append(out, a)
		}
	}
	return out
}
