//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/bidi"
)

// The user's side in Firefox: the user is played with WebDriver BiDi's
// input.performActions (trusted pointer and key events, as a person's), the
// agent with MCP through gasoline-mcp.

// foxTab waits until one of Firefox's tabs shows u and returns its BiDi
// browsing context.
func (e *foxEnv) foxTab(u string) string {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tabs, err := e.browser.BiDi.Tree(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, c := range tabs {
			if c.URL == u {
				return c.Context
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no Firefox tab shows %s after 20 s: %+v", u, tabs)
		}
	}
}

// eval evaluates expr in tab and decodes its value into out (unless nil).
func (e *foxEnv) eval(tab, expr string, out any) {
	e.t.Helper()
	if err := e.browser.BiDi.Evaluate(e.ctx, tab, expr, out); err != nil {
		e.t.Fatalf("evaluating %s: %v", expr, err)
	}
}

// waitFor evaluates expr in tab until it is true, for up to 20 s.
func (e *foxEnv) waitFor(tab, what, expr string) {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		if err := e.browser.BiDi.Evaluate(e.ctx, tab, expr, &ok); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: not so after 20 s (%s)", what, expr)
		}
	}
}

// foxNewTab opens path of the test site in a new tab through the agent
// (new_tab: the tab in front, the agent's own) and returns its tab id and
// its BiDi browsing context.
func (e *foxEnv) foxNewTab(path string) (int64, string) {
	e.t.Helper()
	var tab struct {
		TabID int64 `json:"tab_id"`
	}
	// timeout_ms: a window of its own for the agent's first tab can take
	// Firefox more than the default 10 s on a loaded machine.
	r := e.act("new_tab", map[string]any{"url": e.site.URL + path, "timeout_ms": 30000})
	if r.Status != "complete" || json.Unmarshal(r.Value, &tab) != nil || tab.TabID == 0 {
		e.t.Fatalf("new_tab %s: %s", path, r)
	}
	return tab.TabID, e.foxTab(e.site.URL + path)
}

// overlayShown waits until draw mode's overlay is in tab's page and shown,
// or gone from it (not merely hidden, as while Done is being sent).
func (e *foxEnv) overlayShown(tab string, present bool) {
	e.t.Helper()
	e.waitFor(tab, fmt.Sprintf("the draw overlay present = %v", present),
		fmt.Sprintf(`(() => { const h = document.querySelector("gasoline-draw-overlay");
			return (h !== null && (!%v || getComputedStyle(h).visibility === "visible")) === %v })()`, present, present))
}

// typeNote waits until the overlay's note frame (an extension page in the
// user's tab) has focused its empty input after a box was drawn, and types
// text there with trusted key events, as the user does.
func (e *foxEnv) typeNote(tab, text string) {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !e.noteFocused(tab); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatal("no empty note frame has the focus 20 s after the box was drawn")
		}
	}
	if err := e.browser.BiDi.TypeText(e.ctx, tab, text); err != nil {
		e.t.Fatal(err)
	}
}

func (e *foxEnv) noteFocused(tab string) bool {
	e.t.Helper()
	frames, err := e.browser.BiDi.Frames(e.ctx, tab)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, f := range frames {
		if !strings.Contains(f.URL, "/overlay/note.html#") {
			continue
		}
		var ok bool
		err := e.browser.BiDi.Evaluate(e.ctx, f.Context,
			`document.hasFocus() && document.activeElement?.localName === "input" && document.activeElement.value === ""`, &ok)
		if err == nil && ok {
			return true
		}
	}
	return false
}

// drag is the user's drag in tab, failing the test if BiDi refuses it.
func (e *foxEnv) drag(tab string, x1, y1, x2, y2 float64) {
	e.t.Helper()
	if err := e.browser.BiDi.Drag(e.ctx, tab, x1, y1, x2, y2); err != nil {
		e.t.Fatal(err)
	}
}

