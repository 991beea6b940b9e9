package bridge

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
)

// testPolicy is the daemon's table plus a stand-in for the draw-mode
// issue's analyze tool, whose annotations sessions are user-driven ("ann_"
// ids, waited for 55s by default).
var testPolicy = toolpolicy.NewTable(append(slices.Clone(toolpolicy.Default.Tools()), toolpolicy.Tool{
	Name: "analyze", Key: "what", Actions: []toolpolicy.Action{
		{Tool: "analyze", Name: "annotations", Prefix: "ann", BrowserBound: true, UserDriven: true},
		{Tool: "analyze", Name: "dom", Prefix: "dom", BrowserBound: true},
	},
}))

func call(tool, args string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

func TestTimeoutFor(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		msg  string
		want time.Duration
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 10 * s},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 10 * s},
		{"observe pending", call("observe", `{"what":"pending_commands"}`), 10 * s},
		{"observe unknown mode with wait_ms is not a wait", call("observe", `{"what":"nonsense","wait_ms":30000}`), 10 * s},
		{"observe logs wait", call("observe", `{"what":"logs","wait_ms":30000}`), 40 * s},
		{"observe logs without a wait", call("observe", `{"what":"logs"}`), 10 * s},
		{"observe vitals never waits", call("observe", `{"what":"vitals","wait_ms":30000}`), 10 * s},
		{"interact", call("interact", `{"action":"execute_js","script":"1"}`), 35 * s},
		{"analyze", call("analyze", `{"what":"dom"}`), 35 * s},
		{"unknown tool", call("nope", `{"what":"dom","wait_ms":30000}`), 10 * s},
		{"interact unknown action is browser-bound, not a wait", call("interact", `{"action":"fly","wait_ms":30000}`), 35 * s},
		{"interact cancel is not browser-bound", call("interact", `{"action":"cancel","correlation_id":"exec_1"}`), 10 * s},
		{"interact short wait keeps browser base", call("interact", `{"action":"execute_js","wait_ms":2000}`), 35 * s},
		{"interact long wait", call("interact", `{"action":"execute_js","wait_ms":30000}`), 40 * s},
		{"command_result wait", call("observe", `{"what":"command_result","correlation_id":"exec_1","wait_ms":5000}`), 15 * s},
		{"command_result fractional wait", call("observe", `{"what":"command_result","wait_ms":1500.5}`), 11*s + 500*time.Millisecond + 500*time.Microsecond},
		{"command_result no wait", call("observe", `{"what":"command_result","correlation_id":"exec_1"}`), 10 * s},
		{"completed_commands wait", call("observe", `{"what":"completed_commands","wait_ms":20000}`), 30 * s},
		{"query_status wait", call("configure", `{"action":"query_status","correlation_id":"exec_1","wait_ms":40000}`), 50 * s},
		{"configure health", call("configure", `{"action":"health","wait_ms":40000}`), 10 * s},
		{"ann_ default wait", call("observe", `{"what":"command_result","correlation_id":"ann_01J"}`), 65 * s},
		{"ann_ via query_status", call("configure", `{"action":"query_status","correlation_id":"ann_01J"}`), 65 * s},
		{"ann_ explicit wait", call("observe", `{"what":"command_result","correlation_id":"ann_01J","wait_ms":1000}`), 11 * s},
		{"wait above daemon max", call("observe", `{"what":"command_result","wait_ms":600000}`), 65 * s},
		{"negative wait", call("observe", `{"what":"command_result","wait_ms":-5}`), 10 * s},
		{"wait_ms as string is ignored", call("observe", `{"what":"command_result","wait_ms":"9000"}`), 10 * s},
		{"arguments not an object", call("interact", `"oops"`), 35 * s},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 10 * s},
		{"garbage", `{"jsonrpc":`, 10 * s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := peek([]byte(tt.msg), testPolicy)
			if got := DefaultTimeouts.For(&m); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTimeoutForCustom(t *testing.T) {
	to := Timeouts{Default: 200 * time.Millisecond, Browser: 500 * time.Millisecond, Max: time.Second}
	tests := []struct {
		msg  string
		want time.Duration
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200 * time.Millisecond},
		{call("interact", `{"action":"navigate"}`), 500 * time.Millisecond},
		{call("observe", `{"what":"command_result","wait_ms":300}`), 500 * time.Millisecond},
		{call("observe", `{"what":"command_result","wait_ms":5000}`), time.Second},
	}
	for _, tt := range tests {
		m := peek([]byte(tt.msg), testPolicy)
		if got := to.For(&m); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func TestMessageRouting(t *testing.T) {
	tests := []struct {
		name       string
		msg        string
		idempotent bool
		answerable bool
		label      string
		id         string
	}{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize"}`, true, true, "initialize", "0"},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, true, true, "ping", `"p"`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true, true, "tools/list", "1"},
		{"resources/list", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, true, true, "resources/list", "1"},
		{"prompts/list", `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, true, true, "prompts/list", "1"},
		{"observe", call("observe", `{"what":"pending_commands"}`), true, true, "tools/call observe", "7"},
		{"observe unknown mode", call("observe", `{"what":"nonsense"}`), false, true, "tools/call observe", "7"},
		{"observe logs", call("observe", `{"what":"logs","wait_ms":30000}`), true, true, "tools/call observe", "7"},
		{"observe completed_commands", call("observe", `{"what":"completed_commands","wait_ms":5000}`), false, true, "tools/call observe", "7"},
		{"configure query_status", call("configure", `{"action":"query_status"}`), true, true, "tools/call configure", "7"},
		{"configure health", call("configure", `{"action":"health"}`), true, true, "tools/call configure", "7"},
		{"configure store", call("configure", `{"action":"store"}`), false, true, "tools/call configure", "7"},
		{"interact", call("interact", `{"action":"execute_js"}`), false, true, "tools/call interact", "7"},
		{"analyze", call("analyze", `{"what":"annotations"}`), false, true, "tools/call analyze", "7"},
		{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, true, true, "server/discover", "1"},
		{"tasks/get", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"exec_1"}}`, true, true, "tasks/get", "1"},
		{"tasks/cancel", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"exec_1"}}`, false, true, "tasks/cancel", "1"},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"prompts/get"}`, false, true, "prompts/get", "1"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, false, "notifications/initialized", "null"},
		{"cancel notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, false, false, "notifications/cancelled", "null"},
		{"client response", `{"jsonrpc":"2.0","id":9,"result":{}}`, false, false, "the request", "9"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, true, true, "ping", "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, false, true, "the request", "null"},
		{"garbage", `not json`, false, true, "the request", "null"},
		{"leading space", ` {"jsonrpc":"2.0","id":2,"method":"ping"}`, true, true, "ping", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := peek([]byte(tt.msg), testPolicy)
			if got := m.idempotent(); got != tt.idempotent {
				t.Errorf("idempotent: got %v, want %v", got, tt.idempotent)
			}
			if got := m.answerable(); got != tt.answerable {
				t.Errorf("answerable: got %v, want %v", got, tt.answerable)
			}
			if got := m.label(); got != tt.label {
				t.Errorf("label: got %q, want %q", got, tt.label)
			}
			if got := string(m.replyID()); got != tt.id {
				t.Errorf("replyID: got %s, want %s", got, tt.id)
			}
		})
	}
}

func TestTimeoutMessage(t *testing.T) {
	m := peek([]byte(call("observe", `{"what":"pending_commands"}`)), testPolicy)
	got := timeoutMessage(&m, 35*time.Second)
	want := "gasoline daemon did not answer tools/call observe within 35s"
	if len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("got %q, want it to start with %q", got, want)
	}
}

func FuzzPeek(f *testing.F) {
	for _, s := range []string{
		call("observe", `{"what":"command_result","correlation_id":"ann_1","wait_ms":5000}`),
		call("interact", `{"action":"execute_js","wait_ms":1e308}`),
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[1,2]`, `{"id":`, `{"params":{"arguments":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m := peek(line, testPolicy)
		d := DefaultTimeouts.For(&m)
		if d <= 0 || d > DefaultTimeouts.Max {
			t.Fatalf("timeout %v out of (0, %v]", d, DefaultTimeouts.Max)
		}
		if id := m.replyID(); !json.Valid(id) {
			t.Fatalf("reply id %q is not valid JSON", id)
		}
		_ = m.idempotent()
		_ = m.label()
	})
}

func BenchmarkPeek(b *testing.B) {
	line := []byte(call("observe", `{"what":"command_result","correlation_id":"exec_01J8Z3K4M5N6P7Q8R9S0T1V2W3","wait_ms":5000}`))
	b.ReportAllocs()
	for b.Loop() {
		m := peek(line, testPolicy)
		DefaultTimeouts.For(&m)
	}
}
