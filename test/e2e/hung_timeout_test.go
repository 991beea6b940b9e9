//go:build unix

package e2e

import (
	"testing"
	"time"
)

// hungFoundWithin is how soon a command on a tab whose last script ran into
// its deadline in a loop must answer tab_unresponsive: one short probe
// (0.5 s) instead of another deadline (a 3 s execute_js, an 8.4 s
// get_text); generous for a busy machine.
const hungFoundWithin = 2500 * time.Millisecond

// TestHungAfterTimeout: a script loops for 8 s with a 2 s deadline (too
// short for the probe before the deadline), so it ends as a plain
// execution_timeout. The next commands to that tab (execute_js, get_text)
// answer tab_unresponsive at once; once the loop has ended the tab works
// again, with no refresh.
func TestHungAfterTimeout(t *testing.T) {
	e := ready(t)
	r, _ := e.timed(map[string]any{"action": "new_tab", "url": e.site.URL + "/b"})
	tab := complete(t, r).TabID
	r, took := e.timed(map[string]any{"action": "execute_js", "tab_id": tab, "timeout_ms": 2000,
		"script": "const end = Date.now() + 8000; while (Date.now() < end) {} return 'done'"})
	t.Logf("the loop: %s %s after %v", r.Status, r.Reason, took.Round(time.Millisecond))
	if r.Status != "timeout" || r.Reason != "execution_timeout" {
		t.Fatalf("a script looping past its 2 s deadline: %s, want timeout execution_timeout", r)
	}
	for _, args := range []map[string]any{
		{"action": "execute_js", "script": "document.title", "tab_id": tab, "timeout_ms": 3000},
		{"action": "get_text", "selector": "h1", "tab_id": tab},
	} {
		r, took := e.timed(args)
		t.Logf("%s after the timeout: %s %s after %v", args["action"], r.Status, r.Reason, took.Round(time.Millisecond))
		if r.Status != "error" || r.Reason != "tab_unresponsive" || took > hungFoundWithin {
			t.Errorf("%s on the looping tab took %v and gave %s, want tab_unresponsive within %v", args["action"], took, r, hungFoundWithin)
		}
	}
	// The loop ends (8 s after it began): the tab answers again, and is
	// known to.
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		r, _ := e.timed(map[string]any{"action": "execute_js", "script": "document.title", "tab_id": tab, "timeout_ms": 3000})
		if r.Status == "complete" {
			got = str(t, complete(t, r))
			break
		}
		if r.Reason != "tab_unresponsive" && r.Reason != "execution_timeout" {
			t.Fatalf("execute_js while the loop ends: %s, want tab_unresponsive until it answers", r)
		}
	}
	if got != "Page B" {
		t.Fatalf("after the loop ended execute_js read %q, want \"Page B\"", got)
	}
	r, took = e.timed(map[string]any{"action": "get_text", "selector": "h1", "tab_id": tab})
	if r.Status != "complete" || took > hungFoundWithin {
		t.Errorf("get_text once the tab answers took %v: %s, want complete", took, r)
	}
}
