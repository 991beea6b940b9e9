//go:build unix

package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// TestStartReplacesOutdatedDaemon: after an update the old daemon keeps
// running. 'daemon start' of the new gasoline leaves a busy one running and
// says what to run, and replaces an idle one.
func TestStartReplacesOutdatedDaemon(t *testing.T) {
	oldBin, err := harness.BuildDaemonVersion(t.TempDir(), "0.0.1-old")
	if err != nil {
		t.Fatal(err)
	}
	c := harness.NewEnv(t, bins)
	old := *c
	old.Bin.Daemon = oldBin
	if code, out := old.Gasoline("daemon", "start"); code != 0 {
		t.Fatalf("starting the old daemon: %d %s", code, out)
	}
	version := func() string {
		t.Helper()
		h, err := c.Health()
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		return h.Version
	}
	if v := version(); v != "0.0.1-old" {
		t.Fatalf("old daemon reports %q", v)
	}

	// Busy: a command waits in the queue.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Client().MCP(ctx, "agent", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"1"}}}`), false)
	if err != nil || !strings.Contains(string(resp), "queued") {
		t.Fatalf("queueing a command: %s %v", resp, err)
	}
	code, out := c.Gasoline("daemon", "start")
	if code != 0 || !strings.Contains(out, "left running") || !strings.Contains(out, "gasoline daemon stop && gasoline daemon start") {
		t.Errorf("start beside a busy old daemon: got %d %q, want it left running and the command to run", code, out)
	}
	if v := version(); v != "0.0.1-old" {
		t.Errorf("the busy old daemon was replaced (now %q)", v)
	}

	// Idle: the command is cancelled.
	id := between(string(resp), `correlation_id\":\"`, `\"`)
	if _, err := c.Client().MCP(ctx, "agent", []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"interact","arguments":{"action":"cancel","correlation_id":"`+id+`"}}}`), false); err != nil {
		t.Fatal(err)
	}
	code, out = c.Gasoline("daemon", "start")
	if code != 0 || !strings.Contains(out, "replacing it") || !strings.Contains(out, "started") {
		t.Errorf("start beside an idle old daemon: got %d %q, want it replaced", code, out)
	}
	if v := version(); v == "0.0.1-old" {
		t.Errorf("the idle old daemon still runs")
	}
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}
