//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/bidi"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/firefox"
)

// foxPlatformPages serves the pages of the tests of what differs between
// Firefox and Chrome (extension/platform.js), on 127.0.0.1:
//
//	/foxp/quiet  a page that runs no script of its own: window.flood(n)
//	             logs n lines of 8 000 characters and then an error
//	/foxp/next   a quiet page to go to
func foxPlatformPages(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprint(w, body)
		}
	}
	mux.Handle("GET /foxp/quiet", html(`<!doctype html><title>Quiet</title><p>Leave me.</p><script>
window.flood = (n) => {
  const line = 'x'.repeat(7900);
  for (let i = 0; i < n; i++) console.log('flood ' + i + ' ' + line);
  console.error('fox left behind');
  return true;
};
</script>`))
	mux.Handle("GET /foxp/next", html(`<!doctype html><title>Next</title><p>Arrived.</p>`))
	srv := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(srv.Close)
	return srv
}

// foxTab returns the BiDi browsing context of the top-level tab showing
// url (the agent's tab), waiting up to 10 s for BiDi's tree to show it
// (it may still list the tab's previous URL right after the navigate).
func foxTab(t *testing.T, e *foxEnv, url string) string {
	t.Helper()
	var tabs []bidi.Context
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if tabs, err = e.browser.BiDi.Tree(e.ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range tabs {
			if c.URL == url {
				return c.Context
			}
		}
	}
	t.Fatalf("no Firefox tab shows %s within 10 s (tabs: %+v)", url, tabs)
	return ""
}

// TestFirefoxLeaveFlushKept: what a page logged just before the user left
// it (a navigation the browser starts, as from the address bar: no command
// of the agent's flushes the tab first) reaches observe logs in Firefox.
// The page logs 3.6 MB and then an error, so the relay
// (capture/relay/leave.js) is paced for more than three seconds
// (LIMITS.rateChars) when the page is hidden. Firefox ends the first
// script that runs in the page after such a navigation began ("Script
// terminated by timeout", logged below): in about half the runs the
// relay's first pagehide listener, which is why it comes twice. The
// error arrived in every run of the build without the second listener
// too (17 of 17 runs, 8 of them with its one listener ended), so this test guards
// the outcome; it did not show the loss the README's known gap describes.
func TestFirefoxLeaveFlushKept(t *testing.T) {
	e := foxReady(t)
	srv := foxPlatformPages(t)
	quiet := srv.URL + "/foxp/quiet"
	e.call("interact", map[string]any{"action": "navigate", "url": quiet, "wait_ms": 20000})
	tab := foxTab(t, e, quiet)
	if err := e.browser.BiDi.Evaluate(e.ctx, tab, `flood(460)`, nil); err != nil {
		t.Fatal(err)
	}
	// The user leaves the page (a navigation the browser starts, as from
	// the address bar): no command of the agent's flushes the tab first.
	if err := e.browser.BiDi.Navigate(e.ctx, tab, srv.URL+"/foxp/next"); err != nil {
		t.Fatal(err)
	}
	e.observeUntil(map[string]any{"what": "logs", "text": "fox left behind"}, 20*time.Second, func(o observed) error {
		return missing(o.Entries, []want{{"the error logged just before the page was left", func(e ev) bool {
			return e.str("level") == "error" && e.str("message") == "fox left behind"
		}}})
	})
	b, err := os.ReadFile(e.log())
	if err != nil {
		t.Fatal(err)
	}
	// What Firefox ended, for the record (the test does not depend on it).
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.Contains(l, "Script terminated by timeout") {
			t.Logf("Firefox ended a script by timeout: %s", strings.Join(lines[i:min(i+3, len(lines))], " | "))
		}
	}
}

// TestFirefoxTokenOutOfContentScripts: Firefox cannot close
// chrome.storage.local to content scripts (no setAccessLevel), so there the
// pairing token lives in the extension origin's IndexedDB
// (extension/platform.js tokenStore). After pairing, the extension's own
// page finds it there and not in storage.local; a function run as a
// content script (the ISOLATED world, by scripting.executeScript from the
// popup) in a page reads storage.local and opens the same database name,
// and finds no token: its indexedDB is the page's origin's.
func TestFirefoxTokenOutOfContentScripts(t *testing.T) {
	e := foxReady(t)
	c := e.browser.BiDi
	popup, err := c.NewTab(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Navigate(e.ctx, popup, firefox.PopupURL); err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Local []string
		IDB   string
	}
	err = c.Evaluate(e.ctx, popup, `(async () => {
		const local = Object.keys(await chrome.storage.local.get(null));
		const db = await new Promise((res, rej) => { const r = indexedDB.open("gasoline-secrets"); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
		const token = await new Promise((res, rej) => { const q = db.transaction("secrets").objectStore("secrets").get("token"); q.onsuccess = () => res(q.result); q.onerror = () => rej(q.error); });
		db.close();
		return { Local: local, IDB: typeof token === "string" ? token : "" };
	})()`, &stored)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.IDB) < 16 || slices.Contains(stored.Local, "token") {
		t.Fatalf("after pairing, the extension's IndexedDB holds a token of %d chars and storage.local the keys %v; want the token in IndexedDB only", len(stored.IDB), stored.Local)
	}
	var seen struct {
		Origin string
		Local  string
		IDB    string
	}
	script := `(async () => {
		const tab = (await chrome.tabs.query({})).find((t) => t.url === ` + fmt.Sprintf("%q", e.site.URL+"/a") + `);
		const [r] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, world: "ISOLATED", func: async () => {
			const local = JSON.stringify(await chrome.storage.local.get(null));
			let idb;
			try {
				const db = await new Promise((res, rej) => { const o = indexedDB.open("gasoline-secrets"); o.onsuccess = () => res(o.result); o.onerror = () => rej(o.error); });
				idb = "stores: " + Array.from(db.objectStoreNames).join(",");
				if (db.objectStoreNames.contains("secrets")) {
					idb += " token: " + await new Promise((res) => { const q = db.transaction("secrets").objectStore("secrets").get("token"); q.onsuccess = () => res(String(q.result)); q.onerror = () => res("refused"); });
				}
				db.close();
			} catch (err) { idb = "refused: " + err.message; }
			return { Origin: location.origin, Local: local, IDB: idb };
		} });
		return r.result;
	})()`
	if err := c.Evaluate(e.ctx, popup, script, &seen); err != nil {
		t.Fatal(err)
	}
	t.Logf("a content script in %s sees storage.local %d chars, IndexedDB %q", seen.Origin, len(seen.Local), seen.IDB)
	if seen.Origin != e.site.URL {
		t.Fatalf("the content script ran in %q, want the page %s", seen.Origin, e.site.URL)
	}
	if strings.Contains(seen.Local, stored.IDB) || strings.Contains(seen.IDB, stored.IDB) || strings.Contains(seen.Local, `"token"`) {
		t.Errorf("a content script read the pairing token: storage.local %s, IndexedDB %s", seen.Local, seen.IDB)
	}
}

