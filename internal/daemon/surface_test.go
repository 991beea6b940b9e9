package daemon_test

import (
	"encoding/json"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

func TestQueueFull(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	for range 32 {
		d.Submit(t, "greedy", "x", nil)
	}
	res, isErr := d.Call(t, "greedy", "interact", map[string]any{"action": "execute_js", "script": "x"})
	if !isErr || harness.Field(res, "error", "code") != "queue_full" || harness.Field(res, "error", "hint") == nil {
		t.Fatalf("33rd command: got %v (isError %v), want a queue_full tool error with a hint", res, isErr)
	}
	// Other clients are unaffected.
	d.Submit(t, "modest", "x", nil)
	l, _ := d.Call(t, "greedy", "observe", map[string]any{"what": "pending_commands"})
	if n := len(l["pending"].([]any)); n != 32 {
		t.Errorf("got %d pending, want 32: nothing dropped, nothing extra", n)
	}
}

func TestDispatchExpiry(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{DispatchTimeout: 300 * time.Millisecond}})
	res, _ := d.Call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "x"})
	if res["extension_connected"] != false || res["warning"] == nil {
		t.Errorf("got %v, want a warning that no extension is connected", res)
	}
	id := res["correlation_id"].(string)
	res = d.Result(t, "agent", id, 10000)
	if res["status"] != "expired" || res["reason"] != tracker.ReasonExtensionNoResponse ||
		!strings.Contains(res["hint"].(string), "pair") {
		t.Fatalf("got %v, want expired/extension_no_response with a pairing hint", res)
	}
}

func TestInlineWait(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
	go func() {
		for _, q := range ext.PollUntil(t, 1) {
			ext.Report(t, q.CorrelationID, "complete", map[string]any{"value": "inline"}, "")
		}
	}()
	res, _ := d.Call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "x", "wait_ms": 10000})
	if res["status"] != "complete" || harness.Field(res, "result", "value") != "inline" {
		t.Fatalf("got %v, want the result inline", res)
	}
	// A wait that ends first returns the handle.
	res, _ = d.Call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "y", "wait_ms": 50})
	if res["status"] != "queued" || res["correlation_id"] == nil {
		t.Fatalf("got %v, want the queued handle", res)
	}
}

func TestCancel(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	id := d.Submit(t, "agent", "x", nil)
	res, isErr := d.Call(t, "other", "interact", map[string]any{"action": "cancel", "correlation_id": id})
	if !isErr || harness.Field(res, "error", "code") != "unknown_correlation_id" {
		t.Fatalf("cancel by another client: got %v, want unknown_correlation_id", res)
	}
	res, isErr = d.Call(t, "agent", "interact", map[string]any{"action": "cancel", "correlation_id": id})
	if isErr || res["status"] != "cancelled" {
		t.Fatalf("got %v, want cancelled", res)
	}
	if qs := d.Extension("ext-1").Poll(t, 100); len(qs) != 0 {
		t.Fatalf("cancelled command delivered: %v", qs)
	}
	res, isErr = d.Call(t, "agent", "interact", map[string]any{"action": "cancel", "correlation_id": id})
	if !isErr || harness.Field(res, "error", "code") != "already_finished" {
		t.Fatalf("second cancel: got %v, want already_finished", res)
	}
}

func TestCompletedCommandsWaitForAny(t *testing.T) {
	opts, waiting := waitHook()
	d := harness.StartDaemon(t, opts)
	res, _ := d.Call(t, "agent", "observe", map[string]any{"what": "completed_commands", "wait_ms": 10000})
	if n := len(res["completed"].([]any)); n != 0 || res["running"] != float64(0) {
		t.Fatalf("nothing running: got %v, want an immediate empty list", res)
	}
	a := d.Submit(t, "agent", "a", nil)
	d.Submit(t, "agent", "b", nil)
	ext := d.Extension("ext-1")
	ext.PollUntil(t, 2)
	finishOnceWaiting(t, waiting, func() { ext.Report(t, a, "complete", map[string]any{"value": 1}, "") })
	res, _ = d.Call(t, "agent", "observe", map[string]any{"what": "completed_commands", "wait_ms": 10000})
	done := res["completed"].([]any)
	if len(done) != 1 || done[0].(map[string]any)["correlation_id"] != a || res["running"] != float64(1) {
		t.Fatalf("got %v, want exactly %s finished and 1 running", res, a)
	}
	// The async status reminds the agent of the unread result and the running one.
	st, _ := d.Call(t, "agent", "configure", map[string]any{"action": "health"})
	ready, _ := harness.Field(st, "async", "ready").([]any)
	if len(ready) != 1 || ready[0] != a || harness.Field(st, "async", "running") != float64(1) {
		t.Fatalf("got async %v, want %s ready and 1 running", st["async"], a)
	}
	d.Result(t, "agent", a, 0) // read it
	st, _ = d.Call(t, "agent", "configure", map[string]any{"action": "health"})
	if harness.Field(st, "async", "ready") != nil {
		t.Errorf("after reading: got async %v, want no ready entries", st["async"])
	}
}

func TestQueryStatusAlias(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	id := d.Submit(t, "agent", "x", nil)
	res, isErr := d.Call(t, "agent", "configure", map[string]any{"action": "query_status", "correlation_id": id})
	if isErr || res["status"] != "pending" || res["phase"] != "queued" {
		t.Fatalf("got %v, want pending/queued", res)
	}
}

