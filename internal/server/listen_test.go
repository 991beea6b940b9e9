package server_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Over Streamable HTTP, subscriptions/listen (2026-07-28) is a POST
// answered as an SSE stream: the acknowledgement, notifications/tasks as
// the task moves (queued, running, completed with its result), then the
// response that ends the subscription.
func TestListenOverHTTP(t *testing.T) {
	e := newStreamEnv(t)
	_, body := e.post(t, "POST", modernHeaders("tools/call", "interact"),
		modernReq(1, "tools/call", `"name":"interact","arguments":{"action":"execute_js","script":"1","tab_id":7}`, true))
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	json.Unmarshal(body, &created)
	id := created.Result.TaskID
	if id == "" {
		t.Fatalf("tools/call: got %s, want a task", body)
	}

	r, _ := http.NewRequestWithContext(t.Context(), "POST", e.url+"/mcp",
		strings.NewReader(modernReq(2, "subscriptions/listen", `"notifications":{"taskIds":["`+id+`","exec_not_mine"]}`, true)))
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range modernHeaders("subscriptions/listen", "") {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("subscriptions/listen: HTTP %d %s, want an SSE stream", resp.StatusCode, ct)
	}
	events := make(chan string)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			return ev
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s within 10s", what)
		}
		return ""
	}
	if ack := next("acknowledgement"); !strings.Contains(ack, `"notifications/subscriptions/acknowledged"`) ||
		!strings.Contains(ack, `"taskIds":["`+id+`"]`) || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":2`) {
		t.Fatalf("acknowledgement: got %s, want this agent's task only", ack)
	}
	if n := next("first notification"); !strings.Contains(n, `"method":"notifications/tasks"`) || !strings.Contains(n, `"status":"working"`) ||
		!strings.Contains(n, "queued") {
		t.Errorf("first notification: got %s, want the queued task", n)
	}
	if _, err := e.tracker.Poll(t.Context(), "ext-1", 10); err != nil {
		t.Fatal(err)
	}
	e.tracker.Report("ext-1", id, tracker.StatePending, nil, "")
	// Delivery and the start of the run may come as one change or two.
	for {
		n := next("running notification")
		if strings.Contains(n, "running in tab 7") {
			break
		}
		if !strings.Contains(n, `"status":"working"`) {
			t.Fatalf("notification before the run: got %s", n)
		}
	}
	e.tracker.Report("ext-1", id, tracker.StateComplete, json.RawMessage(`{"value":2}`), "")
	if n := next("completed notification"); !strings.Contains(n, `"status":"completed"`) || !strings.Contains(n, `"result":{"resultType":"complete"`) {
		t.Errorf("completed notification: got %s, want the task with its result", n)
	}
	if end := next("response"); !strings.Contains(end, `"id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}`) {
		t.Errorf("end of the subscription: got %s", end)
	}
}
