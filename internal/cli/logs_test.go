package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

const sampleLog = `{"level":"info","pid":42,"port":7890,"version":"v1","time":"2026-01-02T03:04:05Z","message":"daemon started"}
{"level":"info","pid":42,"correlation_id":"exec_AAA","client":"c1","action":"execute_js","time":"2026-01-02T03:04:06Z","message":"command queued"}
panic: something the logger never saw
{"level":"warn","pid":42,"correlation_id":"exec_BBB","reason":"execution_timeout","time":"2026-01-02T03:04:07Z","message":"command failed"}
{"level":"info","pid":42,"correlation_id":"exec_AAA","state":"complete","time":"2026-01-02T03:04:08Z","message":"command finished"}
`

func writeLog(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "daemon.log"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLogsPretty(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	dir := writeLog(t, sampleLog)
	code, out, errOut := runCLI(t, "logs", "--state-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5:\n%s", len(lines), out)
	}
	// time, level, correlation id, message, then the other fields.
	if want := " INF exec_AAA command queued action=execute_js client=c1 pid=42"; !strings.HasSuffix(lines[1], want) {
		t.Errorf("line 2 = %q, want it to end %q", lines[1], want)
	}
	if strings.Contains(lines[1], "correlation_id=") || strings.Contains(lines[1], "\x1b[") {
		t.Errorf("line 2 = %q: the id belongs in front, and a pipe gets no colour", lines[1])
	}
	if lines[2] != "panic: something the logger never saw" {
		t.Errorf("a non-JSON line must pass unchanged, got %q", lines[2])
	}

	_, out, _ = runCLI(t, "logs", "--state-dir", dir, "--id", "exec_AAA")
	if got := strings.Count(out, "\n"); got != 2 || strings.Contains(out, "exec_BBB") {
		t.Errorf("--id exec_AAA printed %d lines:\n%s", got, out)
	}
	code, out, errOut = runCLI(t, "logs", "--state-dir", dir, "--id", "exec_UNKNOWN")
	if code == 0 || out != "" || !strings.Contains(errOut, "no line of") || !strings.Contains(errOut, "exec_UNKNOWN") {
		t.Errorf("--id of an id the log never names: exit %d, stdout %q, stderr %q; want a failure that says so", code, out, errOut)
	}
	_, out, _ = runCLI(t, "logs", "--state-dir", dir, "-n", "2")
	if got := strings.Split(strings.TrimSpace(out), "\n"); len(got) != 2 || !strings.Contains(got[1], "command finished") {
		t.Errorf("-n 2 printed:\n%s", out)
	}
	_, out, _ = runCLI(t, "logs", "--state-dir", dir, "--json", "-n", "1")
	if strings.TrimSpace(out) != strings.Split(strings.TrimSpace(sampleLog), "\n")[4] {
		t.Errorf("--json printed %q, want the line as written", out)
	}
}

func TestLogsMissing(t *testing.T) {
	code, _, errOut := runCLI(t, "logs", "--state-dir", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "gasoline daemon start") {
		t.Errorf("exit %d, %q; want an error saying how to get a log", code, errOut)
	}
}

// waitFor waits until buf contains want; the limit is far above any
// scheduling delay, not a timing assertion.
func waitFor(t *testing.T, buf *harness.SyncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(buf.String(), want) {
			return
		}
	}
	t.Fatalf("output never contained %q:\n%s", want, buf.String())
}

// TestLogsFollow appends to the log, writes a line in two pieces, then
// truncates the log as a new daemon.log would start, while -f follows.
func TestLogsFollow(t *testing.T) {
	dir := writeLog(t, sampleLog)
	path := filepath.Join(dir, "daemon.log")
	var out harness.SyncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int)
	go func() { done <- Run(ctx, []string{"logs", "-f", "-n", "1", "--state-dir", dir}, &out, &out) }()

	waitFor(t, &out, "command finished")
	if strings.Contains(out.String(), "daemon started") {
		t.Errorf("-n 1 printed more than the last line:\n%s", out.String())
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"level":"info","correlation_id":"exec_CCC","time":"2026-01-02T03:04:09Z","message":"comm`)
	f.Sync()
	f.WriteString(`and queued"}` + "\n")
	f.Close()
	waitFor(t, &out, "exec_CCC command queued")

	os.WriteFile(path, []byte(`{"level":"info","time":"2026-01-02T03:05:00Z","message":"daemon started again"}`+"\n"), 0o600)
	waitFor(t, &out, "daemon started again")

	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after interrupt, want 0:\n%s", code, out.String())
	}
}
