package tracker_test

import (
	"testing"

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