// press is the user's key chord in tab.
func (e *foxEnv) press(tab string, keys ...string) {
	e.t.Helper()
	if err := e.browser.BiDi.Press(e.ctx, tab, keys...); err != nil {
		e.t.Fatal(err)
	}
}

// TestFirefoxDrawMode: in Firefox, the agent starts draw mode on a
// scrolled page; the user draws two rectangles with the mouse, types a
// note for each and presses Ctrl+Enter (trusted BiDi input). The agent's
// waiting call returns both, in page coordinates, with the elements under
// them and a crop of each as the user saw it (the banner's red, the
// frame's green, no overlay); the overlay is gone. Then Esc cancels a
// second session and the agent learns it.
func TestFirefoxDrawMode(t *testing.T) {
	e := foxReady(t)
	tabID, tab := e.foxNewTab("/hands/draw.html")
	var dpr, scrolled float64
	e.eval(tab, `(() => { scrollTo(0, 400); return scrollY })()`, &scrolled)
	e.eval(tab, `devicePixelRatio`, &dpr)
	r := e.call("analyze", map[string]any{"what": "annotations", "wait": true, "tab_id": tabID, "instructions": "Mark the banner and the ad"})
	if r.Status != "waiting_for_user" || !strings.HasPrefix(r.CorrelationID, "ann_") {
		t.Fatalf("analyze annotations wait:true: %s", r)
	}
	e.overlayShown(tab, true)

	// #banner is at page (300, 600) 200x100, the iframe at (40, 760)
	// 200x100; scrolled 400, at viewport y 200 and 360.
	e.drag(tab, 310, 210, 490, 290)
	e.typeNote(tab, "wrong red")
	e.drag(tab, 50, 370, 230, 450)
	e.typeNote(tab, "ad covers the form")
	e.press(tab, bidi.KeyControl, bidi.KeyEnter)

	done := e.await(r.CorrelationID, 30*time.Second)
	var s struct {
		URL      string `json:"url"`
		Viewport struct {
			ScrollY float64 `json:"scroll_y"`
		} `json:"viewport"`
		Annotations []drawMark `json:"annotations"`
	}
	if done.Status != "complete" || json.Unmarshal(done.Value, &s) != nil || len(s.Annotations) != 2 {
		t.Fatalf("after Ctrl+Enter: %s, want complete with two annotations", done)
	}
	if !strings.HasSuffix(s.URL, "/hands/draw.html") || s.Viewport.ScrollY != 400 || scrolled != 400 {
		t.Errorf("session of %q scrolled %v (page said %v), want the draw page scrolled 400 px", s.URL, s.Viewport.ScrollY, scrolled)
	}
	banner := s.Annotations[0]
	if banner.Note != "wrong red" || banner.Rect.X != 310 || banner.Rect.Y != 610 || banner.Rect.Width != 180 || banner.Rect.Height != 80 ||
		banner.Element == nil || !strings.Contains(banner.Element.Selector, "banner") {
		t.Errorf("banner annotation %+v %+v, want the note, (310, 610) 180x80 in page coordinates and #banner", banner, banner.Element)
	}
	e.checkDrawCrops(s.Annotations, dpr)
	e.overlayShown(tab, false)

	// Esc cancels; the agent learns it at once and the overlay goes.
	r = e.call("analyze", map[string]any{"what": "annotations", "wait": true, "tab_id": tabID})
	if r.Status != "waiting_for_user" {
		t.Fatalf("second analyze annotations: %s", r)
	}
	e.overlayShown(tab, true)
	e.press(tab, bidi.KeyEscape)
	if c := e.await(r.CorrelationID, 30*time.Second); c.Status != "cancelled" || !strings.Contains(c.Error, "Esc") {
		t.Fatalf("after Esc: %s, want cancelled saying the user pressed Esc", c)
	}
	e.overlayShown(tab, false)
}

