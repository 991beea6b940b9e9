//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// act runs one interact action with args and waits inline for its result.
func (e *env) act(action string, args map[string]any) gasoline.Result {
	e.t.Helper()
	a := map[string]any{"action": action, "wait_ms": 20000}
	for k, v := range args {
		a[k] = v
	}
	r := e.call("interact", a)
	if r.Status == "queued" || r.Status == "pending" {
		r = e.await(r.CorrelationID, 30*time.Second)
	}
	return r
}

// ok runs an action that must complete and decodes its result into a map.
func (e *env) ok(action string, args map[string]any) map[string]any {
	e.t.Helper()
	r := e.act(action, args)
	if r.Status != "complete" {
		e.t.Fatalf("%s %v: status %q, want complete: %s", action, args, r.Status, r)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Value, &m); err != nil {
		e.t.Fatalf("%s: result %s: %v", action, r.Value, err)
	}
	return m
}

// fails runs an action that must fail with reason and returns its error text.
func (e *env) fails(action string, args map[string]any, reason string) string {
	e.t.Helper()
	r := e.act(action, args)
	if r.Status != "error" || !strings.HasPrefix(r.Error, reason+": ") {
		e.t.Fatalf("%s %v: status %q error %q, want an error starting %q: %s", action, args, r.Status, r.Error, reason+": ", r)
	}
	return r.Error
}

// analyze runs analyze what with args and returns the complete result.
func (e *env) analyze(what string, args map[string]any) (map[string]any, gasoline.Result) {
	e.t.Helper()
	a := map[string]any{"what": what, "wait_ms": 20000}
	for k, v := range args {
		a[k] = v
	}
	r := e.call("analyze", a)
	if r.Status != "complete" {
		e.t.Fatalf("analyze %s: status %q, want complete: %s", what, r.Status, r)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Value, &m); err != nil {
		e.t.Fatalf("analyze %s: result %s: %v", what, r.Value, err)
	}
	return m, r
}

// open opens path of the test site in a new tab, which becomes the active
// tab the actions default to. (navigate would default to the tab in front,
// which right after pairing can still be the popup being closed.)
func (e *env) open(path string) {
	e.t.Helper()
	r := e.act("new_tab", map[string]any{"url": e.site.URL + path})
	if r.Status != "complete" {
		e.t.Fatalf("new_tab %s: %s", path, r)
	}
}

// pageText is the visible text of the element selector names.
func (e *env) pageText(selector string, extra map[string]any) string {
	e.t.Helper()
	args := map[string]any{"selector": selector}
	for k, v := range extra {
		args[k] = v
	}
	return e.ok("get_text", args)["text"].(string)
}

// refIn returns the ref of the outline's element with role and name: a
// link "[name](ref)", anything else "ref role 'name'".
func refIn(t *testing.T, outline, role, name string) string {
	t.Helper()
	re := `(?m)^ *((?:f\d+)?e\d+) ` + regexp.QuoteMeta(role+` '`+name+`'`)
	if role == "link" {
		re = regexp.QuoteMeta(`[`+name+`](`) + `((?:f\d+)?e\d+)\b`
	}
	m := regexp.MustCompile(re).FindStringSubmatch(outline)
	if m == nil {
		t.Fatalf("no %s %q with a ref in the outline:\n%s", role, name, outline)
	}
	return m[1]
}

