package daemon_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/gasoline-mcp/gasoline/pkg/tracker/trackertest"
)

// The six scenarios of seed 000's "Testing Requirements", over real HTTP
// with a fake extension.

func TestFastPath(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
	id := d.Submit(t, "agent", "document.title", nil)
	q := ext.PollUntil(t, 1)[0]
	if q.CorrelationID != id || q.Action != "execute_js" || q.TimeoutMS != 10000 {
		t.Fatalf("got %+v, want %s execute_js with timeout 10000", q, id)
	}
	if got := ext.Report(t, id, "complete", map[string]any{"value": "Home Page"}, ""); got != 200 {
		t.Fatalf("report: got %d, want 200", got)
	}
	res := d.Result(t, "agent", id, 0) // first poll
	if res["status"] != "complete" || harness.Field(res, "result", "value") != "Home Page" {
		t.Fatalf("got %v, want complete with Home Page", res)
	}
}

// waitHook returns daemon options whose tracker signals on the channel
// returned when an agent's wait blocks (one signal kept; drain it before the
// call whose wait counts).
func waitHook() (daemon.Options, chan struct{}) {
	waiting := make(chan struct{}, 1)
	return daemon.Options{Tracker: tracker.Options{OnWait: func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}}}, waiting
}

// finishOnceWaiting runs finish once the agent's wait blocks (waiting is
// drained first of earlier calls' signals).
func finishOnceWaiting(t *testing.T, waiting chan struct{}, finish func()) {
	select {
	case <-waiting:
	default:
	}
	go func() {
		select {
		case <-waiting:
		case <-time.After(10 * time.Second):
			t.Error("the agent's wait never blocked")
		}
		finish()
	}()
}

func TestSlowPathPendingThenComplete(t *testing.T) {
	opts, waiting := waitHook()
	d := harness.StartDaemon(t, opts)
	ext := d.Extension("ext-1")
	id := d.Submit(t, "agent", "slow()", nil)
	ext.PollUntil(t, 1)
	if got := ext.Report(t, id, "pending", nil, ""); got != 200 {
		t.Fatalf("pending: got %d, want 200", got)
	}
	res := d.Result(t, "agent", id, 0)
	if res["status"] != "pending" || res["phase"] != "running" {
		t.Fatalf("got %v, want pending/running", res)
	}
	// The agent long-waits; the extension finishes meanwhile.
	finishOnceWaiting(t, waiting, func() { ext.Report(t, id, "complete", map[string]any{"value": 42}, "") })
	res = d.Result(t, "agent", id, 10000)
	if res["status"] != "complete" || harness.Field(res, "result", "value") != float64(42) {
		t.Fatalf("got %v, want complete 42", res)
	}
}

func TestTimeout(t *testing.T) {
	t.Run("extension posts timeout", func(t *testing.T) {
		d := harness.StartDaemon(t, daemon.Options{})
		ext := d.Extension("ext-1")
		id := d.Submit(t, "agent", "while(true){}", nil)
		ext.PollUntil(t, 1)
		ext.Report(t, id, "pending", nil, "")
		ext.Report(t, id, "timeout", nil, "script ran past its 10000 ms deadline")
		res := d.Result(t, "agent", id, 0)
		if res["status"] != "timeout" || res["reason"] != tracker.ReasonExecutionTimeout || res["hint"] == nil {
			t.Fatalf("got %v, want timeout/execution_timeout with a hint", res)
		}
	})
	t.Run("daemon deadline when the extension stays silent", func(t *testing.T) {
		d := harness.StartDaemon(t, daemon.Options{})
		ext := d.Extension("ext-1")
		id := d.Submit(t, "agent", "hang()", map[string]any{"timeout_ms": 300})
		ext.PollUntil(t, 1)
		ext.Report(t, id, "pending", nil, "")
		// Keep a long-poll open, as the real extension does, so it stays present.
		ext.Hold(5000)
		res := d.Result(t, "agent", id, 10000)
		if res["status"] != "timeout" || res["reason"] != tracker.ReasonExecutionTimeout {
			t.Fatalf("got %v, want timeout/execution_timeout", res)
		}
		if got := ext.Report(t, id, "complete", map[string]any{"value": 1}, ""); got != 409 {
			t.Errorf("late result: got %d, want 409 (terminal states never change)", got)
		}
	})
}

