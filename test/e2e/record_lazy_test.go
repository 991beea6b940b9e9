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

// lazySite serves a page the user leaves alone (/alone), a form whose Save
// button shows "Saved for later" at once, in its click handler, and whose
// Next button posts to /done, which redirects to /thanks ("Thanks, Ada").
func lazySite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("GET /alone", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Alone</title><h1>Left alone</h1><p>Nobody clicks here.</p>`)
	})
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Order</title><h1>Order</h1>
<button id="save" onclick="const p = document.createElement('p'); p.setAttribute('role', 'status'); p.textContent = 'Saved for later'; document.body.append(p)">Save</button>
<form method="post" action="/done"><button id="next">Next</button></form>`)
	})
	mux.HandleFunc("POST /done", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/thanks", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /thanks", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Thanks</title><h1>Thanks, Ada</h1>`)
	})
	s := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// TestRecorderAtFirstInput: while no agent works, a page the user opens
// gets the recorder (20 KB with the DOM engine) only when they first act
// there (capture/ask.js asks the worker), and a page left alone never
// does; nothing the user does is lost for it. The user, before any agent
// call, opens a page and leaves it, opens a form, clicks Save (its handler
// shows "Saved for later" at once, likely before the recorder arrives)
// and Next, which posts and lands on "Thanks, Ada". The agent's observe
// then lists the click on Save with what it made appear, the click on
// Next, and what the page it led to arrived with: that page got the
// recorder at its DOMContentLoaded, as the user had just acted in the tab
// (capture/declared.js ACTED_MS).
func TestRecorderAtFirstInput(t *testing.T) {
	e := ready(t)
	site := lazySite(t)
	e.popupFrames(false) // idle: no agent call yet (observe would put the extension to work)
	alone := e.openPage(site.URL + "/alone")
	form := e.openPage(site.URL + "/form")
	inWorld := func(p *page, world int, expr string) string {
		t.Helper()
		var s string
		if err := p.s.EvaluateIn(e.ctx, world, expr, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	const state = `String(globalThis.gasolineRecorder === true) + " " + String(globalThis.gasolineTap?.asked)`
	formWorld := form.extensionWorld()

	form.click("#save")
	for deadline := time.Now().Add(10 * time.Second); inWorld(form, formWorld, state) != "true true"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the form's recorder and ask, 10 s after the user's click: %s, want true true", inWorld(form, formWorld, state))
		}
	}
	// The page left alone loaded before the form: had the worker injected
	// the recorder at its DOMContentLoaded, it would be there by now.
	if got := inWorld(alone, alone.extensionWorld(), state); got != "false false" {
		t.Errorf("the page left alone: recorder and ask %s, want false false (no recorder for a page nobody acted in)", got)
	}

	form.click("#next")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var at string
		if err := form.s.Evaluate(e.ctx, `location.pathname + " " + document.readyState`, &at); err == nil && at == "/thanks complete" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the form's Next did not land on /thanks within 10 s")
		}
	}

	// The agent comes: what did the user do, and what did they see?
	saved := func(a ev) bool {
		return a.str("type") == "appeared" && a.str("selector") == "#save" && strings.Contains(a.str("text"), "Saved for later")
	}
	arrived := func(a ev) bool {
		return a.str("type") == "appeared" && a.str("selector") == "html" && strings.Contains(a.str("text"), "Thanks, Ada")
	}
	o := e.observeUntil(map[string]any{"what": "actions", "tabs": "all", "limit": 100}, 15*time.Second, func(o observed) error {
		if len(where(o.Entries, arrived)) == 0 {
			return fmt.Errorf("the thanks page's arrival is not recorded yet")
		}
		return nil
	})
	var tab any // the form's
	for _, a := range o.Entries {
		if a.str("type") == "load" && a.str("to") == site.URL+"/form" {
			tab = a["tab_id"]
		}
	}
	var got []string
	for _, a := range o.Entries {
		if a["tab_id"] == tab && a.str("type") != "load" {
			got = append(got, a.str("type")+" "+a.str("selector"))
		}
	}
	if want := "click #save|appeared #save|click #next|submit body > form|appeared html"; strings.Join(got, "|") != want {
		t.Errorf("the user's recorded actions: %v, want %s\n%s", got, strings.ReplaceAll(want, "|", ", "), o.Raw)
	}
	if len(where(o.Entries, saved)) != 1 {
		t.Errorf("what Save showed before the recorder came is not recorded once as its appeared text:\n%s", o.Raw)
	}
}
