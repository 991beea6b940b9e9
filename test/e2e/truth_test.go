//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The tests in this file play an agent that acts and reads at once, and
// check that what it reads is already true (an action settles before it
// reports: docs/agent-guide.md, "Acting on the page"): no sleeps,
// no retries, every read is the first one after the action.

// truthPages serves testdata/truth and the endpoints its pages use:
//
//	POST /truth/signup   303 to /truth/welcome.html
//	GET  /truth/results  a results page for ?q=
//	GET  /truth/api/fail 500 with a JSON body sent 150 ms after the headers
//	GET  /truth/api/ok   200 "42"
func truthPages() http.Handler {
	return routedPages(map[string]http.HandlerFunc{
		"POST /truth/signup": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/truth/welcome.html", http.StatusSeeOther)
		},
		"/truth/results": func(w http.ResponseWriter, r *http.Request) {
			q := html.EscapeString(r.URL.Query().Get("q"))
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Results</title></head><body><h1>Results for %s</h1></body></html>`, q)
		},
		"/truth/api/fail": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.(http.Flusher).Flush()
			if later(r, 150*time.Millisecond) {
				w.Write([]byte(`{"error":"database down"}`))
			}
		},
		"/truth/api/ok": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("42"))
		},
	})
}

// effectsOf returns the effects of an action's result.
func effectsOf(t *testing.T, action string, r map[string]any) map[string]any {
	t.Helper()
	eff, ok := r["effects"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no effects in %v", action, r)
	}
	return eff
}

// pageOf is observe page for tab.
func (e *env) pageOf(tab any) map[string]any {
	e.t.Helper()
	r := e.call("observe", map[string]any{"what": "page", "tab_id": tab})
	var m map[string]any
	if err := json.Unmarshal(r.Raw, &m); err != nil {
		e.t.Fatalf("observe page: %s: %v", r.Raw, err)
	}
	return m
}

// TestTruthActionsFollowNavigation: a form that POSTs and 303-redirects,
// and Enter in a search box, complete with the navigation they started:
// the new url and title in effects, and the next reads (get_text, observe
// page) see the new page.
func TestTruthActionsFollowNavigation(t *testing.T) {
	e := ready(t)
	e.open("/truth/signup.html")

	e.ok("fill", map[string]any{"role": "textbox", "name": "Email", "text": "ada@example.com"})
	r := e.ok("click", map[string]any{"role": "button", "name": "Sign up"})
	eff := effectsOf(t, "click", r)
	if eff["navigated"] != true || !strings.HasSuffix(fmt.Sprint(eff["url"]), "/truth/welcome.html") || eff["title"] != "Welcome" || eff["settled"] != true {
		t.Errorf("click submit: effects %v, want navigated to /truth/welcome.html titled Welcome, settled", eff)
	}
	if !strings.HasSuffix(fmt.Sprint(r["url"]), "/truth/welcome.html") {
		t.Errorf("click submit: url %v, want the new page's", r["url"])
	}
	if got := e.pageText("h1", nil); got != "Welcome aboard" {
		t.Errorf("get_text right after the click: %q, want the new page's %q", got, "Welcome aboard")
	}
	if p := e.pageOf(r["tab_id"]); !strings.HasSuffix(fmt.Sprint(p["url"]), "/truth/welcome.html") || p["title"] != "Welcome" {
		t.Errorf("observe page right after the click: %v, want the new page", p)
	}

	e.open("/truth/search.html")
	e.ok("fill", map[string]any{"role": "searchbox", "name": "Search", "text": "gasoline"})
	r = e.ok("key_press", map[string]any{"role": "searchbox", "name": "Search", "key": "Enter"})
	eff = effectsOf(t, "key_press", r)
	if eff["navigated"] != true || !strings.Contains(fmt.Sprint(eff["url"]), "/truth/results?q=gasoline") || eff["title"] != "Results" || eff["settled"] != true {
		t.Errorf("Enter in the search box: effects %v, want navigated to /truth/results?q=gasoline titled Results, settled", eff)
	}
	if got := e.pageText("h1", nil); got != "Results for gasoline" {
		t.Errorf("get_text right after Enter: %q, want %q", got, "Results for gasoline")
	}
}

// TestTruthNavigateCapturesLoad: right after a navigate completes, observe
// has the new page's load-time console error, uncaught error and failed
// fetch (typed fetch), and its body reads as the body, every time.
func TestTruthNavigateCapturesLoad(t *testing.T) {
	e := ready(t)
	e.open("/a")
	for run := range 3 {
		url := fmt.Sprintf("%s/truth/broken.html?run=%d", e.site.URL, run)
		cursor := e.observe(map[string]any{"what": "logs", "limit": 1}).NextCursor
		nav := e.ok("navigate", map[string]any{"url": url})

		logs := e.observe(map[string]any{"what": "logs", "min_level": "error", "since": cursor})
		if len(where(logs.Entries, func(v ev) bool { return strings.Contains(v.str("message"), "boot failed") })) == 0 {
			t.Errorf("run %d: observe logs right after navigate lacks the load-time console.error:\n%s", run, logs.Raw)
		}
		errs := e.observe(map[string]any{"what": "errors", "since": cursor})
		if len(where(errs.Entries, func(v ev) bool { return strings.Contains(v.str("message"), "widget crashed") })) == 0 {
			t.Errorf("run %d: observe errors right after navigate lacks the load-time throw:\n%s", run, errs.Raw)
		}
		net := e.observe(map[string]any{"what": "network", "status": ">=400", "since": cursor})
		fails := where(net.Entries, func(v ev) bool {
			return strings.Contains(v.str("url"), fmt.Sprintf("/truth/api/fail?run=%d", run))
		})
		if len(fails) != 1 || fails[0].num("status") != 500 || fails[0].str("type") != "fetch" {
			t.Fatalf("run %d: observe network right after navigate: %v, want the failed fetch once, status 500, type fetch:\n%s", run, fails, net.Raw)
		}
		body := e.call("observe", map[string]any{"what": "network", "id": fails[0].num("id"), "body": "response"})
		if !strings.Contains(string(body.Raw), `database down`) {
			t.Errorf("run %d: the failed request's body read right after: %s, want the body", run, body.Raw)
		}
		if nav["capture"] != nil {
			t.Errorf("run %d: navigate says its capture was incomplete: %v", run, nav["capture"])
		}
	}
}

// TestTruthClickEffects: a click whose handler throws 200 ms later reports
// the error in its own effects; a click that fetches lists the request
// with its status; a click with nothing after it settles at once.
func TestTruthClickEffects(t *testing.T) {
	e := ready(t)
	e.open("/truth/late.html")

	r := e.ok("click", map[string]any{"role": "button", "name": "Save"})
	eff := effectsOf(t, "click", r)
	errs, _ := eff["errors"].(map[string]any)
	if eff["settled"] != true || errs == nil || !strings.Contains(fmt.Sprint(errs["first"]), "save failed 200 ms later") {
		t.Errorf("click whose handler throws 200 ms later: effects %v, want the error and settled", eff)
	}

	r = e.ok("click", map[string]any{"role": "button", "name": "Load"})
	eff = effectsOf(t, "click", r)
	reqs, _ := eff["requests"].([]any)
	if eff["settled"] != true || len(reqs) != 1 || !strings.Contains(fmt.Sprint(reqs[0]), "/truth/api/ok") || reqs[0].(map[string]any)["status"] != 200.0 {
		t.Errorf("click that fetches: effects %v, want the request with status 200, settled", eff)
	}
	if got := e.pageText("#count", nil); got != "42" {
		t.Errorf("get_text after the fetching click: %q, want 42 (the fetch's answer)", got)
	}

	r = e.ok("click", map[string]any{"role": "button", "name": "Count"})
	eff = effectsOf(t, "click", r)
	if eff["settled"] != true || eff["errors"] != nil || eff["navigated"] != nil {
		t.Errorf("quiet click: effects %v, want only settled", eff)
	}
	r = e.ok("click", map[string]any{"role": "button", "name": "Save", "settle_ms": 0})
	eff = effectsOf(t, "click", r)
	if eff["settled"] != false || eff["errors"] != nil {
		t.Errorf("click with settle_ms 0: effects %v, want not settled and no error yet", eff)
	}
}
