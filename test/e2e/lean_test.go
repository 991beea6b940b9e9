//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// leanSite serves a page that fetches /data?n=N as it loads and logs
// "fetched N", with two buttons whose handlers open a native alert and a
// confirm and then write what they got into #out:
//
//	/lean?n=N  the page
//	/data?n=N  {"n":"N"}
//	/page?n=N  a page that fetches /data?n=N and opens a WebSocket to /ws,
//	           which answers "echo <what it got>"; it logs "ready N" once
//	           both answered
//	/ws        that WebSocket
func leanSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /lean", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><title>Lean</title>
<button id="alert" onclick='alert("hello " + n); document.getElementById("out").textContent = "after alert"'>Alert</button>
<button id="confirm" onclick='document.getElementById("out").textContent = "confirm " + confirm("sure " + n + "?")'>Confirm</button>
<p id="out"></p>
<script>
const n = new URLSearchParams(location.search).get("n");
window.fixtureDone = fetch("/data?n=" + n).then((r) => r.json()).then((d) => { console.log("fetched " + d.n); return true; });
</script>`)
	})
	mux.HandleFunc("GET /data", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, `{"n":%q}`, r.URL.Query().Get("n"))
	})
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><title>Lean reads</title><h1>Orders</h1><p id="out"></p>
<script>
const n = new URLSearchParams(location.search).get("n");
const data = fetch("/data?n=" + n).then((r) => r.json());
const echo = new Promise((resolve) => {
  const ws = new WebSocket("ws://" + location.host + "/ws");
  ws.onopen = () => ws.send("hello " + n);
  ws.onmessage = (e) => resolve(e.data);
});
window.fixtureDone = Promise.all([data, echo]).then(([d, m]) => {
  document.getElementById("out").textContent = d.n + " " + m;
  console.log("ready " + n);
  return true;
});
</script>`)
	})
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if err := c.Write(r.Context(), typ, append([]byte("echo "), msg...)); err != nil {
				return
			}
		}
	})
	s := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// agentAtWork puts the extension at work (an agent's tool call, which the
// daemon reports in its poll answer) and waits until its popup says so:
// pages opened from then on load with the full capture (bodies, WebSocket
// frames, web vitals), where a page opened while idle is captured lean.
func (e *env) agentAtWork() {
	e.t.Helper()
	e.observe(map[string]any{"what": "logs", "limit": 1})
	e.popupFrames(true)
}

// requestsTo waits until observe lists a request whose URL holds part
// and returns those it lists.
func (e *env) requestsTo(part string) []ev {
	e.t.Helper()
	o := e.observeUntil(map[string]any{"what": "network", "url": part}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("no request to %s yet", part)
		}
		return nil
	})
	return o.Entries
}

// responseBody is what observe answers for the response body of the
// request id (an error result included: a request without a body).
func (e *env) responseBody(id any) string {
	e.t.Helper()
	r, err := e.mcp.Call(e.ctx, "observe", map[string]any{"what": "network", "id": id, "body": "response"})
	if err != nil {
		e.t.Fatal(err)
	}
	return string(r.Raw)
}

// dialogsOf is a click result's effects.dialogs, printed.
func dialogsOf(r map[string]any) string {
	eff, _ := r["effects"].(map[string]any)
	return fmt.Sprint(eff["dialogs"])
}

