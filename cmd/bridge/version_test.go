//go:build unix

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// TestBridgeReplacesOutdatedDaemon: after an update, an agent's new
// gasoline-mcp finds the old daemon running; idle, it is replaced by the
// gasoline beside the bridge before the first call, and the bridge logs it.
func TestBridgeReplacesOutdatedDaemon(t *testing.T) {
	oldBin, err := harness.BuildDaemonVersion(t.TempDir(), "0.0.1-old")
	if err != nil {
		t.Fatal(err)
	}
	e := harness.NewEnv(t, bins)
	old := *e
	old.Bin.Daemon = oldBin
	if code, out := old.Gasoline("daemon", "start"); code != 0 {
		t.Fatalf("starting the old daemon: %d %s", code, out)
	}

	b := startBridge(e)
	b.request(1, "ping", nil)
	if r := b.recv(30 * time.Second); r.Error != nil {
		t.Fatalf("ping: %+v", r.Error)
	}
	h, err := e.Health()
	if err != nil || h.Version == "0.0.1-old" {
		t.Fatalf("daemon version %q (%v), want the bridge's own", h.Version, err)
	}
	if log := b.stderr.String(); !strings.Contains(log, "another version") || !strings.Contains(log, "0.0.1-old") {
		t.Errorf("the bridge did not log the replacement:\n%s", log)
	}
}
