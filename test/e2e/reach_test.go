//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// answeredWithin is how long a command on a normal page may take here: far
// below the 10 s default deadline that a missing content script used to run
// into, far above a busy machine's scheduling delays.
const answeredWithin = 4 * time.Second

// timed calls interact with args (waiting inline up to 20 s) and returns
// the result and how long the call took.
func (e *env) timed(args map[string]any) (gasoline.Result, time.Duration) {
	e.t.Helper()
	args["wait_ms"] = 20000
	start := time.Now()
	r := e.call("interact", args)
	return r, time.Since(start)
}

// TestReachTabOpenedBefore: a tab opened while the extension was off (as
// before an install) is known to observe page, gets execute_js (saying its
// built-ins are the page's) and a click answered well inside the deadline,
// and is captured, once the extension is on.
func TestReachTabOpenedBefore(t *testing.T) {
	e := ready(t)
	if err := chromium.SetEnabled(e.ctx, e.cdp, false); err != nil {
		t.Fatal(err)
	}
	url := e.site.URL + "/hands/reach.html"
	p := e.openPage(url)
	if err := chromium.SetEnabled(e.ctx, e.cdp, true); err != nil {
		t.Fatal(err)
	}
	e.waitConnected(true, 15*time.Second)

	// The worker reports the tabs it brought its scripts into.
	var page gasoline.Result
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if page, err = e.mcp.Call(e.ctx, "observe", map[string]any{"what": "page"}); err != nil {
			t.Fatal(err)
		}
		if !page.IsError && strings.Contains(string(page.Raw), url) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("observe page does not show %s after 10 s: %s", url, page)
		}
	}

	r, took := e.timed(map[string]any{"action": "execute_js", "script": "document.title"})
	js := complete(t, r)
	if got := str(t, js); got != "Reach" || took > answeredWithin {
		t.Errorf("execute_js took %v and read %q, want \"Reach\" within %v: %s", took, got, answeredWithin, r)
	}
	// pristine.js came after the page's scripts: the result says so.
	if js.Builtins != "page" || !strings.Contains(js.Hint, "reload the tab") {
		t.Errorf("execute_js in a tab opened before the extension: builtins %q, hint %q; want page and a hint to reload", js.Builtins, js.Hint)
	}
	r, took = e.timed(map[string]any{"action": "click", "selector": "#go"})
	if r.Status != "complete" || took > answeredWithin {
		t.Errorf("click took %v, want complete within %v: %s", took, answeredWithin, r)
	}
	var count string
	p.eval(`document.getElementById("count").textContent`, &count)
	if count != "1" {
		t.Errorf("after one click the count is %q, want 1", count)
	}
	// The capture scripts came too: the click's console.log is captured.
	e.observeUntil(map[string]any{"what": "logs"}, 10*time.Second, func(o observed) error {
		if !strings.Contains(o.Raw, "reach clicked") {
			return errors.New("the click's console.log is not captured yet")
		}
		return nil
	})
	// And the recorder with the engine, once: the user's click is recorded
	// one time, with the engine's locator (the Escape after it is recorded
	// after any second record of the click: one frame's records keep order).
	p.click("#go")
	p.press("Escape")
	o := e.observeUntil(map[string]any{"what": "actions", "tabs": "all"}, 10*time.Second, func(o observed) error {
		if len(where(o.Entries, func(a ev) bool { return a.str("key") == "Escape" })) == 0 {
			return errors.New("the user's click and Escape are not recorded yet")
		}
		return nil
	})
	clicks := where(o.Entries, func(a ev) bool { return a.str("type") == "click" })
	if loc, _ := clicks[0]["locator"].(map[string]any); len(clicks) != 1 || fmt.Sprintf("%v %v %v", loc["by"], loc["role"], loc["name"]) != "role button Count" {
		t.Errorf("the user's click in the reached tab is recorded as %v, want once with the engine's locator (role button Count)", clicks)
	}
}