// TestHandsSignIn signs in on a plain form through refs from analyze dom,
// as an agent would: fill, check, select (single and multiple), click,
// wait_for the welcome text, read it back; then a link click reports the
// navigation and the old refs are stale.
func TestHandsSignIn(t *testing.T) {
	e := ready(t)
	e.open("/hands/login.html")

	dom, _ := e.analyze("dom", nil)
	outline := dom["outline"].(string)
	for _, want := range []string{"\n # Sign in\n", `form 'Login'`, ` textbox 'Email' required`, ` button 'Sign in with Google' disabled`, `[Forgot password?](e`} {
		if !strings.Contains(outline, want) {
			t.Errorf("outline lacks %q:\n%s", want, outline)
		}
	}
	if dom["omitted"] != nil || dom["tokens"].(float64) > 400 {
		t.Errorf("a small page's outline: tokens %v omitted %v, want all of it in few tokens", dom["tokens"], dom["omitted"])
	}
	email := refIn(t, outline, "textbox", "Email")

	r := e.ok("fill", map[string]any{"ref": email, "text": "ada@example.com"})
	if r["value"] != "ada@example.com" {
		t.Errorf("fill by ref: %v", r)
	}
	e.ok("fill", map[string]any{"role": "textbox", "name": "Password", "text": "hunter22"})
	if r := e.ok("check", map[string]any{"text": "Remember me"}); r["checked"] != true || r["changed"] != true {
		t.Errorf("check by label text: %v", r)
	}
	if r := e.ok("check", map[string]any{"text": "Remember me"}); r["changed"] != false {
		t.Errorf("check again: %v, want changed false", r)
	}
	e.ok("select", map[string]any{"role": "combobox", "name": "Country", "values": []string{"United Kingdom"}})
	if r := e.ok("select", map[string]any{"selector": "#langs", "values": []string{"en", "German"}}); fmt.Sprint(r["selected"]) != "[en de]" {
		t.Errorf("multiple select: %v", r)
	}
	msg := e.fails("select", map[string]any{"selector": "#country", "values": []string{"Atlantis"}}, "bad_option")
	if !strings.Contains(msg, `"France"`) {
		t.Errorf("a missing option should list the options: %s", msg)
	}
	e.ok("click", map[string]any{"role": "button", "name": "Sign in"}) // exact name wins over "Sign in with Google"
	w := e.ok("wait_for", map[string]any{"text": "Welcome, ada"})
	if w["waited_ms"] == nil {
		t.Errorf("wait_for: %v", w)
	}
	got := e.pageText("#welcome", nil)
	if want := "Welcome, ada@example.com (password 8 chars, remember true, country uk, languages en,de)"; got != want {
		t.Errorf("after sign-in the page says %q, want %q", got, want)
	}

	sum, sr := e.analyze("page_summary", nil)
	if tokens := len(sr.Raw) / 4; tokens > 1000 {
		t.Errorf("page_summary is ~%d tokens, want under 1000: %s", tokens, sr.Raw)
	}
	if !strings.Contains(fmt.Sprint(sum["forms"]), "Email") || sum["title"] != "Sign in" || !strings.Contains(fmt.Sprint(sum["headings"]), "Sign in") {
		t.Errorf("page_summary: %s", sr.Raw)
	}

	link := refIn(t, outline, "link", "Forgot password?")
	nav := e.ok("click", map[string]any{"ref": link})
	eff, _ := nav["effects"].(map[string]any)
	if eff == nil || eff["navigated"] != true || !strings.HasSuffix(nav["url"].(string), "/hands/next.html") {
		t.Errorf("a link click: %v, want effects.navigated and the new url", nav)
	}
	e.fails("fill", map[string]any{"ref": email, "text": "x"}, "stale_ref")
}

// TestHandsReact drives a React 18 app whose inputs are all controlled:
// the state only changes when React sees the events, so the text the app
// renders proves fill, type, select, check, click and key_press reached it.
func TestHandsReact(t *testing.T) {
	e := ready(t)
	e.open("/react/index.html")
	e.ok("wait_for", map[string]any{"role": "heading", "name": "Create your account"})

	e.ok("fill", map[string]any{"role": "textbox", "name": "Name", "text": "Ada"})
	if got := e.pageText("#greeting", nil); got != "Hello, Ada!" {
		t.Errorf("after fill the app greets %q, want %q", got, "Hello, Ada!")
	}
	e.ok("fill", map[string]any{"role": "textbox", "name": "Name", "text": "Grace"})
	if got := e.pageText("#greeting", nil); got != "Hello, Grace!" {
		t.Errorf("fill replaces: the app greets %q", got)
	}
	e.ok("type", map[string]any{"role": "textbox", "name": "Email", "text": "g@x.io"})
	e.ok("select", map[string]any{"role": "combobox", "name": "Plan", "values": []string{"Team"}})
	if got := e.pageText("#plan", nil); got != "Plan: team" {
		t.Errorf("after select: %q", got)
	}
	e.fails("click", map[string]any{"role": "button", "name": "Create account", "timeout_ms": 5000}, "disabled")
	e.ok("check", map[string]any{"role": "checkbox", "name": "terms"})
	e.ok("click", map[string]any{"text": "Clicked 0 times"})
	e.ok("click", map[string]any{"role": "button", "name": "Clicked 1 times", "click_count": 2})
	e.ok("key_press", map[string]any{"role": "textbox", "name": "Email", "key": "Enter"})
	e.ok("wait_for", map[string]any{"role": "status"})
	body := e.ok("get_text", nil)["text"].(string)
	for _, want := range []string{`Clicked 3 times`, `Keys: g @ x . i o Enter`, `Submitted {"name":"Grace","email":"g@x.io","plan":"team","terms":true}`} {
		if !strings.Contains(body, want) {
			t.Errorf("the app shows no %q:\n%s", want, body)
		}
	}
}