// TestFirefoxUpload: in Firefox, upload puts files from the directory the
// user allowed (--upload-dir) in the page's file inputs, a visible one and
// a hidden multiple one; the page reads them with FileReader. A file from
// elsewhere is refused with what to do.
func TestFirefoxUpload(t *testing.T) {
	docs, outside := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notes := write(docs, "notes.txt", "hello from disk")
	pic := write(docs, "pic.png", "not really a png")
	secret := write(outside, "secret.txt", "do not send")

	e := foxReady(t, "--upload-dir="+docs)
	e.foxNewTab("/hands/upload.html")
	r := e.ok("upload", map[string]any{"text": "Document", "paths": []string{notes}})
	files, _ := r["files"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["name"] != "notes.txt" || files[0].(map[string]any)["size"] != float64(15) {
		t.Errorf("upload: got %v, want notes.txt of 15 bytes", r)
	}
	e.ok("wait_for", map[string]any{"text": `doc: notes.txt text/plain 15 "hello from disk"`})
	e.ok("upload", map[string]any{"text": "Choose photos", "paths": []string{pic, notes}})
	e.ok("wait_for", map[string]any{"text": `photos: notes.txt`})
	if out := e.pageText("#out", nil); !strings.Contains(out, `photos: pic.png image/png 16 "not really a png"`) {
		t.Errorf("the page lists %q, want pic.png with its type, size and text", out)
	}
	refused, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "upload", "selector": "#doc", "paths": []string{secret}, "wait_ms": 20000})
	if err != nil {
		t.Fatal(err)
	}
	if !refused.IsError || refused.ToolError.Code != "upload_not_allowed" || !strings.Contains(refused.ToolError.Message, "not under an allowed directory") {
		t.Errorf("upload from outside: %s, want upload_not_allowed", refused)
	}
	if out := e.pageText("#out", nil); strings.Contains(out, "do not send") {
		t.Errorf("after the refusal the page lists %q", out)
	}
}

// userMark marks the user's tab (page A, the tab Firefox started with) in
// its window object, which a reload or a navigation would lose, and
// returns its browsing context.
func (e *foxEnv) userMark() string {
	e.t.Helper()
	tab := e.foxTab(e.site.URL + "/a")
	e.eval(tab, `(() => { window.userMark = "the user's"; return true })()`, nil)
	return tab
}

// userUntouched fails the test unless the user's tab still shows page A,
// unreloaded, with nothing an agent typed.
func (e *foxEnv) userUntouched(tab string) {
	e.t.Helper()
	var got []any
	e.eval(tab, `[location.href, window.userMark ?? null, document.title]`, &got)
	if fmt.Sprint(got) != fmt.Sprintf("[%s/a the user's Page A]", e.site.URL) {
		e.t.Errorf("the user's tab holds %v, want page A as it was (unreloaded, its mark kept)", got)
	}
}

