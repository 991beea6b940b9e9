package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestViews pins what agents see of a command in each state: the exact
// JSON of command_result, of a list entry and of interact's handle.
func TestViews(t *testing.T) {
	created := time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC)
	finished := created.Add(1500 * time.Millisecond)
	now := created.Add(2 * time.Second)
	stored := &result.Stored{Handle: output.Handle{ID: "exec_3", Chars: 50000, Bytes: 50000, EstimatedTokens: 12500,
		SHA256: "ab", Preview: "<html>", Modes: []string{"slice", "extract"}}, Landmark: "<body"}
	cmds := map[string]tracker.Command{
		"queued":    {ID: "exec_1", Action: "execute_js", State: tracker.StateQueued, CreatedAt: created},
		"running":   {ID: "exec_1", Action: "execute_js", State: tracker.StatePending, Delivered: true, Acked: true, CreatedAt: created},
		"complete":  {ID: "exec_2", Action: "execute_js", State: tracker.StateComplete, Result: json.RawMessage(`{"value":"Home"}`), CreatedAt: created, FinishedAt: &finished},
		"stored":    {ID: "exec_3", Action: "execute_js", State: tracker.StateComplete, Attachment: stored, CreatedAt: created, FinishedAt: &finished},
		"error":     {ID: "exec_4", Action: "execute_js", State: tracker.StateError, Reason: tracker.ReasonCommandError, Error: "Uncaught x", CreatedAt: created, FinishedAt: &finished},
		"immediate": {ID: "exec_5", Action: "execute_js", State: tracker.StateComplete, Result: json.RawMessage(`1`), CreatedAt: created, FinishedAt: &created},
	}
	tl := &Tools{}
	tests := []struct {
		name string
		view any
		want string
	}{
		{"command_result queued", tl.commandView(cmds["queued"], now, false),
			`{"correlation_id":"exec_1","message":"wait with observe({what:\"command_result\", correlation_id, wait_ms:10000})","phase":"queued","status":"pending"}`},
		{"command_result running", tl.commandView(cmds["running"], now, false),
			`{"correlation_id":"exec_1","message":"wait with observe({what:\"command_result\", correlation_id, wait_ms:10000})","phase":"running","status":"pending"}`},
		{"command_result running, verbose", tl.commandView(cmds["running"], now, true),
			`{"action":"execute_js","correlation_id":"exec_1","created_at":"2026-01-27T10:00:00Z","elapsed_ms":2000,"message":"wait with observe({what:\"command_result\", correlation_id, wait_ms:10000})","phase":"running","status":"pending"}`},
		{"command_result complete", tl.commandView(cmds["complete"], now, false),
			`{"correlation_id":"exec_2","result":{"value":"Home"},"status":"complete"}`},
		{"command_result complete, verbose", tl.commandView(cmds["complete"], now, true),
			`{"action":"execute_js","correlation_id":"exec_2","created_at":"2026-01-27T10:00:00Z","duration_ms":1500,"finished_at":"2026-01-27T10:00:01.5Z","result":{"value":"Home"},"status":"complete"}`},
		{"command_result finished at once, verbose", tl.commandView(cmds["immediate"], now, true),
			`{"action":"execute_js","correlation_id":"exec_5","created_at":"2026-01-27T10:00:00Z","duration_ms":0,"finished_at":"2026-01-27T10:00:00Z","result":1,"status":"complete"}`},
		{"command_result error", tl.commandView(cmds["error"], now, false),
			`{"correlation_id":"exec_4","error":"Uncaught x","hint":"` + scriptHint + `","reason":"command_error","status":"error"}`},
		{"list entry complete", listEntryOf(cmds["complete"], now),
			`{"action":"execute_js","correlation_id":"exec_2","created_at":"2026-01-27T10:00:00Z","duration_ms":1500,"finished_at":"2026-01-27T10:00:01.5Z","read":false,"result_chars":16,"status":"complete"}`},
		{"list entry stored", listEntryOf(cmds["stored"], now),
			`{"action":"execute_js","correlation_id":"exec_3","created_at":"2026-01-27T10:00:00Z","duration_ms":1500,"finished_at":"2026-01-27T10:00:01.5Z","read":false,"result_chars":50000,"status":"complete","stored":true}`},
		{"list entry running", listEntryOf(cmds["running"], now),
			`{"action":"execute_js","correlation_id":"exec_1","created_at":"2026-01-27T10:00:00Z","elapsed_ms":2000,"phase":"running","status":"pending"}`},
		{"handle, extension away", queuedViewOf(cmds["queued"], false),
			`{"correlation_id":"exec_1","extension_connected":false,"message":"wait with observe({what:\"command_result\", correlation_id, wait_ms:10000})","status":"queued","warning":"No browser extension is connected right now, so the command waits in the queue (up to 30 s). Open Chrome with the gasoline extension loaded and paired ('gasoline pair'), or check configure({action:\"health\"})."}`},
		{"handle, running", queuedViewOf(cmds["running"], true),
			`{"correlation_id":"exec_1","message":"wait with observe({what:\"command_result\", correlation_id, wait_ms:10000})","phase":"running","status":"pending"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(encode(tt.view)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}

	t.Run("command_result stored", func(t *testing.T) {
		v := tl.commandView(cmds["stored"], now, false)
		var res storedView
		if err := json.Unmarshal(v.Result, &res); err != nil || !res.Stored || res.Output.ID != "exec_3" || res.Output.Chars != 50000 {
			t.Fatalf("result %s: want the stored handle (%v)", v.Result, err)
		}
		for _, want := range []string{`anchor:"<body"`, `correlation_id:"exec_3"`, `mode:"extract"`} {
			if !strings.Contains(res.Output.Hint, want) || !strings.Contains(v.Message, want) {
				t.Errorf("hint %q / message %q: want %s in both", res.Output.Hint, v.Message, want)
			}
		}
		if !strings.HasPrefix(v.Message, "The result is large (50000 chars, ~12500 tokens)") {
			t.Errorf("message %q: want it to state the size", v.Message)
		}
	})
}

// TestAsyncStatus checks the reminder every result carries: added at the
// end of the encoded result, without the command the result is about, and
// unchanged for other clients' reads.
func TestAsyncStatus(t *testing.T) {
	e := newEnv(t)
	first := e.call(t, "agent", "interact", `{"action":"execute_js","script":"1"}`).field("correlation_id").(string)
	second := e.call(t, "agent", "interact", `{"action":"execute_js","script":"2"}`).field("correlation_id").(string)

	r := e.call(t, "agent", "observe", `{"what":"failed_commands"}`)
	if !strings.HasSuffix(r.Text, `"async":{"running":2}}`) {
		t.Errorf("got %s, want the async reminder last, with 2 running", r.Text)
	}
	r = e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+first+`"}`)
	if r.field("async", "running") != float64(1) || strings.Contains(string(encode(r.field("async"))), first) {
		t.Errorf("got %s, want the async reminder without the command the result is about", r.Text)
	}
	if r := e.call(t, "someone-else", "observe", `{"what":"pending_commands"}`); r.field("async") != nil {
		t.Errorf("another client: got %s, want no async status", r.Text)
	}

	// The first command completes; another client reading it does not
	// mark it read for its owner.
	e.delivered(t)
	if _, err := e.keep.Report("ext", reportOf(first, `{"value":"done"}`)); err != nil {
		t.Fatal(err)
	}
	e.call(t, "someone-else", "observe", `{"what":"command_result","correlation_id":"`+first+`"}`)
	r = e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+second+`"}`)
	ready, _ := r.field("async", "ready").([]any)
	if len(ready) != 1 || ready[0] != first {
		t.Errorf("got %s, want %s ready for its owner", r.Text, first)
	}
}

// TestReadHint checks the hint of a stored output: a ready-to-use call
// with the command's id, in the modes that work for its size.
func TestReadHint(t *testing.T) {
	small := output.Handle{Chars: 11, EstimatedTokens: 3, Modes: []string{"raw", "slice", "extract"}}
	large := output.Handle{Chars: 100000, EstimatedTokens: 25000, Modes: []string{"slice", "extract"}}
	cut := large
	cut.Truncated, cut.Bytes, cut.OriginalBytes = true, 10<<20, 11<<20
	tests := []struct {
		name string
		s    result.Stored
		want []string
	}{
		{"small", result.Stored{Handle: small}, []string{`mode:"raw"`, `correlation_id:"exec_1"`}},
		{"large", result.Stored{Handle: large}, []string{`mode:"slice", start:0, length:2000`, `mode:"extract"`, `correlation_id:"exec_1"`, "100000 chars"}},
		{"large form", result.Stored{Handle: large, Landmark: "<form"}, []string{`anchor:"<form"`, "window:2000"}},
		{"truncated", result.Stored{Handle: cut}, []string{"Only the first 10485760 of 11534336 bytes were kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readHint("exec_1", &tt.s)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("hint %q does not contain %q", got, w)
				}
			}
		})
	}
}
