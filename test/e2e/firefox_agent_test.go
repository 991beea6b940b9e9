//go:build unix

package e2e

import (
	context_ "context"
	"encoding/json"
	"fmt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"strings"
	"testing"
	"time"
)

// The agent's side in Firefox: the actions and observations an agent uses,
// each ported in essence from the Chrome test named in its comment, run
// against the extension's Firefox build.

// foxTabs lists the tabs as observe tabs shows them to the agent.
func (e *foxEnv) foxTabs() map[int64]observedTab {
	e.t.Helper()
	r := e.call("observe", map[string]any{"what": "tabs"})
	var l struct {
		Tabs []observedTab `json:"tabs"`
	}
	if err := json.Unmarshal(r.Raw, &l); err != nil {
		e.t.Fatalf("observe tabs %s: %v", r.Raw, err)
	}
	m := map[int64]observedTab{}
	for _, t := range l.Tabs {
		m[t.TabID] = t
	}
	return m
}

// foxOpen shows path of the test site in the tab in front with the
// agent's navigate, as the other Firefox tests do. (The Chrome tests open a
// new tab instead, as their popup may still be closing; here it is closed
// before foxReady returns. TestFirefoxTabsAndHistory covers new_tab.)
func (e *foxEnv) foxOpen(path string) {
	e.t.Helper()
	if r := e.act("navigate", map[string]any{"url": e.site.URL + path}); r.Status != "complete" {
		e.t.Fatalf("navigate %s: %s", path, r)
	}
}

// TestFirefoxTabsAndHistory (TestNavigateAndTabs, TestHistory in Chrome):
// navigate, back, forward and refresh in Firefox's tab; a new tab the
// agent opens is listed by observe tabs, execute_js reaches either tab by
// tab_id, switch_tab brings the first back, close_tab closes the second.
func TestFirefoxTabsAndHistory(t *testing.T) {
	e := foxReady(t)
	var page shownPage
	step := func(args map[string]any, wantURL, wantTitle string) {
		t.Helper()
		page = e.pageStep(args, wantURL, wantTitle)
	}
	b, hit := e.site.URL+"/b", e.site.URL+"/hit/history"
	step(map[string]any{"action": "navigate", "url": b}, b, "Page B")
	first := page.TabID
	step(map[string]any{"action": "navigate", "url": hit}, hit, "Hit history")
	step(map[string]any{"action": "back"}, b, "Page B")
	step(map[string]any{"action": "forward"}, hit, "Hit history")
	loads := e.site.Hits("history")
	step(map[string]any{"action": "refresh"}, hit, "Hit history")
	if got := e.site.Hits("history"); got != loads+1 {
		t.Errorf("refresh: the page was loaded %d more times, want 1", got-loads)
	}
	if r := e.call("interact", map[string]any{"action": "forward", "wait_ms": 20000}); r.Status != "error" || !strings.Contains(r.Error, "no page to go forward to") {
		t.Errorf("forward at the end of the history: %s, want an error saying there is no page to go forward to", r)
	}

	step(map[string]any{"action": "new_tab", "url": e.site.URL + "/c"}, e.site.URL+"/c", "Page C")
	second := page.TabID
	if second == 0 || second == first {
		t.Fatalf("new_tab: tab %d, want a new tab beside %d", second, first)
	}
	tabs := e.foxTabs()
	if tabs[first].URL != hit || tabs[second].URL != e.site.URL+"/c" || !tabs[second].Mine {
		t.Errorf("observe tabs %+v, want tab %d on %s and the agent's new tab %d on /c", tabs, first, hit, second)
	}
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Page C" {
		t.Errorf("active tab after new_tab: title %q, want Page C", got)
	}
	if r := e.call("interact", map[string]any{"action": "back", "tab_id": second, "wait_ms": 20000}); r.Status != "error" || !strings.Contains(r.Error, "no page to go back to") {
		t.Errorf("back in a new tab: %s, want an error saying there is no page to go back to", r)
	}

	if sw := e.call("interact", map[string]any{"action": "switch_tab", "tab_id": first, "wait_ms": 20000}); sw.Status != "complete" {
		t.Fatalf("switch_tab: %s, want complete", sw)
	}
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Hit history" {
		t.Errorf("active tab after switch_tab: title %q, want Hit history", got)
	}
	if ct := e.call("interact", map[string]any{"action": "close_tab", "tab_id": second, "wait_ms": 20000}); ct.Status != "complete" {
		t.Fatalf("close_tab: %s, want complete", ct)
	}
	if _, open := e.foxTabs()[second]; open {
		t.Errorf("after close_tab observe tabs still lists tab %d", second)
	}
	ctxs, err := e.browser.BiDi.Tree(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ctxs {
		if c.URL == e.site.URL+"/c" {
			t.Errorf("after close_tab Firefox still has a tab on %s", c.URL)
		}
	}
	if gone := e.js("document.title", map[string]any{"tab_id": second}); gone.Status != "error" || !strings.Contains(gone.Error, "no tab with id") {
		t.Errorf("execute_js in the closed tab: %s, want status error naming the missing tab", gone)
	}
}

