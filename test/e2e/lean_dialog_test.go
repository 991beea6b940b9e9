//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// sessionSite serves /expired?when=load|timer: a page that alerts
// "Session expired" while it loads (an inline script) or from a timer
// 300 ms after its load, with a button #go that writes "went" into #out.
func sessionSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /expired", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fire := `alert("Session expired");`
		if r.URL.Query().Get("when") == "timer" {
			fire = `addEventListener("load", () => setTimeout(() => alert("Session expired"), 300));`
		}
		fmt.Fprintf(w, `<!doctype html><title>Expired</title>
<button id="go" onclick='document.getElementById("out").textContent = "went"'>Go</button>
<p id="out"></p>
<script>%s</script>`, fire)
	})
	s := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// userTab opens u in a new tab as the user and waits until the page shows
// its native dialog (DevTools' Page.javascriptDialogOpening); it returns
// the tab's page, with the Page domain on so the test can answer it.
func (e *env) userTab(u string) *page {
	e.t.Helper()
	id, err := e.cdp.CreateTarget(e.ctx, "about:blank")
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := e.cdp.Attach(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Detach(context.WithoutCancel(e.ctx)) })
	events, stop := e.cdp.Subscribe(s.ID, 256)
	defer stop()
	if err := s.Call(e.ctx, "Page.enable", nil, nil); err != nil {
		e.t.Fatal(err)
	}
	if err := s.Call(e.ctx, "Page.navigate", map[string]any{"url": u}, nil); err != nil {
		e.t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				e.t.Fatal("the DevTools connection closed")
			}
			if ev.Method != "Page.javascriptDialogOpening" {
				continue
			}
			var d struct{ Type, Message string }
			json.Unmarshal(ev.Params, &d)
			if d.Type != "alert" || d.Message != "Session expired" {
				e.t.Fatalf("%s opened dialog %s, want the alert", u, ev.Params)
			}
			return &page{e: e, s: s, targetID: id}
		case <-timeout:
			e.t.Fatalf("%s showed no dialog within 20 s", u)
		}
	}
}

// TestLeanPageDialogBeforeAgent: the user opened, while no agent worked,
// a page that shows a native alert (while it loads, or from a timer after
// its load). The lean registration (capture/declared.js) has neither the
// dialog wrappers (actions/dialogs.js) nor their channel, so the page's own
// alert shows natively, freezes the page, and the worker does not know of
// it. An agent then acts on that tab.
//
// What it gets (pinned here): the first action fails at its probe with
// tab_unresponsive (the tab "does not answer", true), which says a native
// dialog the page opened while no agent worked may be the cause and to ask
// the user first (a refresh would discard the page); the next fails at
// once with the same; once the user has closed the alert the same actions
// work. The error cannot name the alert's text: the worker does not know
// of it (the gap that remains, README.md): when a fix makes these
// dialog_showing, this test must require the alert's text in them.
func TestLeanPageDialogBeforeAgent(t *testing.T) {
	e := ready(t)
	site := sessionSite(t)
	e.popupFrames(false)

	whens := []string{"load", "timer"}
	pages := map[string]*page{}
	for _, when := range whens {
		pages[when] = e.userTab(site.URL + "/expired?when=" + when)
	}
	e.agentAtWork()
	for _, when := range whens {
		tab := e.tabShowing(site.URL + "/expired?when=" + when)
		for i, a := range []struct {
			action string
			args   map[string]any
		}{
			{"click", map[string]any{"selector": "#go", "tab_id": tab}},
			{"execute_js", map[string]any{"script": "document.title", "tab_id": tab}},
		} {
			start := time.Now()
			r := e.act(a.action, a.args)
			took := time.Since(start)
			t.Logf("%s: %s on the frozen tab: %s %q after %v", when, a.action, r.Status, r.Error, took.Round(time.Millisecond))
			if r.Status != "error" || r.Reason != "tab_unresponsive" || !strings.Contains(r.Error, fmt.Sprintf("tab %d does not answer", tab)) {
				t.Errorf("%s: %s on a tab frozen by an alert: %s, want tab_unresponsive", when, a.action, r)
			}
			for _, want := range []string{"or a native dialog", "ask the user to answer it, then retry"} {
				if !strings.Contains(r.Error, want) {
					t.Errorf("%s: %s on a tab frozen by an alert: %q, want it to say %q", when, a.action, r.Error, want)
				}
			}
			// The first waits for its probe (within the action's 10 s
			// deadline); the next is refused at once.
			if limit := []time.Duration{12 * time.Second, 3 * time.Second}[i]; took > limit {
				t.Errorf("%s: %s on the frozen tab took %v, want under %v", when, a.action, took, limit)
			}
		}
		pages[when].answerDialog(true) // the user closes the alert
		e.ok("click", map[string]any{"selector": "#go", "tab_id": tab})
		js := complete(t, e.js("document.getElementById('out').textContent", map[string]any{"tab_id": tab}))
		if got := str(t, js); got != "went" {
			t.Errorf("%s: after the user closed the alert the page says %q, want \"went\" (the agent's click)", when, got)
		}
	}
}

// tabShowing is the id of the tab observe lists showing u.
func (e *env) tabShowing(u string) int64 {
	e.t.Helper()
	var got struct {
		Tabs []struct {
			TabID int64  `json:"tab_id"`
			URL   string `json:"url"`
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := json.Unmarshal(e.call("observe", map[string]any{"what": "tabs"}).Raw, &got); err != nil {
			e.t.Fatal(err)
		}
		for _, tb := range got.Tabs {
			if tb.URL == u {
				return tb.TabID
			}
		}
	}
	e.t.Fatalf("observe lists no tab showing %s", u)
	return 0
}
