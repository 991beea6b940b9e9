package daemon_test

import (
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// TestExtensionSkewNamed: an extension Chrome kept running after gasoline
// was rebuilt (one that sends no contract version, or another one) is named
// in observe tabs, configure health, a queued command's warning (an
// argument it does not know is ignored) and the error of a browser command
// it failed, with the step that fixes it; once an extension of this daemon's
// contract polls, nothing is said.
func TestExtensionSkewNamed(t *testing.T) {
	for _, tc := range []struct{ name, sent, want string }{
		{"older", "", "older than this daemon"},
		{"other", "0123456789ab", "contract 0123456789ab, this daemon's " + extcontract.Version},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := harness.StartDaemon(t, daemon.Options{})
			old := d.Extension("old-" + tc.name).Built(tc.sent)
			old.Poll(t, 0)
			fix := "chrome://extensions"

			tabs, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "tabs"})
			if got, _ := tabs["extension"].(string); isErr || !strings.Contains(got, tc.want) || !strings.Contains(got, fix) {
				t.Errorf("observe tabs: got %v, want extension naming %q and %q", tabs, tc.want, fix)
			}
			health, _ := d.Call(t, "agent", "configure", map[string]any{"action": "health"})
			if got, _ := harness.Field(health, "extension", "skew").(string); !strings.Contains(got, tc.want) {
				t.Errorf("health: got %v, want extension.skew naming %q", health, tc.want)
			}

			q, _ := d.Call(t, "agent", "interact", map[string]any{"action": "execute_js", "script": "1"})
			if got, _ := q["warning"].(string); !strings.Contains(got, tc.want) || !strings.Contains(got, fix) {
				t.Errorf("queued command: got %v, want a warning naming %q and %q", q, tc.want, fix)
			}
			id, _ := q["correlation_id"].(string)
			old.PollUntil(t, 1)
			old.Report(t, id, "error", nil, "unknown action execute_js; this extension supports click")
			res := d.Result(t, "agent", id, 5000)
			if got, _ := res["extension"].(string); !strings.Contains(got, tc.want) || !strings.Contains(got, fix) {
				t.Errorf("failed command: got %v, want extension naming %q and %q", res, tc.want, fix)
			}

			d.Extension("new-"+tc.name).Poll(t, 0) // the user reloaded it
			tabs, _ = d.Call(t, "agent", "observe", map[string]any{"what": "tabs"})
			if got, ok := tabs["extension"]; ok {
				t.Errorf("observe tabs after the reload: got extension %v, want none", got)
			}
		})
	}
}
