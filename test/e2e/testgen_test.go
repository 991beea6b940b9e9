//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recordedSite is a sign-in form with a password that posts and redirects
// to a page whose button loads orders from an API and says how many; the
// button's label, the API's status and the message can change under a
// recorded test.
type recordedSite struct {
	*httptest.Server
	signIn atomic.Value // the submit button's label
	status atomic.Int32 // what /tg/api/orders answers
	found  atomic.Value // the message after loading, before its count: "orders found" says "2 orders found"
}

func newRecordedSite(t *testing.T) *recordedSite {
	s := &recordedSite{}
	s.signIn.Store("Sign in")
	s.status.Store(200)
	s.found.Store("orders found")
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Shop</title></head><body>%s</body></html>", body)
	}
	mux.HandleFunc("GET /tg/login.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, fmt.Sprintf(`<h1>Sign in</h1><form method="post" action="/tg/session">
<label for="email">Email</label> <input id="email" name="email" type="email">
<label for="pw">Password</label> <input id="pw" name="pw" type="password">
<button type="submit">%s</button></form>`, s.signIn.Load()))
	})
	mux.HandleFunc("POST /tg/session", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/tg/home.html", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /tg/home.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, fmt.Sprintf(`<h1>Orders</h1><button type="button" id="load">Load orders</button><p id="out"></p>
<script>document.getElementById('load').onclick = () => fetch('/tg/api/orders').then((r) => r.json())
  .then((o) => { document.getElementById('out').textContent = o.length + ' %s'; });</script>`, s.found.Load()))
	})
	mux.HandleFunc("GET /tg/api/orders", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(s.status.Load()))
		w.Write([]byte(`[{"id":1},{"id":2}]`))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// playwrightReady points analyze test at test/npm's @playwright/test
// (make npm-deps installs it) and Debian's chromium, for the daemon the
// test starts next.
func playwrightReady(t *testing.T) {
	t.Helper()
	proj, _ := filepath.Abs("../npm")
	if _, err := os.Stat(filepath.Join(proj, "node_modules/@playwright/test/cli.js")); err != nil {
		requireBrowser(t) // skips, or fails under GASOLINE_REQUIRE_BROWSER=1
		t.Fatalf("@playwright/test is not installed in test/npm: run make npm-deps")
	}
	t.Setenv("GASOLINE_PLAYWRIGHT", proj)
	t.Setenv("GASOLINE_PLAYWRIGHT_BROWSER", "/usr/bin/chromium")
}

// generated is analyze test's answer as the tests read it.
type generated struct {
	File  string `json:"file"`
	Steps []struct {
		Line    int    `json:"line"`
		Code    string `json:"code"`
		Source  uint64 `json:"source"`
		Command string `json:"command"`
	} `json:"steps"`
	Assertions []struct {
		Code     string `json:"code"`
		Evidence string `json:"evidence"`
	} `json:"assertions"`
	Verified string `json:"verified"`
	Verdict  *struct {
		Passed     bool   `json:"passed"`
		FailedLine int    `json:"failed_line"`
		FailedCode string `json:"failed_code"`
		Error      string `json:"error"`
	} `json:"verdict"`
}

// generate calls analyze test with args until the file holds every
// string of want (the last actions may still be on their way).
func (e *env) generate(args map[string]any, want ...string) generated {
	e.t.Helper()
	var g generated
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r, err := e.mcp.Call(e.ctx, "analyze", args)
		if err != nil {
			e.t.Fatal(err)
		}
		g = generated{}
		missing := ""
		if !r.IsError {
			if err := json.Unmarshal(r.Raw, &g); err != nil {
				e.t.Fatalf("analyze test: %v: %s", err, r.Raw)
			}
			for _, w := range want {
				if !strings.Contains(g.File, w) {
					missing = w
					break
				}
			}
		} else {
			missing = r.Text
		}
		if missing == "" {
			return g
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("analyze test %v: no %q within 20 s in:\n%s", args, missing, g.File)
		}
	}
}

// verify runs the recorded test again with verify:true.
func (e *env) verify(tab int64) generated {
	e.t.Helper()
	r := e.call("analyze", map[string]any{"what": "test", "tab_id": tab, "verify": true})
	var g generated
	if err := json.Unmarshal(r.Raw, &g); err != nil {
		e.t.Fatalf("analyze test verify: %v: %s", err, r.Raw)
	}
	if g.Verdict == nil {
		e.t.Fatalf("analyze test verify ran nothing: %s", g.Verified)
	}
	return g
}

// tabOf is the tab of the recorded entries on page u.
func (e *env) tabOf(u string) int64 {
	e.t.Helper()
	o := e.observeUntil(map[string]any{"what": "actions", "tabs": "all", "url": u}, 15*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("no recorded entry on %s yet", u)
		}
		return nil
	})
	n, _ := o.Entries[0]["tab_id"].(float64)
	return int64(n)
}

// TestRecordedTestVerified: the user signs in by hand (CDP input: trusted
// events) with a password, is redirected, and loads orders from an API;
// analyze test writes the Playwright test of it (the password an
// environment variable, the redirect, the API's status and the message
// that appeared asserted) and verify:true runs it green. With the button
// renamed the same test fails at its click; with the API answering 500, at
// the status assertion; with another message, at the text assertion.
func TestRecordedTestVerified(t *testing.T) {
	playwrightReady(t)
	e := ready(t)
	site := newRecordedSite(t)
	e.signInAndLoad(site)

	tab := e.tabOf(site.URL + "/tg/home.html")
	g := e.generate(map[string]any{"what": "test", "tab_id": tab},
		"page.goto('"+site.URL+"/tg/login.html')", "fill('ada@example.test')", "process.env.GASOLINE_SECRET_1",
		"toHaveURL('"+site.URL+"/tg/home.html')", "/tg/api/orders", "toBe(200)",
		"await expect(page.getByText('2 orders found', { exact: false })).toBeVisible();")
	if strings.Contains(g.File, "hunter22") {
		t.Fatalf("the password is in the test:\n%s", g.File)
	}
	for _, s := range g.Steps {
		if s.Source == 0 && s.Command == "" {
			t.Errorf("step %q names no captured entry", s.Code)
		}
	}
	if v := e.verify(tab); !v.Verdict.Passed {
		t.Fatalf("the recorded test failed against the page it was recorded on: %+v\n%s", v.Verdict, v.File)
	}

	site.signIn.Store("Log in")
	if v := e.verify(tab); v.Verdict.Passed || !strings.Contains(v.Verdict.FailedCode, "Sign in") {
		t.Errorf("with the button renamed: got %+v, want a failure at the click on Sign in\n%s", v.Verdict, v.File)
	}
	site.signIn.Store("Sign in")
	site.status.Store(500)
	if v := e.verify(tab); v.Verdict.Passed || !strings.Contains(v.Verdict.FailedCode, "toBe(200)") {
		t.Errorf("with the API answering 500: got %+v, want a failure at the status assertion\n%s", v.Verdict, v.File)
	}
	site.status.Store(200)
	site.found.Store("orders in your cart")
	if v := e.verify(tab); v.Verdict.Passed || !strings.Contains(v.Verdict.FailedCode, "getByText('2 orders found'") {
		t.Errorf("with another message: got %+v, want a failure at the text assertion\n%s", v.Verdict, v.File)
	}
}

// TestRecordedTestReact: the user fills the React fixture's controlled
// form (a name, the terms checkbox) and submits, then the agent clicks the
// counter through interact; the generated test replays both, asserts the
// text the agent's click made appear (its last action's, recorded from the
// runtime's "acting" signal), and passes.
func TestRecordedTestReact(t *testing.T) {
	playwrightReady(t)
	e := ready(t)
	p := e.openPage(e.site.URL + "/react/index.html")
	p.typeInto("input:not([type])", "Ada")
	p.click("input[type=checkbox]")
	p.click("button[type=submit]")
	var shown string
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(shown, "Submitted"); time.Sleep(50 * time.Millisecond) {
		p.eval(`document.getElementById('result')?.textContent ?? ''`, &shown)
		if time.Now().After(deadline) {
			t.Fatal("the React form did not submit")
		}
	}
	tab := e.tabOf(e.site.URL + "/react/") // the file server shows index.html as /react/
	// The agent's own click (dispatched by the extension, so not recorded
	// as input) is a step too, from its command, and the text it made
	// appear is the test's last assertion.
	e.call("interact", map[string]any{"action": "click", "tab_id": tab, "target": map[string]any{"role": "button", "name": "Clicked 0 times"}, "wait_ms": 20000})
	g := e.generate(map[string]any{"what": "test", "tab_id": tab}, "fill('Ada')", ".check()", "Create account", "Clicked 0 times",
		`await expect(page.getByText('Clicked 1 times', { exact: false })).toBeVisible();`)
	var fromAgent bool
	for _, s := range g.Steps {
		fromAgent = fromAgent || (s.Command != "" && strings.Contains(s.Code, "Clicked 0 times"))
	}
	if !fromAgent {
		t.Errorf("no step names the agent's click command as its source: %+v", g.Steps)
	}
	var byAgent bool
	for _, a := range g.Assertions {
		byAgent = byAgent || (strings.Contains(a.Code, "Clicked 1 times") && strings.Contains(a.Evidence, "the agent's click"))
	}
	if !byAgent {
		t.Errorf("no assertion gives the agent's click as the evidence of its text: %+v", g.Assertions)
	}
	if v := e.verify(tab); !v.Verdict.Passed {
		t.Fatalf("the recorded React test failed: %+v\n%s", v.Verdict, v.File)
	}
}

// signInAndLoad plays the user on the recorded site with CDP Input: signs
// in at /tg/login.html, waits for /tg/home.html, and loads the orders.
func (e *env) signInAndLoad(site *recordedSite) {
	e.t.Helper()
	p := e.openPage(site.URL + "/tg/login.html")
	p.typeInto("#email", "ada@example.test")
	p.typeInto("#pw", "hunter22-secret")
	p.click("button[type=submit]")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		if err := p.s.Evaluate(e.ctx, `location.pathname === "/tg/home.html" && document.readyState === "complete"`, &ok); err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatal("the sign-in did not reach /tg/home.html within 15 s")
		}
	}
	p.click("#load")
}

// TestRecordedTestPointAndScroll: the agent clicks a point of a page
// (click_at) and scrolls a virtualized list (scroll_by); analyze test
// replays each, with the mouse at the point and the list's own scrollBy,
// and verify:true runs the test green: Playwright takes the replayed
// lines and the list is there to scroll. (analyze test asserts no text
// after either: the log's text the click changed and the rows the scroll
// rendered are not recorded as appeared.)
func TestRecordedTestPointAndScroll(t *testing.T) {
	playwrightReady(t)
	e := ready(t)
	for _, c := range []struct {
		path, action string
		args         map[string]any
		want         []string
	}{
		{"/hands/canvas.html", "click_at", map[string]any{"x": 550, "y": 70}, []string{"await page.mouse.click(550, 70);"}},
		{"/hands/rows.html", "scroll_by", map[string]any{"dy": 6000, "target": "#list"}, []string{
			"await page.locator('#list').evaluate((el) => el.scrollBy({ left: 0, top: 6000, behavior: 'instant' }));",
		}},
	} {
		e.open(c.path)
		e.ok(c.action, c.args)
		tab := e.tabOf(e.site.URL + c.path)
		e.generate(map[string]any{"what": "test", "tab_id": tab}, c.want...)
		if v := e.verify(tab); !v.Verdict.Passed {
			t.Fatalf("%s: the recorded test failed against the page it was recorded on: %+v\n%s", c.action, v.Verdict, v.File)
		}
	}
}
