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

// leanWSSite serves /page?n=N, which fetches /data?n=N and opens a
// WebSocket to /ws that answers "echo <what it got>"; the page logs
// "ready N" once both answered.
func leanWSSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
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
	mux.HandleFunc("GET /data", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, `{"n":%q}`, r.URL.Query().Get("n"))
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

// TestLeanPageSaysWhatItLacks plays an agent that comes to a page the user
// opened while no agent worked (captured lean: no bodies, WebSocket
// frames or web vitals) and reads it the way an agent does: each read says
// what is missing and that a refresh brings it, and after the agent's
// refresh the same reads have it and say nothing more.
func TestLeanPageSaysWhatItLacks(t *testing.T) {
	e := ready(t)
	site := leanWSSite(t)
	e.popupFrames(false)
	e.openPage(site.URL + "/page?n=1")

	// The agent's first call: the page's requests.
	o := e.observeUntil(map[string]any{"what": "network", "url": "/data?n=1"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) != 1 {
			return fmt.Errorf("%d requests to /data?n=1, want 1", len(o.Entries))
		}
		return nil
	})
	if !strings.Contains(o.Raw, `"lean":"1 request came from a page loaded while no agent was at work`) || !strings.Contains(o.Raw, `refresh`) {
		t.Errorf("the network read of a lean page does not say its bodies were not kept, or how to get them:\n%s", o.Raw)
	}
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