// TestLeanPageThenAgentActs: a page the user opened while no agent worked
// ran the idle registration (capture/declared.js): lean capture, without
// bodies, the pristine built-ins or the dialog wrappers. When an agent
// acts there, tabs/reach.js brings the agent's parts: a click whose
// handler opens alert() or confirm() returns with the dialog in its
// effects and the page goes on (not blocked), execute_js runs and says its
// built-ins are the page's (late), and the capture hooks did not wrap
// twice (one record per request and log). The request the page made while
// loading is captured without its body. A page loaded at work has bodies.
func TestLeanPageThenAgentActs(t *testing.T) {
	e := ready(t)
	site := leanSite(t)
	e.popupFrames(false)

	p := e.openPage(site.URL + "/lean?n=idle")

	// The agent's first command in that tab: a click whose handler alerts.
	r := e.ok("click", map[string]any{"selector": "#alert"})
	if got := dialogsOf(r); !strings.Contains(got, "type:alert") || !strings.Contains(got, "message:hello idle") {
		t.Errorf("click effects.dialogs %s, want the alert", got)
	}
	var out string
	p.eval(`document.getElementById("out").textContent`, &out)
	if out != "after alert" {
		t.Errorf("after the click the page says %q, want \"after alert\" (the alert must not block it)", out)
	}
	r = e.ok("click", map[string]any{"selector": "#confirm"})
	if got := dialogsOf(r); !strings.Contains(got, "type:confirm") || !strings.Contains(got, "message:sure idle?") {
		t.Errorf("click effects.dialogs %s, want the confirm", got)
	}
	p.eval(`document.getElementById("out").textContent`, &out)
	if out != "confirm false" {
		t.Errorf("after the confirm the page says %q, want \"confirm false\" (dismissed, not shown)", out)
	}

	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Lean" {
		t.Fatalf("execute_js read %q, want the user's page", got)
	}
	if js.Builtins != "page" {
		t.Errorf("execute_js in a page loaded idle: builtins %q, want page (pristine.js came after the page's scripts)", js.Builtins)
	}

	// Loaded idle: its load-time request is captured, without its body.
	for _, en := range e.requestsTo("/data?n=idle") {
		if body := e.responseBody(en["id"]); strings.Contains(body, `n\":\"idle`) || strings.Contains(body, `n":"idle`) {
			t.Errorf("a request of a page loaded idle has its body: %s", body)
		}
	}
	// The hooks of the lean capture did not wrap twice: one record each.
	p.eval(`fetch("/data?n=again").then((r) => r.text()).then(() => { console.log("once lean"); return true; })`, nil)
	complete(t, e.js("document.title", nil)) // a result goes after its tab's capture
	if got := e.requestsTo("/data?n=again"); len(got) != 1 {
		t.Errorf("one fetch in the lean page: %d records, want 1: %v", len(got), got)
	}
	if logs := e.observe(map[string]any{"what": "logs", "text": "once lean"}); len(logs.Entries) != 1 {
		t.Errorf("one console.log in the lean page: %d entries, want 1:\n%s", len(logs.Entries), logs.Raw)
	}

	// At work: a page the agent loads has the bodies, and its dialogs are answered.
	nav := e.call("interact", map[string]any{"action": "navigate", "url": site.URL + "/lean?n=work", "wait_ms": 20000, "tab_id": js.TabID})
	if nav.Status != "complete" {
		t.Fatalf("navigate: %s", nav)
	}
	e.observeUntil(map[string]any{"what": "network", "url": "/data?n=work"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) != 1 {
			return fmt.Errorf("%d requests to /data?n=work, want 1", len(o.Entries))
		}
		if body := e.responseBody(o.Entries[0]["id"]); !strings.Contains(body, `n\":\"work`) {
			return fmt.Errorf("the request of a page loaded at work has no body yet: %s", body)
		}
		return nil
	})
	r = e.ok("click", map[string]any{"selector": "#alert", "tab_id": js.TabID})
	if got := dialogsOf(r); !strings.Contains(got, "message:hello work") {
		t.Errorf("click effects.dialogs %s in a page loaded at work, want the alert", got)
	}
}

// TestLeanRecordsSayLean: what a page loaded idle sends says it is lean
// (the contract the daemon's notes read): its load record and its request
// records carry lean: true and no bodies; a page loaded at work sends
// neither mark, and its request has its body.
func TestLeanRecordsSayLean(t *testing.T) {
	c := captureReady(t)
	site := leanSite(t)
	c.popupFrames(false)
	c.openPage(site.URL + "/lean?n=idle")
	sent := func(evs []ev, kind, url string) []ev {
		return where(evs, func(e ev) bool {
			return e.str("kind") == kind && strings.Contains(e.str("url")+e.str("to"), url) && e.str("source") != "browser"
		})
	}
	c.tap.waitDelivered(t, 20*time.Second, func(evs []ev) error {
		loads := where(sent(evs, "nav", "/lean?n=idle"), func(e ev) bool { return e.str("type") == "load" })
		reqs := sent(evs, "network", "/data?n=idle")
		if len(loads) == 0 || len(reqs) == 0 {
			return fmt.Errorf("the idle page's load (%d) and request (%d) are not in yet", len(loads), len(reqs))
		}
		for _, e := range append(loads, reqs...) {
			if e["lean"] != true || e["response_body"] != nil {
				return fmt.Errorf("a record of a page loaded idle: %v, want lean: true and no body", e)
			}
		}
		return nil
	})

	c.agentAtWork()
	c.openPage(site.URL + "/lean?n=work")
	c.tap.waitDelivered(t, 20*time.Second, func(evs []ev) error {
		loads := where(sent(evs, "nav", "/lean?n=work"), func(e ev) bool { return e.str("type") == "load" })
		reqs := where(sent(evs, "network", "/data?n=work"), func(e ev) bool { return e.str("response_body") != "" })
		if len(loads) == 0 || len(reqs) == 0 {
			return fmt.Errorf("the page loaded at work: its load (%d) and its request with its body (%d) are not in yet", len(loads), len(reqs))
		}
		for _, e := range append(loads, reqs...) {
			if e["lean"] != nil {
				return fmt.Errorf("a record of a page loaded at work says lean: %v", e)
			}
		}
		return nil
	})
}

