package tracker_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestReportReason: an extension may say a command failed because its page
// navigated, its tab did not answer, or an element action's target was
// wrong; any other reason, or the reason with another status, is
// refused and leaves the command as it was.
func TestReportReason(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	spec := tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js"}

	c := deliver(t, tr, spec)
	got, err := tr.ReportReason("ext", c.ID, tracker.StateError, tracker.ReasonNavigated, nil, nil, "the page navigated")
	if err != nil || got.State != tracker.StateError || got.Reason != tracker.ReasonNavigated || got.Error != "the page navigated" {
		t.Fatalf("navigated: got %+v, %v; want state error, reason navigated", got, err)
	}

	for _, reason := range []string{tracker.ReasonTabUnresponsive, tracker.ReasonNotFound, tracker.ReasonStaleRef, tracker.ReasonDisabled, tracker.ReasonCovered} {
		c = deliver(t, tr, spec)
		if got, err := tr.ReportReason("ext", c.ID, tracker.StateError, reason, nil, nil, "x"); err != nil || got.Reason != reason {
			t.Errorf("%s: got %+v, %v; want state error, reason %s", reason, got, err, reason)
		}
	}

	c = deliver(t, tr, spec)
	if got, err := tr.ReportReason("ext", c.ID, tracker.StateError, "", nil, nil, "boom"); err != nil || got.Reason != tracker.ReasonCommandError {
		t.Errorf("no reason: got %+v, %v; want command_error", got, err)
	}

	for _, tc := range []struct {
		name   string
		status tracker.State
		reason string
	}{
		{"unknown reason", tracker.StateError, "execution_timeout"},
		{"made-up reason", tracker.StateError, "because"},
		{"navigated with complete", tracker.StateComplete, tracker.ReasonNavigated},
		{"navigated with timeout", tracker.StateTimeout, tracker.ReasonNavigated},
		{"tab_unresponsive with timeout", tracker.StateTimeout, tracker.ReasonTabUnresponsive},
		{"not_found with complete", tracker.StateComplete, tracker.ReasonNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := deliver(t, tr, spec)
			if _, err := tr.ReportReason("ext", c.ID, tc.status, tc.reason, nil, nil, "x"); !errors.Is(err, tracker.ErrBadStatus) {
				t.Errorf("got %v, want ErrBadStatus", err)
			}
			if got := get(t, tr, c.ID); got.State != tracker.StatePending {
				t.Errorf("the refused report changed the command to %s", got.State)
			}
		})
	}
}

// TestExtensionReasonsAccepted: every element-action reason the extension
// posts (extension/actions/target.js REASONS) is one the tracker accepts, so
// a failure is never refused and lost on its way to the agent.
func TestExtensionReasonsAccepted(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "extension", "actions", "target.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export const REASONS = new Set\(\[([^\]]*)\]\)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("target.js has no REASONS set")
	}
	reasons := regexp.MustCompile(`'([a-z_]+)'`).FindAllSubmatch(m[1], -1)
	if len(reasons) < 5 {
		t.Fatalf("REASONS lists %d reasons; the parse is broken", len(reasons))
	}
	tr, _ := newTracker(t, tracker.Options{})
	spec := tracker.Spec{Client: "c", Prefix: "act", Action: "click"}
	for _, r := range append(reasons, [][]byte{nil, []byte(tracker.ReasonTabUnresponsive)}) {
		c := deliver(t, tr, spec)
		if _, err := tr.ReportReason("ext", c.ID, tracker.StateError, string(r[1]), nil, nil, "x"); err != nil {
			t.Errorf("reason %s: %v", r[1], err)
		}
	}
}
