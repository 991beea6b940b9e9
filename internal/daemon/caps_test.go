package daemon_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestGlobalQueueFull is finding 9 of issue 7 through the daemon: fresh
// client names meet the global cap, and the agent's queue_full error says
// which limit it hit.
func TestGlobalQueueFull(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{MaxActiveTotal: 5}})
	for i := range 5 {
		d.Submit(t, fmt.Sprintf("agent-%d", i), "1", nil)
	}
	res, isErr := d.Call(t, "agent-new", "interact", map[string]any{"action": "execute_js", "script": "1"})
	msg, _ := harness.Field(res, "error", "message").(string)
	if !isErr || harness.Field(res, "error", "code") != "queue_full" || !strings.Contains(msg, "across all clients") || !strings.Contains(msg, "--max-active-total") {
		t.Fatalf("got %v, want queue_full naming the global limit", res)
	}
}