// TestHandsFailures shows every failure kind with its reason and what to
// do next, and the auto-wait that avoids them: a covered button, a hidden
// one, an ambiguous name, a missing element, a disabled button, an element
// removed while waited for, a ref to a removed element; a slow element and
// a late-enabled button are waited for and clicked.
func TestHandsFailures(t *testing.T) {
	e := ready(t)
	e.open("/hands/widgets.html")
	short := func(args map[string]any) map[string]any {
		args["timeout_ms"] = 5000 // far above a busy machine's delays, still short of the default
		return args
	}

	if msg := e.fails("click", short(map[string]any{"selector": "#covered"}), "covered"); !strings.Contains(msg, "div#banner.cookie-banner") {
		t.Errorf("covered should name what is on top: %s", msg)
	}
	e.fails("click", short(map[string]any{"selector": "#ghost"}), "not_visible")
	msg := e.fails("click", map[string]any{"role": "button", "name": "Delete"}, "ambiguous")
	if strings.Count(msg, `button "Delete"`) != 3 {
		t.Errorf("ambiguous should list the 3 candidates with ref, role and name: %s", msg)
	}
	cand := regexp.MustCompile(`\n  (e\d+) button "Delete"`).FindAllStringSubmatch(msg, -1)
	e.fails("click", short(map[string]any{"text": "No such thing"}), "not_found")
	e.fails("click", short(map[string]any{"text": "Enabled later"}), "disabled")

	e.ok("click", map[string]any{"text": "Accept cookies"})
	e.ok("click", map[string]any{"selector": "#covered"})
	e.ok("click", map[string]any{"ref": cand[1][1]})
	e.ok("click", map[string]any{"text": "Start timers"})
	e.doomWhileWaiting()
	e.ok("click", map[string]any{"text": "Slow button"})   // appears at 700 ms
	e.ok("click", map[string]any{"text": "Enabled later"}) // enabled at 700 ms
	vanish := e.ok("query", map[string]any{"text": "Vanish"})
	ref := vanish["elements"].([]any)[0].(map[string]any)["ref"].(string)
	e.ok("click", map[string]any{"ref": ref})
	e.fails("click", map[string]any{"ref": ref}, "stale_ref")
	bad, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "click", "ref": "e1", "selector": "#x"})
	if err != nil || !bad.IsError || bad.ToolError == nil || bad.ToolError.Code != "invalid_arguments" {
		t.Errorf("two targets at once: %s (%v), want an invalid_arguments tool error", bad, err)
	}

	log := e.pageText("#log", nil)
	want := "covered clicked\ndelete Beta\ntimers started\nslow clicked\nlater clicked\nvanished\n"
	if log != want {
		t.Errorf("the page logged %q, want %q", log, want)
	}
}

// doomWhileWaiting clicks the disabled Doomed button and removes it while
// the click waits for it to be enabled: the click fails detached. The test
// removes it through CDP once command_result says the click waits for the
// button to be enabled (the page's runtime found it); a page timer would
// race a busy machine's scheduling and make it not_found.
func (e *env) doomWhileWaiting() {
	e.t.Helper()
	q := e.call("interact", map[string]any{"action": "click", "text": "Doomed", "timeout_ms": 60000})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := e.call("observe", map[string]any{"what": "command_result", "correlation_id": q.CorrelationID})
		if r.Phase == "running" && strings.HasPrefix(r.Waiting, "disabled: ") && strings.Contains(r.Waiting, "Doomed") {
			break
		}
		if r.Status != "pending" || time.Now().After(deadline) {
			e.t.Fatalf("the Doomed click never said it waits for the button to be enabled: %s", r)
		}
	}
	if err := e.pageSession(e.site.URL+"/hands/widgets.html").Evaluate(e.ctx, "doom()", nil); err != nil {
		e.t.Fatal(err)
	}
	if r := e.await(q.CorrelationID, 90*time.Second); r.Status != "error" || !strings.HasPrefix(r.Error, "detached: ") {
		e.t.Fatalf("click on Doomed removed while disabled: %s, want detached", r)
	}
}

