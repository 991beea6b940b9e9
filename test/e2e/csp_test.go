//go:build unix

package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
)

// strictCSP is the policy the /csp/ fixtures are served with: scripts from
// the page's own origin only, so no inline scripts and no eval.
// /csp/trusted-types.html gets trustedTypesCSP instead, which allows scripts
// but refuses eval of a plain string.
const (
	strictCSP       = "script-src 'self'"
	trustedTypesCSP = "require-trusted-types-for 'script'"
)

// cspPages serves testdata/csp/ with a Content-Security-Policy header.
func cspPages() http.Handler {
	files := http.FileServer(http.Dir("testdata"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		policy := strictCSP
		if r.URL.Path == "/csp/trusted-types.html" {
			policy = trustedTypesCSP
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", policy)
		files.ServeHTTP(w, r)
	})
}

// TestStrictCSP works on a page served with "Content-Security-Policy:
// script-src 'self'": the DOM actions work as they are; execute_js, whose
// MAIN-world eval the page refuses, fails saying where to allow user
// scripts; once they are allowed (the extension's details page) it runs the
// script in the USER_SCRIPT world, which shares the DOM but not the page's
// globals, with MAIN's result shape, errors and navigation handling;
// switched off again, it fails again.
func TestStrictCSP(t *testing.T) {
	e := ready(t)
	tab := e.newTab(e.site.URL + "/csp/strict.html")
	on := map[string]any{"tab_id": tab}

	// The fixture's CSP is in force: no inline script, no eval in the page.
	if got := e.pageText("#inline", on); got != "inline script blocked" {
		t.Fatalf("#inline says %q: the page's CSP is not in force", got)
	}
	if got := e.pageText("#evalstate", on); got != "eval blocked (EvalError)" {
		t.Fatalf("#evalstate says %q, want eval blocked by the page's CSP", got)
	}

	// The DOM actions need no eval.
	e.ok("fill", map[string]any{"tab_id": tab, "role": "textbox", "name": "Name", "text": "Ada"})
	e.ok("click", map[string]any{"tab_id": tab, "role": "button", "name": "Greet"})
	e.ok("wait_for", map[string]any{"tab_id": tab, "text": "Hello, Ada"})
	if got := e.pageText("#out", on); got != "Hello, Ada" {
		t.Errorf("after fill and click #out says %q, want Hello, Ada", got)
	}

	// User scripts not allowed: a clear error naming the toggle.
	notAllowed := func(when string) {
		t.Helper()
		r := e.js("document.title", on)
		if r.Status != "error" || r.Reason != "command_error" {
			t.Fatalf("%s: got %s, want status error, reason command_error", when, r)
		}
		for _, want := range []string{"Content-Security-Policy blocks eval", `"Allow User Scripts"`, chromium.DetailsURL, "Developer mode", "click, fill, get_text"} {
			if !strings.Contains(r.Error, want) {
				t.Errorf("%s: the error lacks %q: %s", when, want, r.Error)
			}
		}
	}
	notAllowed("before user scripts are allowed")

	if err := chromium.SetUserScriptsAccess(e.ctx, e.cdp, true); err != nil {
		t.Fatal(err)
	}
	userWorld := func(script string) (json.RawMessage, string) {
		t.Helper()
		js := complete(t, e.js(script, on))
		if js.World != "USER_SCRIPT" || js.Builtins != "pristine" || js.TabID != tab || !strings.HasSuffix(js.URL, "/csp/strict.html") {
			t.Errorf("%q: world %q builtins %q tab %d url %q, want USER_SCRIPT, pristine, tab %d, the strict page", script, js.World, js.Builtins, js.TabID, js.URL, tab)
		}
		if !strings.Contains(js.Hint, "USER_SCRIPT world") || !strings.Contains(js.Hint, "JavaScript globals") {
			t.Errorf("%q: hint %q, want the USER_SCRIPT note", script, js.Hint)
		}
		return js.Value, js.Hint
	}
	for _, tc := range []struct{ script, want string }{
		{`document.getElementById("out").textContent`, `"Hello, Ada"`},
		{`const h = document.querySelector("h1"); await new Promise((r) => setTimeout(r, 10)); return h.textContent`, `"Strict CSP"`},
		{`({title: document.title, pageGlobal: typeof window.strictApp, nan: NaN})`, `{"nan":"NaN","pageGlobal":"undefined","title":"Strict CSP"}`},
		{`globalThis.__e2eCount = 41; return 1`, `1`},
		{`++__e2eCount`, `42`}, // the world keeps its globals between scripts, as MAIN does
		{`document.getElementById("out").textContent = "set from the user script world"; return 1`, `1`},
	} {
		if v, _ := userWorld(tc.script); !jsonEqual(t, v, tc.want) {
			t.Errorf("%q: value %s, want %s", tc.script, v, tc.want)
		}
	}
	if got := e.pageText("#out", on); got != "set from the user script world" {
		t.Errorf("a DOM write from the USER_SCRIPT world: #out says %q", got)
	}
	r := e.js("const v = 1;\nreturn strictApp.version", on)
	if r.Status != "error" || !strings.HasPrefix(r.Error, "Uncaught ReferenceError: strictApp is not defined") ||
		!strings.Contains(r.Error, "(script:2:") || !strings.Contains(r.Error, "USER_SCRIPT world") {
		t.Errorf("a page global read in the USER_SCRIPT world: got %s, want the ReferenceError at script line 2 with the USER_SCRIPT note", r)
	}

	// A page that enforces Trusted Types refuses eval of a plain string too.
	tt := e.newTab(e.site.URL + "/csp/trusted-types.html")
	if js := complete(t, e.js(`document.body.innerHTML = "<b>sink</b>"; return document.title`, map[string]any{"tab_id": tt})); js.World != "USER_SCRIPT" || str(t, js) != "Trusted Types" {
		t.Errorf("a Trusted Types page: world %q value %s, want USER_SCRIPT and its title", js.World, js.Value)
	}

	// A navigation under a USER_SCRIPT-world script ends it at once, as in MAIN.
	nav := e.newTab(e.site.URL + "/csp/strict.html")
	r = e.js(`setTimeout(() => { location.href = "/b"; }, 300); await new Promise((r) => setTimeout(r, 60000)); return 1`, map[string]any{"tab_id": nav})
	if r.Status != "error" || r.Reason != "navigated" || !strings.Contains(r.Error, "/b") {
		t.Errorf("a page that navigates under a USER_SCRIPT-world script: got %s, want error, reason navigated, naming /b", r)
	}

	// A page without a strict CSP still runs in MAIN and sees its globals.
	a := e.newTab(e.site.URL + "/main-world")
	if err := e.pageSession(e.site.URL+"/main-world").Evaluate(e.ctx, `window.pageGlobal = "the page's"`, nil); err != nil {
		t.Fatal(err)
	}
	if js := complete(t, e.js(`window.pageGlobal`, map[string]any{"tab_id": a})); js.World != "MAIN" || str(t, js) != "the page's" {
		t.Errorf("page A: world %q value %s, want MAIN and the page's global", js.World, js.Value)
	}

	if err := chromium.SetUserScriptsAccess(e.ctx, e.cdp, false); err != nil {
		t.Fatal(err)
	}
	notAllowed("after user scripts are switched off again")
}

// jsonEqual reports whether the JSON texts got and want hold the same value.
func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("value %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}