// TestFirefoxForm (TestHandsSignIn in Chrome): the agent reads the sign-in
// form's outline (analyze dom), fills by ref and by role, types, checks,
// selects one and several options, clicks, waits for the welcome text and
// reads it with get_text; query finds the form's buttons; a link click
// reports the navigation.
func TestFirefoxForm(t *testing.T) {
	e := foxReady(t)
	e.foxOpen("/hands/login.html")

	dom, _ := e.analyze("dom", nil)
	outline := dom["outline"].(string)
	for _, want := range []string{"\n # Sign in\n", `form 'Login'`, ` textbox 'Email' required`, ` button 'Sign in with Google' disabled`, `[Forgot password?](e`} {
		if !strings.Contains(outline, want) {
			t.Errorf("outline lacks %q:\n%s", want, outline)
		}
	}
	email := refIn(t, outline, "textbox", "Email")
	if r := e.ok("fill", map[string]any{"ref": email, "text": "ada@example"}); r["value"] != "ada@example" {
		t.Errorf("fill by ref: %v", r)
	}
	e.ok("type", map[string]any{"ref": email, "text": ".com"})
	e.ok("fill", map[string]any{"role": "textbox", "name": "Password", "text": "hunter22"})
	if r := e.ok("check", map[string]any{"text": "Remember me"}); r["checked"] != true || r["changed"] != true {
		t.Errorf("check by label text: %v", r)
	}
	e.ok("select", map[string]any{"role": "combobox", "name": "Country", "values": []string{"United Kingdom"}})
	if r := e.ok("select", map[string]any{"selector": "#langs", "values": []string{"en", "German"}}); fmt.Sprint(r["selected"]) != "[en de]" {
		t.Errorf("multiple select: %v", r)
	}
	q := e.ok("query", map[string]any{"role": "button", "name": "Sign in"})
	if q["count"] != float64(1) {
		t.Errorf("query button 'Sign in': %v, want exactly the one button", q)
	}
	e.ok("click", map[string]any{"role": "button", "name": "Sign in"})
	e.ok("wait_for", map[string]any{"text": "Welcome, ada"})
	if got, want := e.pageText("#welcome", nil), "Welcome, ada@example.com (password 8 chars, remember true, country uk, languages en,de)"; got != want {
		t.Errorf("after sign-in the page says %q, want %q", got, want)
	}

	nav := e.ok("click", map[string]any{"ref": refIn(t, outline, "link", "Forgot password?")})
	eff, _ := nav["effects"].(map[string]any)
	if eff == nil || eff["navigated"] != true || !strings.HasSuffix(fmt.Sprint(nav["url"]), "/hands/next.html") {
		t.Errorf("a link click: %v, want effects.navigated and the new url", nav)
	}
	e.fails("fill", map[string]any{"ref": email, "text": "x"}, "stale_ref")
}

