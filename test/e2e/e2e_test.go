//go:build unix

// Package e2e runs gasoline end to end: the real gasoline-mcp driven by the
// official MCP SDK client, the real daemon, and the real extension in a
// headless Debian Chromium, against pages served on 127.0.0.1.
package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
)

// TestPairThroughPopup pairs the extension the way a user does: port and
// code typed into the popup. A wrong code is refused with a message; the
// right one makes the popup show paired and configure health report the
// extension connected.
func TestPairThroughPopup(t *testing.T) {
	e := newEnv(t)
	e.startBrowser(e.site.URL + "/a")

	h := e.call("configure", map[string]any{"action": "health"})
	var health struct {
		Extension struct {
			Connected bool   `json:"connected"`
			Instance  string `json:"instance"`
		} `json:"extension"`
		Hint string `json:"hint"`
	}
	json.Unmarshal(h.Raw, &health)
	if health.Extension.Connected || health.Hint == "" {
		t.Fatalf("before pairing: health %s, want extension not connected and a hint", h)
	}

	p, err := chromium.OpenPopup(e.ctx, e.cdp)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(e.ctx)
	if err := p.SetPort(e.ctx, e.daemon.Port); err != nil {
		t.Fatal(err)
	}
	msg, err := p.PairError(e.ctx, "ZZZZ-9999")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "gasoline pair") {
		t.Errorf("wrong code: popup says %q, want a message naming 'gasoline pair'", msg)
	}
	code, err := e.daemon.PairCode(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Pair(e.ctx, strings.ToLower(code)); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(15 * time.Second)
	for {
		h = e.call("configure", map[string]any{"action": "health"})
		json.Unmarshal(h.Raw, &health)
		if health.Extension.Connected {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after pairing: configure health %s, want extension connected", h)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if health.Extension.Instance == "" {
		t.Errorf("health %s names no extension instance", h)
	}
	st, err := p.Storage(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Paired bool `json:"paired"`
	}
	json.Unmarshal(st["status"], &status)
	if !status.Paired || !strings.Contains(string(st["token"]), "chars") {
		t.Errorf("extension storage %v, want a token and status.paired", st)
	}
}

// TestExecuteJS reads the served page's title, inline (wait_ms) and through
// observe command_result.
func TestExecuteJS(t *testing.T) {
	e := ready(t)

	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Page A" {
		t.Errorf("inline: document.title = %q, want %q", got, "Page A")
	}
	if js.URL != e.site.URL+"/a" || js.TabID == 0 {
		t.Errorf("inline: result url %q tab %d, want %s and a tab id", js.URL, js.TabID, e.site.URL+"/a")
	}

	q := e.call("interact", map[string]any{"action": "execute_js", "script": "return [document.title, location.pathname, 6 * 7]"})
	if q.Status != "queued" || !strings.HasPrefix(q.CorrelationID, "exec_") {
		t.Fatalf("without wait_ms: %s, want status queued and an exec_ id", q)
	}
	r := e.await(q.CorrelationID, 20*time.Second)
	var v []any
	js = complete(t, r)
	json.Unmarshal(js.Value, &v)
	if len(v) != 3 || v[0] != "Page A" || v[1] != "/a" || v[2] != 42.0 {
		t.Errorf("observe command_result value %s, want [\"Page A\",\"/a\",42]", js.Value)
	}
}

