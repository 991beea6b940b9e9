package tools

import (
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestHintPerReason: every failure reason has a hint of its own, only
// execute_js's command_error talks about a script, and a frozen tab's hint
// names the two ways to recover it.
func TestHintPerReason(t *testing.T) {
	reasons := []string{
		tracker.ReasonExtensionNoResponse, tracker.ReasonExecutionTimeout, tracker.ReasonExtensionDisconnected,
		tracker.ReasonResultExpired, tracker.ReasonCancelled, tracker.ReasonCommandError, tracker.ReasonNavigated,
		tracker.ReasonWaitExpired, tracker.ReasonTabUnresponsive, tracker.ReasonOriginNotAllowed,
		tracker.ReasonNotFound, tracker.ReasonAmbiguous, tracker.ReasonNotVisible, tracker.ReasonDisabled,
		tracker.ReasonCovered, tracker.ReasonStaleRef, tracker.ReasonDetached, tracker.ReasonNotEditable,
		tracker.ReasonBadTarget, tracker.ReasonBadOption,
	}
	seen := map[string]string{}
	for _, r := range reasons {
		for _, action := range []string{"click", "close_tab", "navigate"} {
			h := hintFor(tracker.Command{Action: action, Reason: r})
			if h == "" {
				t.Errorf("%s %s: no hint", action, r)
			}
			if strings.Contains(strings.ToLower(h), "script") && r != tracker.ReasonTabUnresponsive && r != tracker.ReasonExecutionTimeout {
				t.Errorf("%s %s: hint %q talks about a script where none ran", action, r, h)
			}
		}
		h := hintFor(tracker.Command{Action: "click", Reason: r})
		if other, dup := seen[h]; dup {
			t.Errorf("reasons %s and %s share the hint %q", other, r, h)
		}
		seen[h] = r
	}
	if got := hintFor(tracker.Command{Action: "execute_js", Reason: tracker.ReasonCommandError}); got != scriptHint {
		t.Errorf("execute_js command_error: got %q, want the script hint %q", got, scriptHint)
	}
	h := hintFor(tracker.Command{Action: "execute_js", Reason: tracker.ReasonTabUnresponsive})
	for _, want := range []string{`"refresh"`, `"close_tab"`} {
		if !strings.Contains(h, want) {
			t.Errorf("tab_unresponsive hint %q does not name %s", h, want)
		}
	}
}
