package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/internal/task"
	"github.com/gasoline-mcp/gasoline/internal/testgen"
	"github.com/rs/zerolog"
)

// fakePlaywright installs a Playwright CLI that reports one passed test
// once the file it returns exists: the run lasts as long as the test wants.
func fakePlaywright(t *testing.T) (release string) {
	t.Helper()
	dir := t.TempDir()
	cli := filepath.Join(dir, "node_modules", "@playwright", "test", "cli.js")
	if err := os.MkdirAll(filepath.Dir(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	release = filepath.Join(dir, "go")
	script := `const fs = require('fs');
const report = JSON.stringify({suites: [{specs: [{ok: true, tests: [{results: [{status: 'passed'}]}]}]}]});
const t = setInterval(() => { if (fs.existsSync(` + "`" + release + "`" + `)) { clearInterval(t); process.stdout.write(report); } }, 20);
`
	if err := os.WriteFile(cli, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(testgen.EnvPlaywright, cli)
	return release
}

// analyze test with verify runs as a task for a client that asked for one
// (both eras): answered at once, working while Playwright runs, its result
// the verdict; tasks/cancel stops the run.
func TestAnalyzeVerifyAsTask(t *testing.T) {
	release := fakePlaywright(t)
	capt := capture.New(capture.Options{})
	t.Cleanup(capt.Close)
	recordLogin(t, capt)
	e := newEnv(t, func(d *Deps) {
		d.Capture = capt
		d.Results = result.NewKeeper(d.Tracker, output.New(output.Options{}), zerolog.Nop())
	})
	e.s.SetTasks(task.New(e.trk))
	ctx := context.Background()
	rpc := func(client, method, params string) map[string]any {
		t.Helper()
		out := e.s.Handle(ctx, client, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		var r struct {
			Result map[string]any `json:"result"`
		}
		if json.Unmarshal(out, &r) != nil || r.Result == nil {
			t.Fatalf("%s: got %s", method, out)
		}
		return r.Result
	}

	// 2025-11-25: a task-augmented call.
	created := rpc("agent", "tools/call", `{"name":"analyze","task":{},"arguments":{"what":"test","tab_id":7,"verify":true}}`)
	tk, _ := created["task"].(map[string]any)
	id, _ := tk["taskId"].(string)
	if tk["status"] != "working" || id == "" {
		t.Fatalf("verify with a task: got %v, want a working task at once", created)
	}
	if got := rpc("agent", "tasks/get", `{"taskId":"`+id+`"}`); got["status"] != "working" || !strings.Contains(got["statusMessage"].(string), "analyze") {
		t.Errorf("tasks/get while Playwright runs: got %v", got)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := rpc("agent", "tasks/result", `{"taskId":"`+id+`"}`)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["verified"] != "passed" || res["isError"] == true || !strings.Contains(sc["file"].(string), "getByTestId('sign-in')") {
		t.Errorf("tasks/result: got %v, want the passed verdict with the test", res)
	}
	os.Remove(release)

	// The Tasks extension (2026-07-28): the same, then cancelled.
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	created = rpc("agent-a", "tools/call", `{`+meta+`,"name":"analyze","arguments":{"what":"test","tab_id":7,"verify":true}}`)
	id, _ = created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" {
		t.Fatalf("verify at 2026-07-28: got %v, want a task", created)
	}
	rpc("agent-a", "tasks/cancel", `{`+meta+`,"taskId":"`+id+`"}`)
	if got := rpc("agent-a", "tasks/get", `{`+meta+`,"taskId":"`+id+`"}`); got["status"] != "cancelled" {
		t.Errorf("tasks/get after tasks/cancel: got %v", got)
	}
	// Without verify, or without a task, the call answers inline.
	if r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":7}`); r.IsError || !strings.Contains(r.Text, "not run") {
		t.Errorf("analyze test without verify: got %s", r.Text)
	}
}