// TestReachLaunchTab: the tab Chrome opens at launch, before the extension
// has loaded, is listed by observe tabs once paired, and answers execute_js
// well inside the deadline: with its title,
// or (headless Chromium leaves such a tab showing its URL without a
// document) at once with an error that says to navigate or refresh it;
// navigated, it reads its title.
func TestReachLaunchTab(t *testing.T) {
	e := newEnv(t)
	b, err := chromium.Start(e.ctx, chromium.Options{
		Bin: chromiumBin, UserDataDir: e.profile, ExtensionDir: extensionDir, LaunchURL: e.site.URL + "/c", LogPath: e.chromeLog(),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.browser = b
	if e.cdp, err = cdp.Dial(e.ctx, b.WebSocketURL); err != nil {
		t.Fatal(err)
	}
	if _, err := chromium.WaitForWorker(e.ctx, e.cdp, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	e.pair()

	// Pairing reports the tabs already open to the daemon.
	var tabs gasoline.Result
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tabs = e.call("observe", map[string]any{"what": "tabs"})
		var v struct {
			Total int `json:"total"`
		}
		if json.Unmarshal(tabs.Raw, &v) == nil && v.Total > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("observe tabs after pairing lists no tab after 10 s: %s", tabs)
		}
	}

	r, took := e.timed(map[string]any{"action": "execute_js", "script": "document.title"})
	if took > answeredWithin {
		t.Errorf("execute_js on the launch tab took %v, want under %v: %s", took, answeredWithin, r)
	}
	if r.Status != "complete" {
		if !strings.Contains(r.Error, `"navigate"`) || !strings.Contains(r.Error, `"refresh"`) {
			t.Fatalf("execute_js on the launch tab: %s, want its title or an error that says to navigate or refresh it", r)
		}
		r, took = e.timed(map[string]any{"action": "navigate", "url": e.site.URL + "/c"})
		if r.Status != "complete" || took > answeredWithin {
			t.Fatalf("navigate of the launch tab took %v: %s", took, r)
		}
		r, took = e.timed(map[string]any{"action": "execute_js", "script": "document.title"})
	}
	if got := str(t, complete(t, r)); got != "Page C" || took > answeredWithin {
		t.Errorf("execute_js on the launch tab took %v and read %q, want \"Page C\" within %v", took, got, answeredWithin)
	}
}

// TestHungTab: a script in an endless loop fails with tab_unresponsive
// before its deadline, with a hint naming refresh and close_tab; the next
// command to the tab fails at once with the same reason; refresh recovers
// the tab, and so does close_tab.
func TestHungTab(t *testing.T) {
	e := ready(t)
	for _, fix := range []string{"refresh", "close_tab"} {
		r, _ := e.timed(map[string]any{"action": "new_tab", "url": e.site.URL + "/b"})
		tab := complete(t, r).TabID
		r, took := e.timed(map[string]any{"action": "execute_js", "script": "for (;;) {}", "timeout_ms": 5000, "tab_id": tab})
		if r.Status != "error" || r.Reason != "tab_unresponsive" || took > 5*time.Second {
			t.Fatalf("%s: an endless loop took %v and gave %s, want error tab_unresponsive before its 5 s deadline", fix, took, r)
		}
		hint := hintOf(t, r)
		if !strings.Contains(hint, `"refresh"`) || !strings.Contains(hint, `"close_tab"`) {
			t.Errorf("%s: the hint %q does not name refresh and close_tab", fix, hint)
		}
		r, took = e.timed(map[string]any{"action": "execute_js", "script": "document.title", "tab_id": tab})
		if r.Reason != "tab_unresponsive" || took > 2*time.Second {
			t.Errorf("%s: the next command took %v and gave %s, want tab_unresponsive at once", fix, took, r)
		}
		r, took = e.timed(map[string]any{"action": "click", "selector": "h1", "tab_id": tab})
		if r.Reason != "tab_unresponsive" || took > 2*time.Second {
			t.Errorf("%s: a click took %v and gave %s, want tab_unresponsive at once", fix, took, r)
		}

		r, took = e.timed(map[string]any{"action": fix, "tab_id": tab})
		if r.Status != "complete" || took > answeredWithin {
			t.Fatalf("%s of the frozen tab took %v: %s, want complete within %v", fix, took, r, answeredWithin)
		}
		// After close_tab the agent's commands go to another of its tabs.
		args := map[string]any{"action": "execute_js", "script": "document.title"}
		if fix == "refresh" {
			args["tab_id"] = complete(t, r).TabID // Chrome may give the recovered tab a new id
		}
		r, took = e.timed(args)
		if got := str(t, complete(t, r)); (got != "Page A" && got != "Page B") || took > answeredWithin {
			t.Errorf("after %s: execute_js took %v and read %q, want a page's title", fix, took, got)
		}
	}
}

// TestReasonHints: an element action's failure carries its own reason and
// hint (not the script hint of execute_js): not_found, disabled, stale_ref.
func TestReasonHints(t *testing.T) {
	e := ready(t)
	e.call("interact", map[string]any{"action": "navigate", "url": e.site.URL + "/hands/reach.html", "wait_ms": 20000})
	q := e.call("interact", map[string]any{"action": "query", "selector": "#go", "wait_ms": 20000})
	ref := refOf(t, q)
	seen := map[string]string{}
	for _, tc := range []struct {
		reason string
		args   map[string]any
		before func()
	}{
		{"not_found", map[string]any{"action": "click", "selector": "#nope", "timeout_ms": 3000}, nil},
		{"disabled", map[string]any{"action": "click", "selector": "#off", "timeout_ms": 3000}, nil},
		{"stale_ref", map[string]any{"action": "click", "ref": ref, "timeout_ms": 3000}, func() {
			e.call("interact", map[string]any{"action": "refresh", "wait_ms": 20000})
		}},
	} {
		if tc.before != nil {
			tc.before()
		}
		r, _ := e.timed(tc.args)
		hint := hintOf(t, r)
		if r.Status != "error" || r.Reason != tc.reason {
			t.Errorf("%v: %s, want error with reason %s", tc.args, r, tc.reason)
		}
		if hint == "" || strings.Contains(hint, "script") {
			t.Errorf("%s: hint %q, want one of its own that is not about a script", tc.reason, hint)
		}
		for other, h := range seen {
			if h == hint {
				t.Errorf("%s and %s share the hint %q", tc.reason, other, hint)
			}
		}
		seen[tc.reason] = hint
	}
}

// hintOf returns the hint of a failed command's result.
func hintOf(t *testing.T, r gasoline.Result) string {
	t.Helper()
	var v struct {
		Hint string `json:"hint"`
	}
	if err := json.Unmarshal(r.Raw, &v); err != nil {
		t.Fatal(err)
	}
	return v.Hint
}

// refOf returns the ref of the first match of a complete query result.
func refOf(t *testing.T, r gasoline.Result) string {
	t.Helper()
	var v struct {
		Elements []struct {
			Ref string `json:"ref"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(r.Value, &v); err != nil || len(v.Elements) == 0 || v.Elements[0].Ref == "" {
		t.Fatalf("query result %s has no ref (%v)", r, err)
	}
	return v.Elements[0].Ref
}
