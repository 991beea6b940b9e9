package daemon_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

func TestQueueFull(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	for range 32 {
		d.submit(t, "greedy", "x", nil)
	}
	res, isErr := d.call(t, "greedy", "interact", map[string]any{"action": "execute_js", "script": "x"})
	if !isErr || field(res, "error", "code") != "queue_full" || field(res, "error", "hint") == nil {
		t.Fatalf("33rd command: got %v (isError %v), want a queue_full tool error with a hint", res, isErr)
	}
	// Other clients are unaffected.
	d.submit(t, "modest", "x", nil)
	l, _ := d.call(t, "greedy", "observe", map[string]any{"what": "pending_commands"})
	if n := len(l["pending"].([]any)); n != 32 {
		t.Errorf("got %d pending, want 32: nothing dropped, nothing extra", n)
	}
}

func TestDispatchExpiry(t *testing.T) {
	d := startDaemon(t, tracker.Options{DispatchTimeout: 300 * time.Millisecond})
	res, _ := d.call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "x"})
	if res["extension_connected"] != false || res["warning"] == nil {
		t.Errorf("got %v, want a warning that no extension is connected", res)
	}
	id := res["correlation_id"].(string)
	res = d.result(t, "agent", id, 10000)
	if res["status"] != "expired" || res["reason"] != tracker.ReasonExtensionNoResponse ||
		!strings.Contains(res["hint"].(string), "pair") {
		t.Fatalf("got %v, want expired/extension_no_response with a pairing hint", res)
	}
}

func TestInlineWait(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	ext := d.extension("ext-1")
	go func() {
		for _, q := range ext.pollUntil(t, 1) {
			ext.report(t, q.CorrelationID, "complete", map[string]any{"value": "inline"}, "")
		}
	}()
	res, _ := d.call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "x", "wait_ms": 10000})
	if res["status"] != "complete" || field(res, "result", "value") != "inline" {
		t.Fatalf("got %v, want the result inline", res)
	}
	// A wait that ends first returns the handle.
	res, _ = d.call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "y", "wait_ms": 50})
	if res["status"] != "queued" || res["correlation_id"] == nil {
		t.Fatalf("got %v, want the queued handle", res)
	}
}

func TestCancel(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	id := d.submit(t, "agent", "x", nil)
	res, isErr := d.call(t, "other", "interact", map[string]any{"action": "cancel", "correlation_id": id})
	if !isErr || field(res, "error", "code") != "unknown_correlation_id" {
		t.Fatalf("cancel by another client: got %v, want unknown_correlation_id", res)
	}
	res, isErr = d.call(t, "agent", "interact", map[string]any{"action": "cancel", "correlation_id": id})
	if isErr || res["status"] != "cancelled" {
		t.Fatalf("got %v, want cancelled", res)
	}
	if qs := d.extension("ext-1").poll(t, 100); len(qs) != 0 {
		t.Fatalf("cancelled command delivered: %v", qs)
	}
	res, isErr = d.call(t, "agent", "interact", map[string]any{"action": "cancel", "correlation_id": id})
	if !isErr || field(res, "error", "code") != "already_finished" {
		t.Fatalf("second cancel: got %v, want already_finished", res)
	}
}

func TestCompletedCommandsWaitForAny(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	res, _ := d.call(t, "agent", "observe", map[string]any{"what": "completed_commands", "wait_ms": 10000})
	if n := len(res["completed"].([]any)); n != 0 || res["running"] != float64(0) {
		t.Fatalf("nothing running: got %v, want an immediate empty list", res)
	}
	a := d.submit(t, "agent", "a", nil)
	d.submit(t, "agent", "b", nil)
	ext := d.extension("ext-1")
	ext.pollUntil(t, 2)
	go func() {
		time.Sleep(50 * time.Millisecond)
		ext.report(t, a, "complete", map[string]any{"value": 1}, "")
	}()
	res, _ = d.call(t, "agent", "observe", map[string]any{"what": "completed_commands", "wait_ms": 10000})
	done := res["completed"].([]any)
	if len(done) != 1 || done[0].(map[string]any)["correlation_id"] != a || res["running"] != float64(1) {
		t.Fatalf("got %v, want exactly %s finished and 1 running", res, a)
	}
	// The async status reminds the agent of the unread result and the running one.
	st, _ := d.call(t, "agent", "configure", map[string]any{"action": "health"})
	ready, _ := field(st, "async", "ready").([]any)
	running, _ := field(st, "async", "running").([]any)
	if len(ready) != 1 || len(running) != 1 {
		t.Fatalf("got async %v, want 1 ready and 1 running", st["async"])
	}
	d.result(t, "agent", a, 0) // read it
	st, _ = d.call(t, "agent", "configure", map[string]any{"action": "health"})
	if field(st, "async", "ready") != nil {
		t.Errorf("after reading: got async %v, want no ready entries", st["async"])
	}
}

func TestQueryStatusAlias(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	id := d.submit(t, "agent", "x", nil)
	res, isErr := d.call(t, "agent", "configure", map[string]any{"action": "query_status", "correlation_id": id})
	if isErr || res["status"] != "pending" || res["phase"] != "queued" {
		t.Fatalf("got %v, want pending/queued", res)
	}
}