// userClickNoWait clicks the middle of the element selector names in the
// browsing context as the user would (a trusted click, BiDi's
// input.performActions), without waiting for the page: a click that opens
// a native dialog returns only once it is answered.
func (e *foxEnv) userClickNoWait(context, selector string) {
	e.t.Helper()
	var box struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, selector)
	if err := e.browser.BiDi.Evaluate(e.ctx, context, expr, &box); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		ctx, cancel := context_.WithTimeout(e.ctx, 30*time.Second)
		defer cancel()
		e.browser.BiDi.Call(ctx, "input.performActions", map[string]any{
			"context": context,
			"actions": []map[string]any{{"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"}, "actions": []map[string]any{
				{"type": "pointerMove", "x": int(box.X), "y": int(box.Y)},
				{"type": "pointerDown", "button": 0},
				{"type": "pointerUp", "button": 0},
			}}},
		}, nil)
	}()
}

// TestFirefoxDialogs (TestHandsDialogArm, TestHandsNativeDialog in
// Chrome): the dialog action arms answers that the page's confirm and
// prompt get, listed in the click's effects; a native alert the user's own
// click opens makes the agent's actions fail at once with dialog_showing,
// and the dialog action's answer says what the agent can do about it.
func TestFirefoxDialogs(t *testing.T) {
	e := foxReady(t)
	e.foxOpen("/hands/dialogs.html")

	// The user's own click opens a native alert. The test's BiDi session
	// (session.new without unhandledPromptBehavior) closes it at once, as
	// the user would: the page goes on, and the agent's dialog action lists
	// it among the recent dialogs, answered by the user.
	tab := e.foxTab(e.site.URL + "/hands/dialogs.html")
	e.userClickNoWait(tab, "#hello")
	e.ok("wait_for", map[string]any{"text": "alert closed"})
	d := e.ok("dialog", map[string]any{"dialog": "dismiss"})
	if got := fmt.Sprint(d["recent"]); !strings.Contains(got, "answered:accepted by the user") || !strings.Contains(got, "message:Hello user") || !strings.Contains(got, "type:alert") {
		t.Errorf("dialog recent %s, want the alert the user closed", got)
	}
	e.act("navigate", map[string]any{"url": e.site.URL + "/hands/dialogs.html"})
	armed := e.ok("dialog", map[string]any{"dialog": "accept"})
	if armed["armed"] != "accept" || armed["frames"] != float64(1) {
		t.Errorf("dialog: got %v, want accept armed in the one frame", armed)
	}
	r := e.ok("click", map[string]any{"text": "Delete it"})
	eff, _ := r["effects"].(map[string]any)
	if got := fmt.Sprint(eff["dialogs"]); got != "[map[answered:accepted message:Delete it? type:confirm]]" {
		t.Errorf("click effects.dialogs %s, want the accepted confirm", got)
	}
	e.ok("dialog", map[string]any{"dialog": "accept", "text": "Ada"})
	e.ok("click", map[string]any{"text": "Name yourself"})
	r = e.ok("click", map[string]any{"text": "Delete it"}) // unarmed: dismissed, never shown
	eff, _ = r["effects"].(map[string]any)
	if got := fmt.Sprint(eff["dialogs"]); got != "[map[answered:dismissed message:Delete it? type:confirm]]" {
		t.Errorf("unarmed click effects.dialogs %s, want the dismissed confirm", got)
	}
	e.ok("dialog", map[string]any{"dialog": "accept"})
	e.ok("click", map[string]any{"text": "Ask later"})
	e.ok("wait_for", map[string]any{"text": "later true"})
	if log := e.pageText("#log", nil); log != "confirm true\nprompt Ada\nconfirm false\nlater true\n" {
		t.Errorf("the page logged %q", log)
	}

}

