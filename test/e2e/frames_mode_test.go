//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
)

// agentOpens opens u in a new tab as an agent does (interact new_tab),
// then attaches to it and waits as openPage does, for the test to act as
// the user there. The extension captures every frame from an agent's
// command on (capture/declared.js; while no agent works, top documents
// only), so the page's iframes are captured from their start, and the tab
// is the agent's (observe reads it by default).
func (e *env) agentOpens(u string) *page {
	e.t.Helper()
	pages := func() map[string]bool {
		targets, err := e.cdp.Targets(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		out := map[string]bool{}
		for _, ti := range targets {
			if ti.Type == "page" {
				out[ti.TargetID] = true
			}
		}
		return out
	}
	before := pages()
	complete(e.t, e.call("interact", map[string]any{"action": "new_tab", "url": u, "wait_ms": 20000}))
	for id := range pages() {
		if !before[id] { // the page may have moved on (pushState): the new tab is the one
			return e.attachLoaded(id, u)
		}
	}
	e.t.Fatalf("new_tab %s: no new DevTools target", u)
	return nil
}

// modeSite serves a page whose script logs as it loads, and whose iframe
// logs and throws as it loads, each naming the ?n= of the top page:
//
//	/top?n=N    logs "top loaded N", then "top done N" once its iframe loaded
//	/frame?n=N  logs "frame loaded N", then throws Error("frame threw N")
func modeSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("GET /top", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Frames mode</title>
<script>const n = new URLSearchParams(location.search).get("n"); console.log("top loaded " + n);</script>
<iframe id="f" src="/frame?n=`+r.URL.Query().Get("n")+`" onload='console.log("top done " + n)'></iframe>`)
	})
	mux.HandleFunc("GET /frame", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Frame</title>
<script>const n = new URLSearchParams(location.search).get("n"); console.log("frame loaded " + n); throw new Error("frame threw " + n);</script><p>frame</p>`)
	})
	s := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// popupFrames waits until the popup's iframe line says want
// (#status-frames[data-at-work]).
func (e *env) popupFrames(want bool) {
	e.t.Helper()
	p, err := chromium.OpenPopup(e.ctx, e.cdp)
	if err != nil {
		e.t.Fatal(err)
	}
	defer p.Close(e.ctx)
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := p.Eval(e.ctx, `document.getElementById("status-frames").dataset.atWork`, &got); err == nil && got == fmt.Sprint(want) {
			return
		}
	}
	e.t.Errorf("the popup's iframe line says at work %q, want %v", got, want)
}