// TestNavigateAndTabs navigates to page B and reads its title, then opens,
// switches to and closes tabs, reading titles by tab_id and from the active
// tab.
func TestNavigateAndTabs(t *testing.T) {
	e := ready(t)

	nav := e.call("interact", map[string]any{"action": "navigate", "url": e.site.URL + "/b", "wait_ms": 20000})
	var page struct {
		TabID int64  `json:"tab_id"`
		URL   string `json:"url"`
		Title string `json:"title"`
	}
	if nav.Status != "complete" || !strings.HasPrefix(nav.CorrelationID, "nav_") {
		t.Fatalf("navigate: %s, want complete", nav)
	}
	json.Unmarshal(nav.Value, &page)
	if page.URL != e.site.URL+"/b" || page.Title != "Page B" {
		t.Errorf("navigate result %s, want url %s/b and title Page B", nav.Value, e.site.URL)
	}
	first := page.TabID
	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Page B" || js.TabID != first {
		t.Errorf("after navigate: title %q in tab %d, want Page B in tab %d", got, js.TabID, first)
	}

	nt := e.call("interact", map[string]any{"action": "new_tab", "url": e.site.URL + "/c", "wait_ms": 20000})
	if nt.Status != "complete" {
		t.Fatalf("new_tab: %s, want complete", nt)
	}
	json.Unmarshal(nt.Value, &page)
	second := page.TabID
	if second == 0 || second == first || page.Title != "Page C" {
		t.Fatalf("new_tab result %s, want a new tab showing Page C", nt.Value)
	}
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Page C" {
		t.Errorf("active tab after new_tab: title %q, want Page C", got)
	}
	if got := str(t, complete(t, e.js("document.title", map[string]any{"tab_id": first}))); got != "Page B" {
		t.Errorf("tab_id %d: title %q, want Page B", first, got)
	}

	sw := e.call("interact", map[string]any{"action": "switch_tab", "tab_id": first, "wait_ms": 20000})
	if sw.Status != "complete" {
		t.Fatalf("switch_tab: %s, want complete", sw)
	}
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Page B" {
		t.Errorf("active tab after switch_tab: title %q, want Page B", got)
	}

	ct := e.call("interact", map[string]any{"action": "close_tab", "tab_id": second, "wait_ms": 20000})
	if ct.Status != "complete" {
		t.Fatalf("close_tab: %s, want complete", ct)
	}
	targets, err := e.cdp.Targets(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" && tg.URL == e.site.URL+"/c" {
			t.Errorf("after close_tab the browser still has a tab on %s", tg.URL)
		}
	}
	gone := e.js("document.title", map[string]any{"tab_id": second})
	if gone.Status != "error" || !strings.Contains(gone.Error, "no tab with id") {
		t.Errorf("execute_js in the closed tab: %s, want status error naming the missing tab", gone)
	}
}