// TestFirefoxWebSocketAndHAR (TestWebSocketMessages, TestHARReplaysOffline
// in Chrome): a chat page the agent opened talks over a WebSocket, and
// observe lists the connection with its frames; a page with a script, a
// stylesheet and a JSON API call exports as a HAR whose entries hold the
// page's requests, the API's response body, and no secret.
func TestFirefoxWebSocketAndHAR(t *testing.T) {
	e := foxReady(t)
	chat := chatServer(t)
	e.call("interact", map[string]any{"action": "navigate", "url": chat.URL + "/chat.html", "wait_ms": 20000})
	if got := str(t, complete(t, e.js("fixtureDone.then(() => run())", nil))); got != "1000 bye" {
		t.Fatalf("the chat ended with %q, want the server's close 1000 bye", got)
	}
	var conn wsConn
	e.observeUntil(map[string]any{"what": "network", "type": "websocket"}, 20*time.Second, func(o observed) error {
		var list struct {
			Connections []wsConn `json:"connections"`
		}
		if err := json.Unmarshal([]byte(o.Raw), &list); err != nil {
			return err
		}
		if len(list.Connections) != 1 || list.Connections[0].State != "closed" {
			return fmt.Errorf("no closed connection listed: %s", o.Raw)
		}
		conn = list.Connections[0]
		return nil
	})
	wsURL := "ws://" + strings.TrimPrefix(chat.URL, "http://") + "/ws"
	if want := (wsConn{ID: conn.ID, URL: wsURL, State: "closed", Sent: 4, Received: 496, Dropped: 108, Code: 1000, Reason: "bye"}); conn != want {
		t.Errorf("connection: got %+v, want %+v", conn, want)
	}
	r := e.call("observe", map[string]any{"what": "network", "type": "websocket", "id": conn.ID, "since": 0, "limit": 6})
	var pg struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(r.Raw, &pg); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range pg.Entries {
		got = append(got, strings.TrimSpace(fmt.Sprint(en["type"], " ", en["direction"], " ", en["text"])))
	}
	if want := "connect <nil> <nil>|open <nil> <nil>|message sent hello|message received echo: hello|message sent how are you|message received echo: how are you"; strings.Join(got, "|") != want {
		t.Errorf("the connection's first events:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}

	site := harSite(t)
	pageURL := site.URL + "/har/page.html"
	e.call("interact", map[string]any{"action": "navigate", "url": pageURL, "wait_ms": 20000})
	e.ok("wait_for", map[string]any{"text": "blue kettle"})
	e.observeUntil(map[string]any{"what": "network", "url": "/har/"}, 20*time.Second, func(o observed) error {
		var api, css bool
		for _, en := range o.Entries {
			api = api || strings.Contains(en.str("url"), "/har/api/orders") && en.num("status") == 200 && en.num("response_body_chars") > 0
			css = css || strings.HasSuffix(en.str("url"), "/style.css")
		}
		if !api || !css {
			return fmt.Errorf("the API call with its body and the stylesheet are not captured yet")
		}
		return nil
	})
	var v harView
	if err := json.Unmarshal(e.call("observe", map[string]any{"what": "network", "format": "har", "url": "/har/"}).Raw, &v); err != nil {
		t.Fatal(err)
	}
	res, err := e.mcp.Session.ReadResource(e.ctx, &mcp.ReadResourceParams{URI: v.ResourceLink.URI})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %v %+v", v.ResourceLink.URI, err, res)
	}
	text := res.Contents[0].Text
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL     string `json:"url"`
					Headers []struct{ Name, Value string }
				} `json:"request"`
				Response struct {
					Status  int `json:"status"`
					Content struct{ Text, Comment string }
				} `json:"response"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("the HAR is not JSON: %v\n%.2000s", err, text)
	}
	seen := map[string]string{}
	for _, en := range doc.Log.Entries {
		u := en.Request.URL
		seen[u[strings.LastIndex(u, "/")+1:]] = en.Response.Content.Text
		for _, h := range en.Request.Headers {
			if strings.EqualFold(h.Name, "authorization") && h.Value != "[redacted]" {
				t.Errorf("%s: Authorization %q in the HAR, want [redacted]", u, h.Value)
			}
		}
	}
	for _, f := range []string{"page.html", "app.js", "style.css", "orders?status=open"} {
		if _, ok := seen[f]; !ok {
			t.Errorf("the HAR has no entry of %s: %v", f, seen)
		}
	}
	if body := seen["orders?status=open"]; !strings.Contains(body, "blue kettle") {
		t.Errorf("the API's response body in the HAR: %q, want the orders", body)
	}
	if strings.Contains(text, harCookie) || strings.Contains(text, "har-secret-token") {
		t.Errorf("the HAR holds the session cookie or the Authorization token")
	}
}

// TestFirefoxIframes (TestHandsInput's frame part, TestCaptureInIframe in
// Chrome): the agent clicks and reads in a same-origin iframe by frame and
// by the frame's ref from the outline, and what a page in an iframe logs
// (a password the agent filled there, redacted) reaches observe.
func TestFirefoxIframes(t *testing.T) {
	e := foxReady(t)
	e.foxOpen("/hands/widgets.html")
	e.ok("click", map[string]any{"text": "Accept cookies"})
	in := e.ok("click", map[string]any{"frame": "iframe[name=inner]", "role": "button", "name": "Inside frame"})
	frameRef, _ := in["target"].(map[string]any)["ref"].(string)
	if !strings.HasPrefix(frameRef, "f") {
		t.Errorf("a ref in a frame %q should name its frame", frameRef)
	}
	dom, _ := e.analyze("dom", nil)
	outline := dom["outline"].(string)
	if got := refIn(t, outline, "button", "Inside frame"); got != frameRef {
		t.Errorf("the outline's ref of the frame's button is %s, want %s (the click's):\n%s", got, frameRef, outline)
	}
	e.ok("click", map[string]any{"ref": frameRef})
	if got := e.pageText("#frame-log", map[string]any{"frame": "#frame"}); got != "inner clicked;inner clicked;" {
		t.Errorf("the frame logged %q", got)
	}
	if r := e.ok("fill", map[string]any{"ref": refIn(t, outline, "textbox", "Frame input"), "text": "framed"}); r["value"] != "framed" {
		t.Errorf("fill by the outline's ref in the frame: %v", r)
	}

	e.call("interact", map[string]any{"action": "navigate", "url": newCaptureSite(t).URL + "/capture/frames.html", "wait_ms": 20000})
	e.observeUntil(map[string]any{"what": "logs", "text": "frame loaded"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("the iframe's load-time log is not in yet")
		}
		return nil
	})
	e.ok("fill", map[string]any{"frame": "#f", "selector": "#pw", "text": fixturePassword})
	logs := e.observeUntil(map[string]any{"what": "logs", "text": "frame typed"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("the iframe's log of the filled password is not in yet")
		}
		return nil
	})
	if got := logs.Entries[0].str("message"); got != "frame typed [redacted]" {
		t.Errorf("the iframe's log: %q, want %q", got, "frame typed [redacted]")
	}
	if strings.Contains(logs.Raw, fixturePassword) {
		t.Errorf("the password filled in the iframe reached observe:\n%s", logs.Raw)
	}
}

// TestFirefoxAccessibility (TestAccessibility in Chrome): analyze
// accessibility finds the audit page's known violations in Firefox, each
// named by a ref a click reaches, and scope narrows it.
func TestFirefoxAccessibility(t *testing.T) {
	e := foxReady(t)
	e.foxOpen("/hands/audit.html")
	_, r := e.analyze("accessibility", nil)
	var v auditView
	if err := json.Unmarshal(r.Value, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.Value, err)
	}
	want := map[string]string{"image-alt": "logo", "label": "email", "color-contrast": "faint", "button-name": "icon"}
	found := map[string]string{}
	for _, rule := range v.Rules {
		if _, ok := want[rule.ID]; ok && rule.Count == 1 && len(rule.Elements) == 1 {
			found[rule.ID], _, _ = strings.Cut(rule.Elements[0], " ")
		}
	}
	for id, el := range want {
		if found[id] == "" {
			t.Errorf("rule %s (on #%s) not found with one element in %s", id, el, r.Value)
			continue
		}
		e.ok("click", map[string]any{"ref": found[id]})
		if got := str(t, complete(t, e.js("window.clicked.at(-1)", nil))); got != el {
			t.Errorf("rule %s: a click on %s reached #%s, want #%s", id, found[id], got, el)
		}
	}
	if got := e.js("typeof axe", nil); !strings.Contains(string(got.Value), `"value":"undefined"`) {
		t.Errorf("the page's own world sees axe: %s", got)
	}
	_, r = e.analyze("accessibility", map[string]any{"scope": "#fine"})
	if json.Unmarshal(r.Value, &v); v.Violations != 0 {
		t.Errorf("scope #fine: %s, want no violations", r.Value)
	}
}

// foxPerf is analyze performance's answer with what it says it cannot
// measure in this browser.
type foxPerf struct {
	perfResult
	Unmeasured []string `json:"unmeasured"`
}

// TestFirefoxPerf (TestPerfNamesTheCulprit in Chrome): a slow click the
// user made is the first cause with its breakdown and the button's ref;
// what Firefox does not measure (layout shifts, render-blocking status, long
// animation frames and tasks) is said in the result with the reason, on the
// pages whose culprit it hides, where the vitals it has are still given.
func TestFirefoxPerf(t *testing.T) {
	e := foxReady(t)
	analyze := func(want func(foxPerf) bool) (foxPerf, string) {
		var p foxPerf
		var text string
		for deadline := time.Now().Add(10 * time.Second); ; {
			_, r := e.analyze("performance", nil)
			text, p = r.Text, foxPerf{}
			if err := json.Unmarshal(r.Value, &p); err != nil {
				t.Fatalf("analyze performance: %s: %v", r.Value, err)
			}
			if want(p) || time.Now().After(deadline) {
				return p, text
			}
		}
	}
	says := func(p foxPerf, text string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(strings.Join(p.Unmeasured, "\n"), s) {
				t.Errorf("unmeasured lacks %q: %s", s, text)
			}
		}
	}

	e.foxOpen("/perf/click.html")
	tab := e.foxTab(e.site.URL + "/perf/click.html")
	e.userClickNoWait(tab, "#save")
	e.ok("wait_for", map[string]any{"text": "not saved", "gone": true})
	p, text := analyze(func(p foxPerf) bool { return len(p.Causes) > 0 && p.Causes[0].Kind == "interaction" })
	if len(p.Causes) == 0 || p.Causes[0].Kind != "interaction" || p.Causes[0].MS < 300 || p.Vitals.INP < 300 {
		t.Fatalf("first cause %+v, inp %v; want the click interaction of 300 ms or more: %s", p.Causes, p.Vitals.INP, text)
	}
	for _, sub := range []string{`click on e`, `button "Slow save"`, "input delay", "processing", "presentation"} {
		if !strings.Contains(p.Causes[0].What, sub) {
			t.Errorf("interaction cause lacks %q: %s", sub, p.Causes[0].What)
		}
	}
	if ref := perfRef.FindString(p.Causes[0].What); ref == "" {
		t.Errorf("no ref in %s", p.Causes[0].What)
	} else if got := e.ok("get_text", map[string]any{"ref": ref})["text"]; got != "Slow save" {
		t.Errorf("get_text of the cause's ref %s: %q, want the button's", ref, got)
	}
	says(p, text, "the scripts behind slow interactions: this browser reports neither long-animation-frame nor longtask entries")

	e.foxOpen("/perf/blocking.html")
	p, text = analyze(func(p foxPerf) bool { return p.Vitals.FCP > 0 })
	if p.Vitals.FCP < 1000 {
		t.Errorf("fcp_ms %v, want after the blocking script (1 200 ms): %s", p.Vitals.FCP, text)
	}
	says(p, text, "render-blocking resources: this browser gives resource timing no renderBlockingStatus")

	e.foxOpen("/perf/shift.html")
	p, text = analyze(func(p foxPerf) bool { return p.Vitals.LCP > 0 })
	says(p, text, "cls and layout shifts: this browser reports no layout-shift entries")
	if len(p.Causes) == 0 && !strings.Contains(text, "see unmeasured") {
		t.Errorf("a quiet answer that does not point at what was not measured: %s", text)
	}
	// The vitals the capture recorded say the same of CLS.
	vit := e.observe(map[string]any{"what": "vitals", "limit": 1})
	var note struct {
		Unmeasured string `json:"unmeasured"`
	}
	if json.Unmarshal([]byte(vit.Raw), &note); !strings.Contains(note.Unmeasured, "measures no CLS (it has no Layout Instability API)") {
		t.Errorf("observe vitals does not say CLS is not measured in Firefox: %s", vit.Raw)
	}
}

// TestFirefoxMoreActions runs the rest of the DOM actions in Firefox with
// the Chrome tests' own steps and checks (handsDrag, handsFillForm,
// handsClickAt, handsScrollBy, handsInput): drag with pointer events and
// HTML5 drag and drop, fill_form over every kind of field, click_at on a
// canvas, scroll_by in a virtualized list and the page, and the other
// inputs (shadow DOM, an iframe, keys with modifiers, contenteditable,
// double and right clicks, hover, scroll_to, wait_for, query).
func TestFirefoxMoreActions(t *testing.T) {
	e := foxReady(t)
	e.foxOpen("/hands/moves.html")
	handsDrag(t, e.env)
	handsFillForm(t, e.env)
	e.foxOpen("/hands/canvas.html")
	handsClickAt(t, e.env)
	e.foxOpen("/hands/rows.html")
	handsScrollBy(t, e.env)
	e.foxOpen("/hands/widgets.html")
	handsInput(t, e.env)
}

// TestFirefoxResize sizes Firefox's window so that the page's viewport is
// the size asked for (TestHandsResize in Chrome). Firefox draws no window
// narrower than 500 px, headless too, and headless it has no screen to
// bound a large one: whatever it gives, the result reports the viewport the
// page really got, with a note whenever that is not the size asked for.
func TestFirefoxResize(t *testing.T) {
	e := foxReady(t)
	e.foxOpen("/hands/moves.html")
	for _, size := range [][2]int{{1024, 700}, {640, 480}, {375, 667}, {3000, 3000}} {
		r := e.act("resize", map[string]any{"width": size[0], "height": size[1]})
		if r.Status == "error" {
			if !strings.Contains(r.Error, "screen") {
				t.Errorf("resize %v: %s, want complete or an error naming the screen", size, r)
			}
			continue
		}
		var got struct {
			Viewport struct{ Width, Height int } `json:"viewport"`
			Note     string                      `json:"note"`
		}
		if r.Status != "complete" || json.Unmarshal(r.Value, &got) != nil {
			t.Fatalf("resize %v: %s", size, r)
		}
		reported := fmt.Sprint(got.Viewport.Width, "x", got.Viewport.Height)
		if page := str(t, complete(t, e.js("innerWidth + 'x' + innerHeight", nil))); page != reported {
			t.Errorf("after resize %v the page's viewport is %s, the result said %s", size, page, reported)
		}
		if reported != fmt.Sprint(size[0], "x", size[1]) && !strings.Contains(got.Note, "cannot be sized") {
			t.Errorf("resize %v gave %s without a note saying so: %s", size, reported, r.Value)
		}
		if size[0] >= 500 && size[0] <= 1024 && reported != fmt.Sprint(size[0], "x", size[1]) {
			t.Errorf("resize %v gave %s", size, reported)
		}
	}
}
