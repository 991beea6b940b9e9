package tracker_test

import (
	"testing"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestClientName: the unnamed client is DefaultClient; any other name is
// kept as given.
func TestClientName(t *testing.T) {
	if got := tracker.ClientName(""); got != tracker.DefaultClient {
		t.Errorf(`ClientName("") = %q, want %q`, got, tracker.DefaultClient)
	}
	if got := tracker.ClientName("agent-a"); got != "agent-a" {
		t.Errorf(`ClientName("agent-a") = %q, want it unchanged`, got)
	}
}