// TestHandsInput covers the other inputs: shadow DOM, an iframe by frame
// and by ref, keys with modifiers, typing and deleting, contenteditable,
// double and right clicks, hover, scrolling to a far element, wait_for
// states and url, and query's fields.
func TestHandsInput(t *testing.T) {
	e := ready(t)
	e.open("/hands/widgets.html")
	handsInput(t, e)
}

// handsInput is TestHandsInput's part after the page is open, in either browser.
func handsInput(t *testing.T, e *env) {
	t.Helper()
	e.ok("click", map[string]any{"text": "Accept cookies"})

	e.ok("click", map[string]any{"role": "button", "name": "Shadow click"})
	in := e.ok("click", map[string]any{"frame": "iframe[name=inner]", "role": "button", "name": "Inside frame"})
	frameRef := in["target"].(map[string]any)["ref"].(string)
	if !strings.HasPrefix(frameRef, "f") {
		t.Errorf("a ref in a frame %q should name its frame", frameRef)
	}
	e.ok("click", map[string]any{"ref": frameRef})
	if got := e.pageText("#frame-log", map[string]any{"frame": "#frame"}); got != "inner clicked;inner clicked;" {
		t.Errorf("the frame logged %q", got)
	}
	// The outline reads the iframe's document in under its line, with the
	// frame's refs, the same ones query gave.
	for _, only := range []bool{false, true} {
		dom, _ := e.analyze("dom", map[string]any{"interactive_only": only})
		outline := dom["outline"].(string)
		if got := refIn(t, outline, "button", "Inside frame"); got != frameRef {
			t.Errorf("interactive_only %v: the outline's ref of the frame's button is %s, want %s (query's):\n%s", only, got, frameRef, outline)
		}
		if !regexp.MustCompile(`(?m)^iframe 'Inner frame' /hands/frame.html\n f\d+e\d+ button 'Inside frame'$`).MatchString(outline) {
			t.Errorf("interactive_only %v: the frame's elements should be indented under its iframe line:\n%s", only, outline)
		}
		refs := regexp.MustCompile(`(?m)\]\((?:f\d+)?e\d+[ )]|(?:^|[ |])(?:f\d+)?e\d+ [a-z]+\b`).FindAllString(outline, -1)
		if dom["interactive"] != float64(len(refs)) || len(refs) != 18 {
			t.Errorf("interactive_only %v: %v interactive elements, %d refs; want 18 each (16 in the page, 2 in its iframe):\n%s", only, dom["interactive"], len(refs), outline)
		}
		if only {
			in := refIn(t, outline, "textbox", "Frame input")
			if r := e.ok("fill", map[string]any{"ref": in, "text": "framed"}); r["value"] != "framed" {
				t.Errorf("fill by the outline's ref in the frame: %v", r)
			}
		}
	}
	if r := e.ok("type", map[string]any{"selector": "#keys", "text": "Hi!"}); r["value"] != "Hi!" || r["value_differs"] != nil {
		t.Errorf("type's result: %v, want value Hi!", r)
	}
	e.ok("key_press", map[string]any{"key": "Backspace"})
	e.ok("key_press", map[string]any{"selector": "#keys", "key": "a", "modifiers": []string{"Control"}})
	e.ok("fill", map[string]any{"role": "textbox", "name": "Editor", "text": "rich text"})
	e.ok("click", map[string]any{"selector": "#dbl", "click_count": 2})
	e.ok("click", map[string]any{"selector": "#dbl", "button": "right", "modifiers": []string{"Shift"}})
	e.ok("hover", map[string]any{"text": "Hover me"})
	e.ok("wait_for", map[string]any{"text": "Tooltip shown"})
	far := e.ok("scroll_to", map[string]any{"text": "Far below"})
	if box := far["box"].(map[string]any); box["y"].(float64) > 2000 {
		t.Errorf("scroll_to left the element at %v", box)
	}
	e.ok("click", map[string]any{"text": "Far below"})
	e.ok("wait_for", map[string]any{"selector": "#ghost", "gone": true})

	e.ok("wait_for", map[string]any{"url": "*/hands/widgets.html"})
	e.fails("wait_for", map[string]any{"selector": "#never", "timeout_ms": 1500}, "timeout")

	q := e.ok("query", map[string]any{"role": "button", "name": "Delete", "limit": 2})
	els := q["elements"].([]any)
	if q["count"] != 3.0 || len(els) != 2 {
		t.Fatalf("query: %v, want count 3 and 2 elements", q)
	}
	first := els[0].(map[string]any)
	if first["role"] != "button" || first["name"] != "Delete" || first["visible"] != true || first["box"] == nil || first["ref"] == nil {
		t.Errorf("query element %v, want ref, role, name, visible, box", first)
	}

	log := e.pageText("#log", nil)
	for _, want := range []string{"shadow clicked", "keydown H KeyH", "input Hi!", "keydown Backspace Backspace\ninput Hi\n",
		"keydown a KeyA ctrl", "editor rich text", "click detail 1\nmousedown button 0\nclick detail 2\ndblclick",
		"mousedown button 2 shift\ncontextmenu", "hover entered", "far clicked"} {
		if !strings.Contains(log, want) {
			t.Errorf("the page log lacks %q:\n%s", want, log)
		}
	}
}

