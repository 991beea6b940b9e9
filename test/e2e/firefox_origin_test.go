//go:build unix

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/firefox"
)

// foxAnswer waits for the origin prompt window in Firefox (the extension's
// origins/ask.html, opened by chrome.windows.create) other than the ones
// in done, checks that it names origin and the agent, and clicks button
// in it with the mouse, as the user would (trusted BiDi input); the window
// closes.
func (e *foxEnv) foxAnswer(done map[string]bool, origin, button string) {
	e.t.Helper()
	want := "moz-extension://" + firefox.ExtensionUUID + "/origins/ask.html"
	var prompt string
	for deadline := time.Now().Add(15 * time.Second); prompt == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("no new prompt window (%s) opened", want)
		}
		tabs, err := e.browser.BiDi.Tree(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, c := range tabs {
			if strings.HasPrefix(c.URL, want) && !done[c.Context] {
				prompt = c.Context
			}
		}
	}
	done[prompt] = true
	var v struct {
		Origin, Agent string
		X, Y          float64
	}
	expr := fmt.Sprintf(`(() => { const b = document.getElementById(%q); if (document.readyState !== "complete" || !b) return null;
		const r = b.getBoundingClientRect(); return { Origin: document.getElementById("origin").textContent,
		Agent: document.getElementById("agent").textContent, X: r.x + r.width / 2, Y: r.y + r.height / 2 } })()`, button)
	for deadline := time.Now().Add(10 * time.Second); v.Origin == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := e.browser.BiDi.Evaluate(e.ctx, prompt, expr, &v); err != nil {
			e.t.Fatalf("reading the prompt: %v", err)
		}
	}
	if v.Origin != origin || v.Agent == "" || v.Agent == "An agent" {
		e.t.Fatalf("the prompt names origin %q and agent %q, want %q and the agent's name", v.Origin, v.Agent, origin)
	}
	// The click closes the window, maybe before Firefox answers the input
	// call: the window's closing tells the click happened.
	ctx, cancel := context.WithTimeout(e.ctx, 3*time.Second)
	e.browser.BiDi.Click(ctx, prompt, v.X, v.Y)
	cancel()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tabs, err := e.browser.BiDi.Tree(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		open := false
		for _, c := range tabs {
			open = open || c.Context == prompt
		}
		if !open {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the prompt stayed open after the user clicked %s", button)
		}
	}
}

// TestFirefoxOriginAsksTheUser (TestOriginAsksTheUser in Chrome): on
// shop.example (not a local origin; Firefox resolves it to 127.0.0.1 by
// network.dns.localDomains) an agent's command waits for the user's answer
// in the extension's prompt window, which names the agent and the origin.
// Allow once runs that command only; deny fails the next with
// origin_not_allowed; always allow runs it and every later one without
// asking; what the page did before it was allowed reaches observe then.
func TestFirefoxOriginAsksTheUser(t *testing.T) {
	e := foxReadyPrefs(t, map[string]any{"network.dns.localDomains": "shop.example"})
	shop := "http://shop.example:" + shopServer(t)
	answered := map[string]bool{}

	r := e.call("interact", map[string]any{"action": "navigate", "url": shop + "/shop"})
	e.foxAnswer(answered, shop, "once")
	nav := complete(t, e.await(r.CorrelationID, 30*time.Second))
	tab := map[string]any{"tab_id": nav.TabID}

	r = e.call("interact", map[string]any{"action": "execute_js", "script": "document.title", "tab_id": nav.TabID})
	e.waitingForUser(r.CorrelationID, shop)
	e.foxAnswer(answered, shop, "deny")
	notAllowed(t, "execute_js after deny", e.await(r.CorrelationID, 30*time.Second))

	r = e.call("interact", map[string]any{"action": "click", "selector": "#buy", "tab_id": nav.TabID})
	e.foxAnswer(answered, shop, "always")
	if r = e.await(r.CorrelationID, 30*time.Second); r.Status != "complete" {
		t.Fatalf("click after always allow: %s", r)
	}
	if got := e.pageText("#title", tab); got != "Bought" {
		t.Errorf("title %q after the click, want Bought", got)
	}
	if v := str(t, complete(t, e.js("document.title", tab))); v != "Shop" {
		t.Errorf("execute_js after always allow: %q, want Shop without asking", v)
	}
	e.observeUntil(map[string]any{"what": "network", "limit": 200}, 15*time.Second, func(o observed) error {
		for _, n := range []string{"bought", "load"} {
			if len(where(o.Entries, func(v ev) bool { return strings.HasPrefix(v.str("url"), shop+"/ping?n="+n) })) == 0 {
				return fmt.Errorf("no request /ping?n=%s of the allowed origin (the load's was held in the browser until the user allowed it)", n)
			}
		}
		return nil
	})
}