// TestLeanPageSaysWhatItLacks plays an agent that comes to a page the user
// opened while no agent worked (captured lean: no bodies, WebSocket
// frames or web vitals) and reads it the way an agent does: each read says
// what is missing and that a refresh brings it, and after the agent's
// refresh the same reads have it and say nothing more.
func TestLeanPageSaysWhatItLacks(t *testing.T) {
	e := ready(t)
	site := leanSite(t)
	e.popupFrames(false)
	e.openPage(site.URL + "/page?n=1")

	// The agent's first call: the page's requests.
	// (The browser's half of the request, from webRequest, may come before
	// the page's, which says lean: an agent polling sees the line once the
	// page's half is in.)
	o := e.observeUntil(map[string]any{"what": "network", "url": "/data?n=1"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) != 1 {
			return fmt.Errorf("%d requests to /data?n=1, want 1", len(o.Entries))
		}
		if !strings.Contains(o.Raw, `"lean":"1 request came from a page loaded while no agent was at work`) || !strings.Contains(o.Raw, `refresh`) {
			return fmt.Errorf("the network read of a lean page does not say its bodies were not kept, or how to get them")
		}
		return nil
	})
	req := o.Entries[0]
	tab := req["tab_id"]
	if body := e.responseBody(req["id"]); !strings.Contains(body, "body_not_kept") || !strings.Contains(body, "refresh") {
		t.Errorf("reading the lean request's response body: %s, want body_not_kept with the refresh to do", body)
	}
	lacks := func(what, says string) {
		t.Helper()
		args := map[string]any{"what": what, "tab_id": tab}
		if what == "websocket" {
			args = map[string]any{"what": "network", "type": "websocket", "tab_id": tab}
		}
		if r := e.observe(args); !strings.Contains(r.Raw, says) {
			t.Errorf("observe %v of a lean page does not say %q:\n%s", args, says, r.Raw)
		}
	}
	lacks("websocket", "its WebSocket traffic is not captured until it is reloaded")
	lacks("vitals", "its web vitals are not captured until it is reloaded")

	// The agent does what the reads say: refresh. The page loads at work.
	cursor := e.observe(map[string]any{"what": "network"}).NextCursor
	if r := e.call("interact", map[string]any{"action": "refresh", "tab_id": tab, "wait_ms": 20000}); r.Status != "complete" {
		t.Fatalf("refresh: %s", r.Raw)
	}
	o = e.observeUntil(map[string]any{"what": "network", "url": "/data?n=1", "since": cursor}, 20*time.Second, func(o observed) error {
		if len(o.Entries) != 1 {
			return fmt.Errorf("%d requests to /data?n=1 since the refresh, want 1", len(o.Entries))
		}
		return nil
	})
	if strings.Contains(o.Raw, `"lean"`) {
		t.Errorf("the request of the refreshed page still reads as lean:\n%s", o.Raw)
	}
	if body := e.responseBody(o.Entries[0]["id"]); !strings.Contains(body, `n\":\"1`) {
		t.Errorf("the refreshed page's request has no body: %s", body)
	}
	e.observeUntil(map[string]any{"what": "network", "type": "websocket", "tab_id": tab}, 20*time.Second, func(o observed) error {
		if strings.Contains(o.Raw, `"lean"`) {
			return fmt.Errorf("the WebSocket read still says the page is lean")
		}
		if !strings.Contains(o.Raw, `"received":1`) {
			return fmt.Errorf("the refreshed page's WebSocket answer is not captured yet")
		}
		return nil
	})
	if r := e.observe(map[string]any{"what": "vitals", "tab_id": tab}); strings.Contains(r.Raw, `"lean"`) {
		t.Errorf("the vitals read still says the refreshed page is lean:\n%s", r.Raw)
	}
}