// TestHandsOutlineBudget outlines a page far over the budget: the answer
// stops at max_tokens on a line boundary, says what it left out, and the
// rest is readable by slice from the same correlation id.
func TestHandsOutlineBudget(t *testing.T) {
	e := ready(t)
	e.open("/hands/big.html")
	dom, r := e.analyze("dom", map[string]any{"max_tokens": 500})
	outline := dom["outline"].(string)
	if len(outline) > 2000 || dom["omitted"] == nil || dom["interactive"] != 600.0 {
		t.Fatalf("outline of 600 links at 500 tokens: %d chars, omitted %v, interactive %v", len(outline), dom["omitted"], dom["interactive"])
	}
	var view struct {
		Message string `json:"message"`
	}
	json.Unmarshal(r.Raw, &view)
	if !strings.Contains(view.Message, `mode:"slice"`) {
		t.Errorf("the answer should say how to read on: %s", view.Message)
	}
	s := e.call("observe", map[string]any{"what": "command_result", "correlation_id": r.CorrelationID, "mode": "slice", "anchor": "Item 599", "window": 200})
	if !strings.Contains(s.String(), `[Item 599](e600) some words about item 599`) {
		t.Errorf("slice of the whole outline: %s", s)
	}
	io, _ := e.analyze("dom", map[string]any{"interactive_only": true, "scope": "#list", "max_tokens": 9000})
	if !strings.HasPrefix(io["outline"].(string), "[Item 0](e1)\n[Item 1](e2)\n") || strings.Count(io["outline"].(string), "\n") != 599 || io["omitted"] != nil {
		t.Errorf("scoped interactive outline: %.300s", io["outline"])
	}
}

