package tracker_test

import (
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestWaitingForUser: a pending command records the origin the extension
// asks the user to allow, a later plain pending keeps it, "" clears it, a
// final status drops it, and a command not pending is left as it was; the
// extension may fail a command with origin_not_allowed.
func TestWaitingForUser(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	spec := tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js"}

	queued := submit(t, tr, spec)
	if got := tr.WaitingForUser(queued.ID, "https://shop.example"); got.WaitingFor != "" {
		t.Errorf("queued command: WaitingFor %q, want none", got.WaitingFor)
	}
	c := poll(t, tr, "ext", 1)[0]
	report(t, tr, c.ID, tracker.StatePending, "")
	if got := tr.WaitingForUser(c.ID, "https://shop.example"); got.WaitingFor != "https://shop.example" {
		t.Fatalf("pending: WaitingFor %q", got.WaitingFor)
	}
	if got := report(t, tr, c.ID, tracker.StatePending, ""); got.WaitingFor != "https://shop.example" {
		t.Errorf("a plain pending cleared WaitingFor: %+v", got)
	}
	if got := tr.WaitingForUser(c.ID, ""); got.WaitingFor != "" {
		t.Errorf("answered: WaitingFor %q, want none", got.WaitingFor)
	}
	tr.WaitingForUser(c.ID, "https://shop.example")
	got, err := tr.ReportReason("ext", c.ID, tracker.StateError, tracker.ReasonOriginNotAllowed, nil, nil, "the user denied it")
	if err != nil || got.Reason != tracker.ReasonOriginNotAllowed || got.WaitingFor != "" {
		t.Fatalf("denied: %+v, %v; want reason origin_not_allowed and no WaitingFor", got, err)
	}
	if got := tr.WaitingForUser(c.ID, "https://shop.example"); got.WaitingFor != "" || got.State != tracker.StateError {
		t.Errorf("finished command changed: %+v", got)
	}
	if got := tr.WaitingForUser("exec_nope", "x"); got.ID != "" {
		t.Errorf("unknown id: %+v", got)
	}
}

// TestWaitingForUserMovesTheDeadline: asking the user moves the command's
// deadline out by UserAnswerWindow plus its timeout, once: it outlives its
// first deadline, a second ask does not move it again, and it times out
// at the moved deadline.
func TestWaitingForUserMovesTheDeadline(t *testing.T) {
	tr, clk := newTracker(t, tracker.Options{})
	c := deliver(t, tr, tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js", Timeout: 10 * time.Second})
	report(t, tr, c.ID, tracker.StatePending, "")
	// pass advances the clock by d a second at a time, the extension in touch.
	pass := func(d time.Duration) {
		for ; d > 0; d -= time.Second {
			clk.Advance(time.Second)
			tr.Touch("ext")
		}
	}
	pass(2 * time.Second)
	got := tr.WaitingForUser(c.ID, "https://shop.example")
	if want := 2*time.Second + tracker.UserAnswerWindow + 10*time.Second; got.Timeout != want {
		t.Errorf("Timeout after asking: got %v, want %v", got.Timeout, want)
	}
	pass(30 * time.Second)
	if got := get(t, tr, c.ID); got.State != tracker.StatePending {
		t.Fatalf("30 s into the user's window: %s %s, want pending", got.State, got.Reason)
	}
	tr.WaitingForUser(c.ID, "https://shop.example") // asked again: no further move
	tr.WaitingForUser(c.ID, "")
	pass(tracker.UserAnswerWindow + 10*time.Second - 31*time.Second)
	if got := get(t, tr, c.ID); got.State != tracker.StatePending {
		t.Fatalf("before the moved deadline: %s %s", got.State, got.Reason)
	}
	pass(2 * time.Second)
	eventually(t, "the moved deadline passes", func() bool { return get(t, tr, c.ID).State == tracker.StateTimeout })
}

// TestWaitingOn: a pending command records what its action waits for in
// the page, a later plain pending keeps it, "" clears it, a final status
// drops it, and a command not pending is left as it was.
func TestWaitingOn(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	spec := tracker.Spec{Client: "c", Prefix: "dom", Action: "click"}

	queued := submit(t, tr, spec)
	if got := tr.WaitingOn(queued.ID, "disabled: button 'Save' is disabled"); got.WaitingOn != "" {
		t.Errorf("queued command: WaitingOn %q, want none", got.WaitingOn)
	}
	c := poll(t, tr, "ext", 1)[0]
	report(t, tr, c.ID, tracker.StatePending, "")
	if got := tr.WaitingOn(c.ID, "disabled: button 'Save' is disabled"); got.WaitingOn != "disabled: button 'Save' is disabled" {
		t.Fatalf("pending: WaitingOn %q", got.WaitingOn)
	}
	if got := report(t, tr, c.ID, tracker.StatePending, ""); got.WaitingOn == "" {
		t.Errorf("a plain pending cleared WaitingOn: %+v", got)
	}
	if got := tr.WaitingOn(c.ID, ""); got.WaitingOn != "" {
		t.Errorf("no longer waiting: WaitingOn %q, want none", got.WaitingOn)
	}
	tr.WaitingOn(c.ID, "not_found: no element matches text \"Save\"")
	got := report(t, tr, c.ID, tracker.StateComplete, "{}")
	if got.WaitingOn != "" {
		t.Fatalf("complete: WaitingOn %q, want none", got.WaitingOn)
	}
	if got := tr.WaitingOn(c.ID, "x"); got.WaitingOn != "" || got.State != tracker.StateComplete {
		t.Errorf("finished command changed: %+v", got)
	}
	if got := tr.WaitingOn("dom_nope", "x"); got.ID != "" {
		t.Errorf("unknown id: %+v", got)
	}
}