func TestExtensionDisconnect(t *testing.T) {
	// Each case shortens only the timer it is about; the other stays far
	// above any scheduling delay, so a descheduled fake extension cannot
	// trip it.
	t.Run("delivered and never answered", func(t *testing.T) {
		d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{AckTimeout: 300 * time.Millisecond}})
		ext := d.Extension("ext-1")
		id := d.Submit(t, "agent", "x", nil)
		ext.PollUntil(t, 1)
		ext.Hold(3000) // present, but never answers the command
		res := d.Result(t, "agent", id, 10000)
		if res["status"] != "expired" || res["reason"] != tracker.ReasonExtensionNoResponse {
			t.Fatalf("got %v, want expired/extension_no_response", res)
		}
		failed, _ := d.Call(t, "agent", "observe", map[string]any{"what": "failed_commands"})
		if failed["count"] != float64(1) {
			t.Fatalf("failed_commands: got %v, want 1 entry", failed)
		}
	})
	t.Run("acknowledged, then the extension goes away", func(t *testing.T) {
		d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{DisconnectGrace: 300 * time.Millisecond}})
		ext := d.Extension("ext-1")
		id := d.Submit(t, "agent", "x", nil)
		ext.PollUntil(t, 1)
		ext.Report(t, id, "pending", nil, "")
		// No more polls: the extension is gone.
		res := d.Result(t, "agent", id, 10000)
		if res["status"] != "error" || res["reason"] != tracker.ReasonExtensionDisconnected {
			t.Fatalf("got %v, want error/extension_disconnected", res)
		}
	})
	t.Run("queued commands wait for the next extension and run once", func(t *testing.T) {
		clock := trackertest.NewClock(time.Now())
		d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{Clock: clock, DisconnectGrace: 300 * time.Millisecond}})
		first := d.Extension("ext-1")
		first.Poll(t, 0)                      // seen once,
		clock.Advance(400 * time.Millisecond) // then gone
		id := d.Submit(t, "agent", "x", nil)
		second := d.Extension("ext-2")
		q := second.PollUntil(t, 1)
		if q[0].CorrelationID != id {
			t.Fatalf("got %s, want %s", q[0].CorrelationID, id)
		}
		if again := first.Poll(t, 200); len(again) != 0 {
			t.Fatalf("command delivered twice: %v", again)
		}
		second.Report(t, id, "complete", map[string]any{"value": "once"}, "")
		if res := d.Result(t, "agent", id, 0); res["status"] != "complete" {
			t.Fatalf("got %v, want complete", res)
		}
	})
}

func TestResultExpiry(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{ResultTTL: 300 * time.Millisecond}})
	ext := d.Extension("ext-1")
	id := d.Submit(t, "agent", "x", nil)
	ext.PollUntil(t, 1)
	ext.Report(t, id, "complete", map[string]any{"value": 1}, "")
	// The agent never reads it; wait for the TTL to move it to the failed buffer.
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _ := d.Call(t, "agent", "observe", map[string]any{"what": "failed_commands"})
		if st["count"] == float64(1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("result never expired: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := d.Result(t, "agent", id, 0)
	if res["status"] != "expired" || res["reason"] != tracker.ReasonResultExpired || res["hint"] == nil {
		t.Fatalf("got %v, want expired/result_expired with a hint", res)
	}
}

func TestConcurrentCommandsIsolated(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	const perClient = 10
	clients := []string{"agent-a", "agent-b"}
	ids := map[string]string{} // correlation id → client
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range clients {
		for i := range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := d.Submit(t, c, fmt.Sprintf("%s-%d", c, i), nil)
				mu.Lock()
				ids[id] = c
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	ext := d.Extension("ext-1")
	qs := ext.PollUntil(t, len(ids))
	rand.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	for _, q := range qs {
		var p struct{ Script string }
		_ = json.Unmarshal(q.Params, &p)
		if got := ext.Report(t, q.CorrelationID, "complete", map[string]any{"value": p.Script}, ""); got != 200 {
			t.Fatalf("report %s: got %d", q.CorrelationID, got)
		}
	}
	for id, c := range ids {
		res := d.Result(t, c, id, 0)
		if res["status"] != "complete" {
			t.Fatalf("%s: got %v", id, res)
		}
		if v, _ := harness.Field(res, "result", "value").(string); len(v) < len(c) || v[:len(c)] != c {
			t.Errorf("%s: got result %q, want one of %s's scripts", id, v, c)
		}
	}
	for _, c := range clients {
		l, _ := d.Call(t, c, "observe", map[string]any{"what": "pending_commands"})
		completed, _ := l["completed"].([]any)
		if len(completed) != perClient {
			t.Errorf("%s: got %d completed, want %d (its own only)", c, len(completed), perClient)
		}
		for _, e := range completed {
			id := e.(map[string]any)["correlation_id"].(string)
			if ids[id] != c {
				t.Errorf("%s sees %s's command %s", c, ids[id], id)
			}
		}
	}
}
