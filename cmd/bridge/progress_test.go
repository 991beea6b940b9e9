//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// TestProgressRelayed: a tool call with _meta.progressToken waiting on a
// command no extension takes gets the daemon's progress notifications on
// stdout as they come, then its response; and its timeout counts from the
// last message, so a wait far longer than the bridge's timeouts completes.
func TestProgressRelayed(t *testing.T) {
	e := harness.NewEnv(t, bins)
	if code, out := e.Gasoline("daemon", "start", "--progress-every=100ms"); code != 0 {
		t.Fatalf("daemon start: %d %s", code, out)
	}
	// Every timeout is far below the 3 s wait.
	b := startBridge(e, "--timeout=600ms", "--browser-timeout=600ms", "--max-timeout=700ms")
	b.request(1, "tools/call", map[string]any{
		"name":      "interact",
		"arguments": map[string]any{"action": "execute_js", "script": "1", "wait_ms": 3000},
		"_meta":     map[string]any{"progressToken": "p-1"},
	})
	var progress []map[string]any
	for {
		var line []byte
		select {
		case l, ok := <-b.lines:
			if !ok {
				t.Fatalf("gasoline-mcp closed stdout; stderr:\n%s", b.stderr.String())
			}
			line = l
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer within 30 s after %d progress notifications", len(progress))
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		if m["method"] == "notifications/progress" {
			progress = append(progress, m)
			continue
		}
		if m["id"] != float64(1) || m["error"] != nil {
			t.Fatalf("response %s, want the result of request 1", line)
		}
		break
	}
	if len(progress) < 2 {
		t.Fatalf("%d progress notifications during a 3 s wait reported every 100 ms, want several", len(progress))
	}
	p, _ := progress[0]["params"].(map[string]any)
	if msg, _ := p["message"].(string); p["progressToken"] != "p-1" || !strings.Contains(msg, "execute_js") {
		t.Errorf("progress %v, want token p-1 and a message about the command", progress[0])
	}

	// Without a progress token the same wait times out as before.
	b.tool(2, "interact", map[string]any{"action": "execute_js", "script": "2", "wait_ms": 3000})
	if r := b.recv(30 * time.Second); r.Error == nil || r.Error.Code != -32001 {
		t.Errorf("without progress: got %+v, want the bridge's timeout error", r)
	}
}