// TestFirefoxTwoAgents: two agents (two gasoline-mcp processes) work in one
// Firefox at once. Each opens its own tab and fills, types and runs scripts
// there without tab_id, and every command lands in its own tab; observe
// tabs names the owners; beta's close_tab of alpha's tab is refused naming
// alpha, and beta's observe logs does not show alpha's console unless
// tabs:"all". The user's tab is untouched.
func TestFirefoxTwoAgents(t *testing.T) {
	e := foxReady(t)
	user := e.userMark()
	alpha, beta := e.agent("agent-alpha"), e.agent("agent-beta")
	if r, err := beta.act("close_tab", nil); err != nil || r.Status != "error" ||
		!strings.Contains(r.Error, "close_tab without tab_id closes only a tab this agent opened") {
		t.Fatalf("close_tab without an owned tab: %s, %v; want an error saying to pass tab_id", r, err)
	}

	type page = agentPage
	tabOf := map[string]int64{}
	var mu sync.Mutex
	var opened sync.WaitGroup
	opened.Add(2)
	work := func(a *agent) error {
		var nt page
		err := a.ok("new_tab", map[string]any{"url": e.site.URL + "/hands/notes.html?who=" + a.name, "timeout_ms": 30000}, &nt)
		opened.Done()
		if err != nil {
			return err
		}
		mu.Lock()
		tabOf[a.name] = nt.TabID
		mu.Unlock()
		opened.Wait() // both tabs open
		return workInOwnTab(a, nt.TabID, "console.log('secret of ' + location.search); return [location.search, note.value, log.value]")
	}
	errs := make(chan error, 2)
	for _, a := range []*agent{alpha, beta} {
		go func() { errs <- work(a) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ta, tb := tabOf["agent-alpha"], tabOf["agent-beta"]
	for name, id := range tabOf {
		js := complete(t, e.js("return note.value + '|' + log.value", map[string]any{"tab_id": id, "force": true}))
		if got, want := str(t, js), name+" note 2|"+strings.Repeat(name+";", 3); got != want {
			t.Errorf("tab %d of %s holds %q, want %q", id, name, got, want)
		}
	}
	seen, err := alpha.tabs()
	if err != nil {
		t.Fatal(err)
	}
	if x, y := seen[ta], seen[tb]; x.Owner != "agent-alpha" || !x.Mine || y.Owner != "agent-beta" || y.Mine {
		t.Errorf("alpha's observe tabs: its tab %+v, beta's %+v; want the owners named and only its own mine", x, y)
	}

	// alpha's console is alpha's: beta sees it only with tabs:"all".
	marker := "secret of ?who=agent-alpha"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, _, err := alpha.logsOf(marker, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[marker] == ta {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alpha never read its own console.log in tab %d: %v", ta, got)
		}
	}
	if got, hint, err := beta.logsOf(marker, nil); err != nil || len(got) != 0 || !strings.Contains(hint, `tabs:"all"`) {
		t.Errorf("beta's observe logs shows %v (hint %q, %v), want none of alpha's and a hint naming tabs:\"all\"", got, hint, err)
	}
	if got, _, err := beta.logsOf(marker, map[string]any{"tabs": "all"}); err != nil || got[marker] != ta {
		t.Errorf("beta's observe logs tabs:\"all\": %v, %v; want alpha's log with its tab %d", got, err, ta)
	}
	r, err := beta.act("close_tab", map[string]any{"tab_id": ta})
	if err != nil || r.Status != "error" || !strings.Contains(r.Error, "belongs to agent agent-alpha") || !strings.Contains(r.Error, "force:true") {
		t.Errorf("beta's close_tab of alpha's tab: %s, %v; want an error naming agent-alpha and force:true", r, err)
	}
	if js := complete(t, e.js("return note.value", map[string]any{"tab_id": ta, "force": true})); str(t, js) != "agent-alpha note 2" {
		t.Errorf("alpha's tab after beta's refused close_tab holds %q", str(t, js))
	}
	e.userUntouched(user)
}

// TestFirefoxAgentTabBehindUser: the user brings their own tab to the front
// (browsingContext.activate) while an agent works in its tab: the agent's
// click, execute_js and screenshot work there, and the user's tab stays in
// front, untouched.
func TestFirefoxAgentTabBehindUser(t *testing.T) {
	e := foxReady(t)
	srv := foxPages(t)
	user := e.userMark()
	var nt struct {
		TabID int64 `json:"tab_id"`
	}
	if r := e.act("new_tab", map[string]any{"url": srv.URL + "/fox/button", "timeout_ms": 30000}); r.Status != "complete" || json.Unmarshal(r.Value, &nt) != nil {
		t.Fatalf("new_tab: %s", r)
	}
	if err := e.browser.BiDi.Activate(e.ctx, user); err != nil {
		t.Fatal(err)
	}
	front := `document.visibilityState === "visible"`
	e.waitFor(user, "the user's tab in front", front)

	r := e.call("interact", map[string]any{"action": "click", "target": map[string]any{"role": "button", "name": "Jump"}, "wait_ms": 20000})
	if r.Status != "complete" || !strings.Contains(string(r.Raw), "The fox jumped") {
		t.Fatalf("the agent's click with the user's tab in front: %s, want complete with its effect", r)
	}
	js := complete(t, e.js("return [document.title, document.querySelectorAll('p').length]", nil))
	if got := string(js.Value); got != `["Fox clicked",1]` || js.TabID != nt.TabID {
		t.Errorf("execute_js read %s in tab %d, want [\"Fox clicked\",1] in the agent's tab %d", got, js.TabID, nt.TabID)
	}
	shot := e.call("interact", map[string]any{"action": "screenshot", "wait_ms": 20000})
	var s struct {
		Result struct {
			URL   string `json:"url"`
			Bytes int    `json:"bytes"`
		} `json:"result"`
	}
	if json.Unmarshal(shot.Raw, &s) != nil || shot.Status != "complete" || s.Result.URL != srv.URL+"/fox/button" || s.Result.Bytes < 1000 {
		t.Errorf("the agent's screenshot with the user's tab in front: %s, want an image of its own tab", shot.Raw)
	}
	var ok bool
	e.eval(user, front, &ok)
	if !ok {
		t.Errorf("the user's tab is no longer in front after the agent's work")
	}
	e.userUntouched(user)
}

// userClick clicks the middle of the element selector names in tab with
// the mouse, as the user does.
func (e *foxEnv) userClick(tab, selector string) {
	e.t.Helper()
	var at struct{ X, Y float64 }
	e.eval(tab, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2} })()`, selector), &at)
	if err := e.browser.BiDi.Click(e.ctx, tab, at.X, at.Y); err != nil {
		e.t.Fatal(err)
	}
}

// TestFirefoxRecordedTest: in Firefox the user signs in by hand (trusted
// BiDi mouse and keys) with a password, is redirected, and loads orders
// from an API; analyze test writes the Playwright test of what Firefox
// recorded (the password an environment variable, the redirect, the API's
// status and the message that appeared asserted), and verify:true runs it
// green. The generated test runs in Playwright's Chromium (the runner the
// daemon is given): what this proves is that a recording made in Firefox
// yields a correct test.
func TestFirefoxRecordedTest(t *testing.T) {
	playwrightReady(t)
	e := foxReady(t)
	site := newRecordedSite(t)
	c := e.browser.BiDi
	tab, err := c.NewTab(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Navigate(e.ctx, tab, site.URL+"/tg/login.html"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ sel, text string }{{"#email", "ada@example.test"}, {"#pw", "hunter22-secret"}} {
		e.userClick(tab, f.sel)
		e.waitFor(tab, f.sel+" focused", fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, f.sel))
		if err := c.TypeText(e.ctx, tab, f.text); err != nil {
			t.Fatal(err)
		}
	}
	e.userClick(tab, "button[type=submit]")
	e.waitFor(tab, "signed in", `location.pathname === "/tg/home.html" && document.readyState === "complete"`)
	e.userClick(tab, "#load")
	e.waitFor(tab, "orders loaded", `document.getElementById("out").textContent === "2 orders found"`)

	id := e.tabOf(site.URL + "/tg/home.html")
	g := e.generate(map[string]any{"what": "test", "tab_id": id},
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
	if v := e.verify(id); !v.Verdict.Passed {
		t.Fatalf("the test recorded in Firefox failed against the page: %+v\n%s", v.Verdict, v.File)
	}
	site.found.Store("orders in your cart")
	if v := e.verify(id); v.Verdict.Passed || !strings.Contains(v.Verdict.FailedCode, "getByText('2 orders found'") {
		t.Errorf("with another message: got %+v, want a failure at the text assertion\n%s", v.Verdict, v.File)
	}
}