// shot takes a screenshot with args and returns the decoded image and the
// result's object; it fails unless the result is one image block beside
// the JSON text.
func (e *env) shot(args map[string]any) (image.Image, map[string]any, int) {
	e.t.Helper()
	a := map[string]any{"action": "screenshot", "wait_ms": 20000}
	for k, v := range args {
		a[k] = v
	}
	res, err := e.mcp.Session.CallTool(e.ctx, &mcp.CallToolParams{Name: "interact", Arguments: a})
	if err != nil || res.IsError || len(res.Content) != 2 {
		e.t.Fatalf("screenshot %v: %v %+v, want a text and an image block", args, err, res)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/jpeg" {
		e.t.Fatalf("screenshot %v: second block %#v, want a JPEG image", args, res.Content[1])
	}
	decoded, err := jpeg.Decode(bytes.NewReader(img.Data))
	if err != nil {
		e.t.Fatalf("screenshot %v: decoding the JPEG: %v", args, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var v struct {
		Status string         `json:"status"`
		Result map[string]any `json:"result"`
	}
	json.Unmarshal(raw, &v)
	if v.Status != "complete" || strings.Contains(string(raw), `"value"`) {
		e.t.Fatalf("screenshot %v: %s, want complete and no base64 in the object", args, raw)
	}
	return decoded, v.Result, len(raw) / 4
}

// TestHandsScreenshot takes the viewport, a downscaled viewport, one
// element and the full page, decodes each JPEG and checks its size; the
// JSON beside the image stays small.
func TestHandsScreenshot(t *testing.T) {
	e := ready(t)
	e.open("/hands/widgets.html")
	e.ok("click", map[string]any{"text": "Accept cookies"})

	view, r, tokens := e.shot(nil)
	b := view.Bounds()
	if b.Dx() < 300 || b.Dy() < 200 || b.Dx()*b.Dy() > 1_200_000 || float64(b.Dx()) != r["width"] {
		t.Errorf("viewport: %v, result %v", b, r)
	}
	if tokens > 200 {
		t.Errorf("the JSON beside the image is ~%d tokens", tokens)
	}
	small, _, _ := e.shot(map[string]any{"max_dim": 200})
	if s := small.Bounds(); max(s.Dx(), s.Dy()) != 200 {
		t.Errorf("max_dim 200: %v", s)
	}
	el, r, _ := e.shot(map[string]any{"role": "button", "name": "Double"})
	if s := el.Bounds(); s.Dx() > 200 || s.Dy() > 60 || s.Dx() < 20 {
		t.Errorf("element: %v (%v), want about the button's size", s, r)
	}
	page, r, _ := e.shot(map[string]any{"full_page": true})
	if s := page.Bounds(); s.Dy() <= s.Dx() || max(s.Dx(), s.Dy()) > 1568 {
		t.Errorf("full page: %v, want taller than wide (the page is 3000 px tall) and downscaled (%v)", s, r)
	}
	if cap, _ := r["captured"].(string); !strings.HasSuffix(cap, "x3") && len(cap) < 8 {
		t.Errorf("full page captured %q, want the full height", cap)
	}
}

// TestHandsDialogs clicks a button that opens confirm(): it never shows (it
// would block the page), is dismissed by default and accepted with
// dialog:"accept", and the click's effects list it.
func TestHandsDialogs(t *testing.T) {
	e := ready(t)
	e.open("/hands/widgets.html")
	e.ok("click", map[string]any{"text": "Accept cookies"})

	r := e.ok("click", map[string]any{"text": "Confirm something"})
	eff, _ := r["effects"].(map[string]any)
	if got := fmt.Sprint(eff["dialogs"]); got != "[map[answered:dismissed message:Really? type:confirm]]" {
		t.Errorf("effects.dialogs %s, want the dismissed confirm", got)
	}
	e.ok("click", map[string]any{"text": "Confirm something", "dialog": "accept"})
	if log := e.pageText("#log", nil); log != "confirm answered false\nconfirm answered true\n" {
		t.Errorf("the page logged %q", log)
	}
}

// TestHandsEffects clicks a button whose handler throws and fetches a
// missing URL: the click's effects, read again once the capture batch has
// reached the daemon, count the error and the failed request; wait_for
// network_idle then returns.
func TestHandsEffects(t *testing.T) {
	e := ready(t)
	e.open("/hands/widgets.html")
	e.ok("click", map[string]any{"text": "Accept cookies"})
	r := e.act("click", map[string]any{"text": "Break something"})
	if r.Status != "complete" {
		t.Fatalf("click: %s", r)
	}
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got = e.call("observe", map[string]any{"what": "command_result", "correlation_id": r.CorrelationID}).String()
		if strings.Contains(got, `"failed_requests"`) && strings.Contains(got, `"errors"`) {
			break
		}
	}
	for _, want := range []string{`broken on purpose`, `GET `, `/hands/missing-on-purpose → 404`} {
		if !strings.Contains(got, want) {
			t.Errorf("the click's effects lack %q: %s", want, got)
		}
	}
	e.ok("wait_for", map[string]any{"network_idle": true})
}