// foxUntil evaluates expr in the browsing context until it is true, up to
// limit, and reports whether it was.
func foxUntil(e *foxEnv, context, expr string, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var ok bool
		if err := e.browser.BiDi.Evaluate(e.ctx, context, expr, &ok); err == nil && ok {
			return true
		}
	}
	return false
}

// foxWait evaluates expr in the browsing context until it is true, up to
// limit; the error names what.
func foxWait(t *testing.T, e *foxEnv, context, expr string, limit time.Duration, what string) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		err := e.browser.BiDi.Evaluate(e.ctx, context, expr, &ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (last: %v)", what, limit, err)
		}
	}
}

// TestFirefoxUserGrantsUserScripts: on a strict-CSP page execute_js needs
// user scripts, an optional permission in Firefox. The user clicks "Allow
// user scripts" in the popup (a trusted click, BiDi input; the profile
// grants optional permissions without Firefox's prompt,
// extensions.webextOptionalPermissionPrompts false), the button goes, and
// execute_js then runs the agent's script there in the USER_SCRIPT world.
func TestFirefoxUserGrantsUserScripts(t *testing.T) {
	e := foxReadyPrefs(t, map[string]any{"extensions.webextOptionalPermissionPrompts": false})
	strict := e.site.URL + "/csp/strict.html"
	e.call("interact", map[string]any{"action": "navigate", "url": strict, "wait_ms": 20000})
	if r := e.js("document.title", nil); r.Status != "error" || !strings.Contains(string(r.Raw), "Allow user scripts") {
		t.Fatalf("execute_js before the grant: %s, want an error that names the popup's button", r.Raw)
	}

	c := e.browser.BiDi
	popup, err := c.NewTab(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Navigate(e.ctx, popup, firefox.PopupURL); err != nil {
		t.Fatal(err)
	}
	foxWait(t, e, popup, `!document.getElementById("user-scripts").hidden`, 10*time.Second, "the popup shows the user scripts button")
	// What the popup saw of the user's clicks, for a failure's message.
	if err := c.Evaluate(e.ctx, popup, `(addEventListener("click", (e) => { document.body.dataset.clicks = (document.body.dataset.clicks || "") + e.isTrusted + ":" + e.target.id + " " }, true), true)`, nil); err != nil {
		t.Fatal(err)
	}
	// The button as a BiDi node, so that the pointer goes to its centre
	// wherever the popup's layout has put it by then.
	var node struct {
		Result struct {
			SharedID string `json:"sharedId"`
		} `json:"result"`
	}
	err = c.Call(e.ctx, "script.evaluate", map[string]any{
		"expression": `document.getElementById("allow-user-scripts")`, "target": map[string]any{"context": popup}, "awaitPromise": false,
	}, &node)
	if err != nil || node.Result.SharedID == "" {
		t.Fatalf("finding the button: %v (%+v)", err, node)
	}
	err = c.Call(e.ctx, "input.performActions", map[string]any{
		"context": popup,
		"actions": []map[string]any{{"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"}, "actions": []map[string]any{
			{"type": "pointerMove", "x": 0, "y": 0, "origin": map[string]any{"type": "element", "element": map[string]any{"sharedId": node.Result.SharedID}}},
			{"type": "pointerDown", "button": 0},
			{"type": "pointerUp", "button": 0},
		}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	granted := `chrome.permissions.contains({ permissions: ["userScripts"] })`
	if !foxUntil(e, popup, granted, 10*time.Second) {
		var saw struct{ Clicks, Message string }
		c.Evaluate(e.ctx, popup, `({ Clicks: document.body.dataset.clicks || "none", Message: document.getElementById("message").textContent })`, &saw)
		t.Fatalf("the click did not grant user scripts within 10 s: the popup saw the clicks %q and says %q", saw.Clicks, saw.Message)
	}
	foxWait(t, e, popup, `document.getElementById("user-scripts").hidden && document.getElementById("message").dataset.kind === "ok"`, 10*time.Second, "the popup says user scripts are allowed and hides the button")

	r := e.js("document.title", nil)
	var js struct {
		Result struct {
			Value any    `json:"value"`
			World string `json:"world"`
		} `json:"result"`
	}
	json.Unmarshal(r.Raw, &js)
	if r.Status != "complete" || js.Result.Value != "Strict CSP" || js.Result.World != "USER_SCRIPT" {
		t.Fatalf("execute_js on the strict-CSP page after the grant: %s, want \"Strict CSP\" from the USER_SCRIPT world", r.Raw)
	}
}