// shownPage is what a navigating action's result says of the page it left
// the tab on.
type shownPage struct {
	TabID int64  `json:"tab_id"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// pageStep runs the interact action args (with wait_ms 20 s), which must
// complete on wantURL titled wantTitle, as its result says and as the page
// then reads through execute_js in that tab; it returns the result's page.
func (e *env) pageStep(args map[string]any, wantURL, wantTitle string) shownPage {
	e.t.Helper()
	var page shownPage
	args["wait_ms"] = 20000
	r := e.call("interact", args)
	if r.Status != "complete" {
		e.t.Fatalf("%v: %s, want complete", args["action"], r)
	}
	json.Unmarshal(r.Value, &page)
	if page.URL != wantURL || page.Title != wantTitle {
		e.t.Errorf("%v: result %s, want url %s and title %q", args["action"], r.Value, wantURL, wantTitle)
	}
	if got := str(e.t, complete(e.t, e.js("document.title", map[string]any{"tab_id": page.TabID}))); got != wantTitle {
		e.t.Errorf("after %v: the page reads %q, want %q", args["action"], got, wantTitle)
	}
	return page
}

// TestHistory goes back, forward and reloads after navigations the agent
// made, which the user never interacted with: navigate A -> B, back reads
// A, forward reads B, refresh loads B again. Forward at the end of the
// history, and back in a tab with no history, fail saying so.
func TestHistory(t *testing.T) {
	e := ready(t)
	var page shownPage
	step := func(args map[string]any, wantURL, wantTitle string) {
		t.Helper()
		page = e.pageStep(args, wantURL, wantTitle)
	}
	a, b := e.site.URL+"/a", e.site.URL+"/hit/history"
	step(map[string]any{"action": "navigate", "url": a}, a, "Page A")
	step(map[string]any{"action": "navigate", "url": b}, b, "Hit history")
	step(map[string]any{"action": "back"}, a, "Page A")
	step(map[string]any{"action": "forward"}, b, "Hit history")
	loads := e.site.Hits("history")
	step(map[string]any{"action": "refresh", "tab_id": page.TabID}, b, "Hit history")
	if got := e.site.Hits("history"); got != loads+1 {
		t.Errorf("refresh: the page was loaded %d more times, want 1", got-loads)
	}
	r := e.call("interact", map[string]any{"action": "forward", "wait_ms": 20000})
	if r.Status != "error" || !strings.Contains(r.Error, "no page to go forward to") {
		t.Errorf("forward at the end of the history: %s, want an error saying there is no page to go forward to", r)
	}

	nt := e.call("interact", map[string]any{"action": "new_tab", "url": e.site.URL + "/c", "wait_ms": 20000})
	json.Unmarshal(nt.Value, &page)
	r = e.call("interact", map[string]any{"action": "back", "tab_id": page.TabID, "wait_ms": 20000})
	if r.Status != "error" || !strings.Contains(r.Error, "no page to go back to") {
		t.Errorf("back in a new tab: %s, want an error saying there is no page to go back to", r)
	}
}

// TestScriptErrors: a thrown error and a rejected promise end as status
// "error" carrying the error's name and message.
func TestScriptErrors(t *testing.T) {
	e := ready(t)
	for _, tc := range []struct {
		name, script, want string
	}{
		{"throw", `throw new Error("boom-4711")`, "Error: boom-4711"},
		{"rejected promise", `Promise.reject(new TypeError("rejected-0815"))`, "TypeError: rejected-0815"},
		{"await rejected", `await new Promise((_, reject) => setTimeout(() => reject(new RangeError("late-reject-42")), 50)); return 1`, "RangeError: late-reject-42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.js(tc.script, nil)
			if r.Status != "error" || !strings.Contains(r.Error, tc.want) || !strings.Contains(r.Error, "Uncaught") {
				t.Errorf("got %s, want status error with %q", r, tc.want)
			}
			if r.Reason != "command_error" {
				t.Errorf("reason %q, want command_error", r.Reason)
			}
		})
	}
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Page A" {
		t.Errorf("after the errors: title %q, want Page A", got)
	}
}

// TestScriptTimeout: a script still running at its timeout_ms ends as
// "timeout" (execution_timeout) at the deadline, and its later completion
// in the page changes nothing: the extension drops it (its trace marks
// "late result dropped") and the command stays timeout.
func TestScriptTimeout(t *testing.T) {
	e := ready(t)
	var on bool
	e.inWorker(`globalThis.gasolineTrace = []; true`, &on) // the browser is this test's
	const script = `window.__e2eLate = "running"; await new Promise((r) => setTimeout(r, 5000)); window.__e2eLate = "finished"; return "late"`
	start := time.Now()
	r := e.js(script, map[string]any{"timeout_ms": 1500})
	elapsed := time.Since(start)
	if r.Status != "timeout" || r.Reason != "execution_timeout" {
		t.Fatalf("got %s, want status timeout, reason execution_timeout", r)
	}
	if elapsed < 1400*time.Millisecond || elapsed > 4500*time.Millisecond {
		t.Errorf("timed out after %v, want about 1.5 s", elapsed)
	}

	// Let the script finish in the page and the extension drop what it
	// returned, then look again.
	dropped := fmt.Sprintf(`globalThis.gasolineTrace.some(([id, stage]) => id === %q && stage === "late result dropped")`, r.CorrelationID)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var ok bool
		if e.inWorker(dropped, &ok); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the extension never marked the timed-out script's late result dropped")
		}
	}
	if got := str(t, complete(t, e.js(`String(window.__e2eLate)`, nil))); got != "finished" {
		t.Fatalf("the late result was dropped, but the page says the script is %q, want finished", got)
	}
	again := e.call("observe", map[string]any{"what": "command_result", "correlation_id": r.CorrelationID})
	if again.Status != "timeout" || again.Reason != "execution_timeout" || len(again.Value) != 0 {
		t.Errorf("after the script finished: %s, want still timeout with no result", again)
	}
	cs, err := e.daemon.Commands(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cs.Find(r.CorrelationID); !ok || c.State != "timeout" {
		t.Errorf("daemon /commands has %+v (found %v), want state timeout", c, ok)
	}
}

// TestBrowserKilledMidCommand: the browser dies while a script runs (after
// the extension acknowledged it): the command fails extension_disconnected.
// A command queued while the browser is down runs exactly once when the
// same profile starts again, and the killed one is not run again.
func TestBrowserKilledMidCommand(t *testing.T) {
	e := ready(t, "--dispatch-timeout=60s")

	long := e.call("interact", map[string]any{"action": "execute_js", "timeout_ms": 120000,
		"script": `await fetch("/hit/long"); await new Promise((r) => setTimeout(r, 60000)); return "never"`})
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := e.call("observe", map[string]any{"what": "command_result", "correlation_id": long.CorrelationID})
		if r.Status != "pending" {
			t.Fatalf("the long script ended early: %s", r)
		}
		if r.Phase == "running" && e.site.Hits("long") == 1 {
			break // acknowledged (pending posted) and running in the page
		}
		if time.Now().After(deadline) {
			t.Fatalf("the long script was not acknowledged within 15 s: %s, hits %d", r, e.site.Hits("long"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	killed := time.Now()
	e.killBrowser()
	r := e.await(long.CorrelationID, 30*time.Second)
	if r.Status != "error" || r.Reason != "extension_disconnected" {
		t.Fatalf("after SIGKILL: %s, want status error, reason extension_disconnected", r)
	}
	t.Logf("extension_disconnected %v after the kill", time.Since(killed).Round(time.Millisecond))
	e.waitConnected(false, 10*time.Second)

	q := e.call("interact", map[string]any{"action": "navigate", "url": e.site.URL + "/hit/queued"})
	var warn struct {
		ExtensionConnected *bool `json:"extension_connected"`
	}
	json.Unmarshal(q.Raw, &warn)
	if q.Status != "queued" || warn.ExtensionConnected == nil || *warn.ExtensionConnected {
		t.Fatalf("navigate while the browser is down: %s, want queued with extension_connected false", q)
	}
	// No extension is connected (waited for above): nothing can take it.
	if p := e.call("observe", map[string]any{"what": "command_result", "correlation_id": q.CorrelationID}); p.Status != "pending" || p.Phase != "queued" {
		t.Fatalf("queued command with no browser: %s, want pending in phase queued", p)
	}

	e.startBrowser(e.site.URL + "/a") // same profile: token and port are kept
	done := e.await(q.CorrelationID, 45*time.Second)
	if done.Status != "complete" {
		t.Fatalf("queued command after the restart: %s, want complete", done)
	}
	// A later command runs to completion: the extension has polled and run
	// what it was handed since, so a second delivery would show up as a
	// second hit (or another title) by now.
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Hit queued" {
		t.Errorf("after the queued navigate: title %q, want %q", got, "Hit queued")
	}
	if got := e.site.Hits("queued"); got != 1 {
		t.Errorf("/hit/queued requested %d times, want exactly 1", got)
	}
	if got := e.site.Hits("long"); got != 1 {
		t.Errorf("the killed script's /hit/long requested %d times, want 1 (never re-run)", got)
	}
}

// TestIdleWorker: after an idle period longer than MV3's ~30 s worker
// suspension, with no DevTools session attached to anything, a command
// still runs; and after the worker is stopped outright (as Chrome does when
// it idles) the extension comes back on its own and runs a queued command.
func TestIdleWorker(t *testing.T) {
	e := ready(t, "--dispatch-timeout=60s")
	before, err := e.daemon.Health(e.ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Idle: no DevTools connection at all, no tab but page A.
	e.cdp.Close()
	e.cdp = nil
	time.Sleep(40 * time.Second) // not synchronization: the idle period past MV3's ~30 s worker suspension is what is tested (Chrome's timer; no fake clock reaches it)
	c, err := cdp.Dial(e.ctx, e.browser.WebSocketURL)
	if err != nil {
		t.Fatal(err)
	}
	e.cdp = c
	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Page A" {
		t.Errorf("after 40 s idle: title %q, want Page A", got)
	}
	idle, err := e.daemon.Health(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("worker instance %s before the idle period, %s after it", before.Extension.Instance, idle.Extension.Instance)

	// Stopped: every service worker stopped from a page session.
	if err := chromium.StopAllWorkers(e.ctx, e.cdp); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	// A command queued at once could reach the stopping worker's last
	// long-poll and fail extension_disconnected, as a command delivered to
	// a worker that dies must (it is never delivered twice). Queue it once
	// the daemon has seen that worker go.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		h, err := e.daemon.Health(e.ctx)
		if err == nil && (!h.Extension.Connected || h.Extension.Instance != idle.Extension.Instance) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after stopAllWorkers the daemon still sees worker %s: %+v (%v)", idle.Extension.Instance, h.Extension, err)
		}
	}
	q := e.call("interact", map[string]any{"action": "execute_js", "script": "document.title"})
	r := e.await(q.CorrelationID, 55*time.Second)
	if got := str(t, complete(t, r)); got != "Page A" {
		t.Errorf("after the worker was stopped: title %q, want Page A", got)
	}
	after, err := e.daemon.Health(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("worker instance %s before, %s after stopAllWorkers; the command completed %v after the stop",
		idle.Extension.Instance, after.Extension.Instance, time.Since(stopped).Round(time.Millisecond))
	if after.Extension.Instance == idle.Extension.Instance {
		t.Errorf("the extension instance did not change (%s): the worker was not stopped", after.Extension.Instance)
	}
}