func TestProtocolOverHTTP(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	rpc := func(body string) (int, map[string]any) {
		var m map[string]any
		code, out := d.post(t, "/mcp", nil, json.RawMessage(body))
		if len(out) > 0 {
			json.Unmarshal(out, &m)
		}
		return code, m
	}
	for _, v := range protocol.SupportedVersions {
		_, m := rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if got := field(m, "result", "protocolVersion"); got != v {
			t.Errorf("initialize %s: got %v", v, got)
		}
	}
	if code, _ := rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != 202 {
		t.Errorf("notification: got HTTP %d, want 202 and no body", code)
	}
	if _, m := rpc(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); m["result"] == nil {
		t.Errorf("ping: got %v", m)
	}
	if _, m := rpc(`{"jsonrpc":"2.0","id":3,"method":"server/discover"}`); field(m, "error", "code") != float64(-32601) {
		t.Errorf("unknown method: got %v, want -32601", m)
	}
	if _, m := rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`); field(m, "error", "code") != float64(-32602) {
		t.Errorf("unknown tool: got %v, want -32602", m)
	}
	if _, m := rpc(`{not json`); field(m, "error", "code") != float64(-32700) {
		t.Errorf("garbage: got %v, want -32700", m)
	}
	_, m := rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	tools, _ := field(m, "result", "tools").([]any)
	if len(tools) != 3 {
		t.Fatalf("tools/list: got %v", m)
	}
	for _, tl := range tools {
		tm := tl.(map[string]any)
		desc, _ := tm["description"].(string)
		if tm["inputSchema"] == nil || !strings.Contains(desc, "correlation_id") {
			t.Errorf("tool %v: want an input schema and a description that teaches the correlation_id pattern", tm["name"])
		}
	}
	res, isErr := d.call(t, "agent", "interact", map[string]any{"action": "fly"})
	if !isErr || !strings.Contains(field(res, "error", "hint").(string), "execute_js") {
		t.Errorf("unknown action: got %v, want a tool error listing the actions", res)
	}
	res, isErr = d.call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": "exec_x", "wait_ms": 60000})
	if !isErr || field(res, "error", "code") != "invalid_arguments" {
		t.Errorf("wait_ms over 55000: got %v, want invalid_arguments", res)
	}
}

func TestNonBlockingPoll(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	ext := d.extension("curl")
	if qs := ext.poll(t, 0); len(qs) != 0 {
		t.Fatalf("empty queue: got %v", qs)
	}
	id := d.submit(t, "agent", "x", nil)
	qs := ext.poll(t, 0)
	if len(qs) != 1 || qs[0].CorrelationID != id {
		t.Fatalf("wait_ms=0 with a queued command: got %v, want %s at once", qs, id)
	}
}

func TestTabActions(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	ext := d.extension("ext-1")
	tests := []struct {
		name       string
		args       map[string]any
		wantPrefix string // "" means a tool error
		wantParams string
	}{
		{"navigate", map[string]any{"action": "navigate", "url": "http://127.0.0.1:8000/a", "tab_id": 7}, "nav_", `{"tab_id":7,"url":"http://127.0.0.1:8000/a"}`},
		{"navigate without url", map[string]any{"action": "navigate"}, "", ""},
		{"navigate to javascript:", map[string]any{"action": "navigate", "url": "javascript:alert(1)"}, "", ""},
		{"new tab", map[string]any{"action": "new_tab", "url": "about:blank", "active": false}, "tab_", `{"active":false,"url":"about:blank"}`},
		{"switch tab", map[string]any{"action": "switch_tab", "tab_id": 3}, "tab_", `{"tab_id":3}`},
		{"switch tab without id", map[string]any{"action": "switch_tab"}, "", ""},
		{"close tab", map[string]any{"action": "close_tab"}, "tab_", `{}`},
		{"execute_js without script", map[string]any{"action": "execute_js"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, isErr := d.call(t, "agent", "interact", tt.args)
			if tt.wantPrefix == "" {
				if !isErr || field(res, "error", "code") != "invalid_arguments" || field(res, "error", "hint") == nil {
					t.Fatalf("got %v, want an invalid_arguments tool error with a hint", res)
				}
				return
			}
			id, _ := res["correlation_id"].(string)
			if isErr || !strings.HasPrefix(id, tt.wantPrefix) {
				t.Fatalf("got %v, want a %s... handle", res, tt.wantPrefix)
			}
			q := ext.pollUntil(t, 1)[0]
			if q.CorrelationID != id || q.Action != tt.args["action"] || string(q.Params) != tt.wantParams {
				t.Errorf("got %s %s %s, want %s %v %s", q.CorrelationID, q.Action, q.Params, id, tt.args["action"], tt.wantParams)
			}
			ext.report(t, id, "complete", map[string]any{"ok": true}, "")
		})
	}
}

func TestAsyncStatusIsBounded(t *testing.T) {
	d := startDaemon(t, tracker.Options{})
	for range 20 {
		d.submit(t, "fanout", "x", nil)
	}
	st, _ := d.call(t, "fanout", "configure", map[string]any{"action": "health"})
	running, _ := field(st, "async", "running").([]any)
	if len(running) != 8 || field(st, "async", "running_count") != float64(20) || field(st, "async", "more") == nil {
		t.Fatalf("got async %v, want the 8 oldest of 20 running, the total, and where to see all", st["async"])
	}
	// The oldest are listed first.
	l, _ := d.call(t, "fanout", "observe", map[string]any{"what": "pending_commands"})
	oldest := l["pending"].([]any)[0].(map[string]any)["correlation_id"]
	if running[0].(map[string]any)["correlation_id"] != oldest {
		t.Errorf("got %v first, want the oldest command %v", running[0], oldest)
	}
}