func TestProtocolOverHTTP(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	rpc := func(body string) (int, map[string]any) {
		var m map[string]any
		code, out := d.Post(t, "/mcp", map[string]string{apitype.HeaderClient: "t"}, json.RawMessage(body))
		if len(out) > 0 {
			json.Unmarshal(out, &m)
		}
		return code, m
	}
	for _, v := range protocol.SupportedVersions {
		_, m := rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if got := harness.Field(m, "result", "protocolVersion"); got != v {
			t.Errorf("initialize %s: got %v", v, got)
		}
	}
	if code, _ := rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != 202 {
		t.Errorf("notification: got HTTP %d, want 202 and no body", code)
	}
	if _, m := rpc(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); m["result"] == nil {
		t.Errorf("ping: got %v", m)
	}
	if _, m := rpc(`{"jsonrpc":"2.0","id":3,"method":"prompts/get"}`); harness.Field(m, "error", "code") != float64(-32601) {
		t.Errorf("unknown method: got %v, want -32601", m)
	}
	if _, m := rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`); harness.Field(m, "error", "code") != float64(-32602) {
		t.Errorf("unknown tool: got %v, want -32602", m)
	}
	if _, m := rpc(`{not json`); harness.Field(m, "error", "code") != float64(-32700) {
		t.Errorf("garbage: got %v, want -32700", m)
	}
	_, m := rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	tools, _ := harness.Field(m, "result", "tools").([]any)
	if len(tools) != 4 {
		t.Fatalf("tools/list: got %v", m)
	}
	for _, tl := range tools {
		tm := tl.(map[string]any)
		desc, _ := tm["description"].(string)
		if tm["inputSchema"] == nil || !strings.Contains(desc, "correlation_id") {
			t.Errorf("tool %v: want an input schema and a description that teaches the correlation_id pattern", tm["name"])
		}
	}
	res, isErr := d.Call(t, "agent", "interact", map[string]any{"action": "fly"})
	if !isErr || !strings.Contains(harness.Field(res, "error", "hint").(string), "execute_js") {
		t.Errorf("unknown action: got %v, want a tool error listing the actions", res)
	}
	res, isErr = d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": "exec_x", "wait_ms": 60000})
	if !isErr || harness.Field(res, "error", "code") != "invalid_arguments" {
		t.Errorf("wait_ms over 55000: got %v, want invalid_arguments", res)
	}
}

func TestNonBlockingPoll(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("curl")
	if qs := ext.Poll(t, 0); len(qs) != 0 {
		t.Fatalf("empty queue: got %v", qs)
	}
	id := d.Submit(t, "agent", "x", nil)
	qs := ext.Poll(t, 0)
	if len(qs) != 1 || qs[0].CorrelationID != id {
		t.Fatalf("wait_ms=0 with a queued command: got %v, want %s at once", qs, id)
	}
}

func TestTabActions(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
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
			res, isErr := d.Call(t, "agent", "interact", tt.args)
			if tt.wantPrefix == "" {
				if !isErr || harness.Field(res, "error", "code") != "invalid_arguments" || harness.Field(res, "error", "hint") == nil {
					t.Fatalf("got %v, want an invalid_arguments tool error with a hint", res)
				}
				return
			}
			id, _ := res["correlation_id"].(string)
			if isErr || !strings.HasPrefix(id, tt.wantPrefix) {
				t.Fatalf("got %v, want a %s... handle", res, tt.wantPrefix)
			}
			q := ext.PollUntil(t, 1)[0]
			if q.CorrelationID != id || q.Action != tt.args["action"] || !sameJSON(q.Params, tt.wantParams) {
				t.Errorf("got %s %s %s, want %s %v %s", q.CorrelationID, q.Action, q.Params, id, tt.args["action"], tt.wantParams)
			}
			ext.Report(t, id, "complete", map[string]any{"ok": true}, "")
		})
	}
}

func TestAsyncStatusIsBounded(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("x")
	var ids []string
	for range 20 {
		ids = append(ids, d.Submit(t, "fanout", "x", nil))
	}
	st, _ := d.Call(t, "fanout", "configure", map[string]any{"action": "health"})
	if harness.Field(st, "async", "running") != float64(20) || harness.Field(st, "async", "ready") != nil {
		t.Fatalf("got async %v, want the count of 20 running and nothing ready", st["async"])
	}
	// With 20 results unread, the reminder lists the 3 oldest ids and the total.
	for _, q := range ext.PollUntil(t, len(ids)) {
		ext.Report(t, q.CorrelationID, "complete", map[string]any{"ok": true}, "")
	}
	st, _ = d.Call(t, "fanout", "configure", map[string]any{"action": "health"})
	ready, _ := harness.Field(st, "async", "ready").([]any)
	if len(ready) != 3 || ready[0] != ids[0] || harness.Field(st, "async", "ready_count") != float64(20) {
		t.Fatalf("got async %v, want the 3 oldest of 20 ready ids and the total", st["async"])
	}
}

// sameJSON reports whether got and want encode the same value, whatever the
// order of their object members.
func sameJSON(got json.RawMessage, want string) bool {
	var g, w any
	return json.Unmarshal(got, &g) == nil && json.Unmarshal([]byte(want), &w) == nil && reflect.DeepEqual(g, w)
}