// TestFramesCapturedWhileAgentWorks: while no agent works, an iframe of
// the user's page runs no content script, so what it does while loading is
// not captured (its top document's is); the agent's first command puts the
// extension at work, which brings the capture into that iframe before the
// command runs in its tab (what it does afterwards is
// captured, what it did before is not: the trade capture/declared.js
// states), which the popup shows; and from then on a page the agent navigates to has its
// iframe's load-time log and uncaught error in observe right after the
// navigate.
func TestFramesCapturedWhileAgentWorks(t *testing.T) {
	e := ready(t)
	pages := modeSite(t)
	e.popupFrames(false)

	// Idle: the user opens a page with an iframe.
	p := e.openPage(pages.URL + "/top?n=idle")
	e.observeUntil(map[string]any{"what": "logs", "text": "top done idle"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("the top document's log after its iframe loaded is not in yet")
		}
		return nil
	})

	// The agent's first command, in that tab: its result comes after
	// everything the tab's captured frames hold (flush before a result).
	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Frames mode" {
		t.Fatalf("execute_js read %q in the active tab, want the user's page", got)
	}
	tab := map[string]any{"tab_id": js.TabID}
	e.popupFrames(true)
	logs := e.observe(map[string]any{"what": "logs", "text": "idle", "limit": 50})
	if !strings.Contains(logs.Raw, "top loaded idle") {
		t.Errorf("the top document's load-time log is missing:\n%s", logs.Raw)
	}
	if strings.Contains(logs.Raw, "frame loaded idle") {
		t.Errorf("an iframe loaded while no agent worked was captured while loading:\n%s", logs.Raw)
	}
	errs := e.observe(map[string]any{"what": "errors", "limit": 50})
	if strings.Contains(errs.Raw, "frame threw idle") {
		t.Errorf("an iframe loaded while no agent worked had its load-time error captured:\n%s", errs.Raw)
	}

	// Going to work brought the capture into that iframe: what it logs now
	// is captured.
	p.eval(`document.getElementById("f").contentWindow.eval('console.log("frame later idle"); true')`, nil)
	complete(t, e.js("document.title", tab)) // a result goes after its tab's capture
	later := e.observe(map[string]any{"what": "logs", "text": "frame later idle"})
	if len(later.Entries) != 1 {
		t.Fatalf("the iframe's log after the agent's first command: %d entries, want 1:\n%s", len(later.Entries), later.Raw)
	}
	if later.Entries[0].num("frame_id") == 0 {
		t.Errorf("the iframe's log has frame_id 0: %v", later.Entries[0])
	}
	// The recorder came with the engine too, once: the user's click in
	// that iframe is recorded one time, with the engine's locator.
	var box struct{ X, Y float64 }
	p.eval(`(() => { const f = document.getElementById("f"), o = f.getBoundingClientRect();
		const r = f.contentDocument.querySelector("p").getBoundingClientRect();
		return { x: o.x + f.clientLeft + r.x + r.width / 2, y: o.y + f.clientTop + r.y + r.height / 2 } })()`, &box)
	// The user looks at the page they click in (the popup's Close brought
	// some web page to the front, not necessarily this one), and clicks
	// again if the iframe did not see the click: input sent to a busy
	// headed Chrome is sometimes dropped, which is not what this tests.
	if err := e.cdp.Call(e.ctx, "", "Target.activateTarget", map[string]any{"targetId": p.targetID}, nil); err != nil {
		t.Fatal(err)
	}
	p.eval(`document.getElementById("f").contentWindow.eval('window.userClicks = 0; addEventListener("click", () => userClicks++, true); true')`, nil)
	seen := 0
	for try := 1; seen == 0; try++ {
		if err := p.s.Click(e.ctx, box.X, box.Y); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(2 * time.Second); seen == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			p.eval(`document.getElementById("f").contentWindow.userClicks`, &seen)
		}
		if seen == 0 && try == 3 {
			t.Fatal("the iframe saw none of the user's 3 clicks")
		} else if seen == 0 {
			t.Logf("the iframe did not see click %d; the user clicks again", try)
		}
	}
	framed := func(o observed) []ev {
		return where(o.Entries, func(a ev) bool { return a.str("type") == "click" && a.num("frame_id") != 0 })
	}
	e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 10*time.Second, func(o observed) error {
		if len(framed(o)) == 0 {
			return fmt.Errorf("the user's click in the iframe is not recorded yet")
		}
		return nil
	})
	complete(t, e.js("document.title", tab)) // a second record of the click would be in by now
	acts := e.observe(map[string]any{"what": "actions", "limit": 100})
	if c := framed(acts); len(c) != 1 || c[0].str("selector") != "body > p" || c[0]["locator"] == nil {
		t.Errorf("the user's click in the iframe is recorded as %v, want once, on body > p, with a locator", c)
	}

	// At work: a page the agent navigates to has its iframe's load-time
	// log and error readable as soon as the navigate completes.
	nav := e.call("interact", map[string]any{"action": "navigate", "url": pages.URL + "/top?n=work", "wait_ms": 20000, "tab_id": js.TabID})
	if nav.Status != "complete" {
		t.Fatalf("navigate: %s", nav)
	}
	errs = e.observe(map[string]any{"what": "errors", "limit": 50})
	var threw []ev
	for _, en := range errs.Entries {
		if strings.Contains(en.str("message"), "frame threw work") {
			threw = append(threw, en)
		}
	}
	if len(threw) != 1 {
		t.Fatalf("right after navigate: %d errors \"frame threw work\", want 1:\n%s", len(threw), errs.Raw)
	}
	if u := threw[0].str("page_url"); !strings.Contains(u, "/frame?n=work") {
		t.Errorf("the iframe's error has page_url %q, want the iframe's: %v", u, threw[0])
	}
	logs = e.observe(map[string]any{"what": "logs", "text": "frame loaded work"})
	if len(logs.Entries) != 1 {
		t.Errorf("right after navigate: %d logs \"frame loaded work\", want 1:\n%s", len(logs.Entries), logs.Raw)
	}
}
