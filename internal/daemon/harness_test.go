package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// testDaemon is a real daemon.Run on a free 127.0.0.1 port.
type testDaemon struct {
	url   string
	token string
	dir   string
	ids   atomic.Int64
}

func startDaemon(t *testing.T, topts tracker.Options) *testDaemon {
	t.Helper()
	dir := t.TempDir()
	ready := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Options{
			Port: 0, StateDir: dir, Tracker: topts, LogLevel: zerolog.DebugLevel,
			LogTo: zerolog.NewTestWriter(t), Ready: func(a net.Addr) { ready <- a },
		})
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("daemon exited: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not start")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon.Run: %v", err)
		}
	})
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return &testDaemon{url: "http://" + addr.String(), token: strings.TrimSpace(string(tok)), dir: dir}
}

func (d *testDaemon) post(t *testing.T, path string, headers map[string]string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, d.url+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+d.token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// call invokes an MCP tool as client and returns its structuredContent and isError.
func (d *testDaemon) call(t *testing.T, client, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": d.ids.Add(1), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}}
	code, body := d.post(t, "/mcp", map[string]string{apitype.HeaderClient: client}, msg)
	if code != 200 {
		t.Fatalf("tools/call %s: HTTP %d %s", tool, code, body)
	}
	var resp struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
			Content           []struct{ Text string }
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	if resp.Error != nil {
		t.Fatalf("tools/call %s: JSON-RPC error %s", tool, resp.Error.Message)
	}
	return resp.Result.StructuredContent, resp.Result.IsError
}

// submit runs interact execute_js and returns the correlation id.
func (d *testDaemon) submit(t *testing.T, client, script string, extra map[string]any) string {
	t.Helper()
	args := map[string]any{"action": "execute_js", "script": script}
	for k, v := range extra {
		args[k] = v
	}
	res, isErr := d.call(t, client, "interact", args)
	if isErr {
		t.Fatalf("interact: %v", res)
	}
	if res["status"] != "queued" {
		t.Fatalf("interact: got status %v, want queued", res["status"])
	}
	id, _ := res["correlation_id"].(string)
	if !strings.HasPrefix(id, "exec_") {
		t.Fatalf("got correlation_id %q, want exec_...", id)
	}
	return id
}

func (d *testDaemon) result(t *testing.T, client, id string, waitMS int) map[string]any {
	t.Helper()
	res, isErr := d.call(t, client, "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": waitMS})
	if isErr {
		t.Fatalf("command_result %s: %v", id, res)
	}
	return res
}

// fakeExtension speaks the extension's HTTP protocol, as curl would.
type fakeExtension struct {
	d        *testDaemon
	instance string
}

func (d *testDaemon) extension(instance string) *fakeExtension {
	return &fakeExtension{d: d, instance: instance}
}

func (x *fakeExtension) poll(t *testing.T, waitMS int) []apitype.PendingQuery {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/pending-queries?wait_ms=%d", x.d.url, waitMS), nil)
	req.Header.Set("Authorization", "Bearer "+x.d.token)
	req.Header.Set(apitype.HeaderExtensionInstance, x.instance)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	defer resp.Body.Close()
	var pq apitype.PendingQueries
	if err := json.NewDecoder(resp.Body).Decode(&pq); err != nil || resp.StatusCode != 200 {
		t.Fatalf("poll: HTTP %d, %v", resp.StatusCode, err)
	}
	return pq.Queries
}

// pollUntil polls until it has received n commands.
func (x *fakeExtension) pollUntil(t *testing.T, n int) []apitype.PendingQuery {
	t.Helper()
	var got []apitype.PendingQuery
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		got = append(got, x.poll(t, 2000)...)
	}
	if len(got) != n {
		t.Fatalf("got %d commands, want %d", len(got), n)
	}
	return got
}

func (x *fakeExtension) report(t *testing.T, id, status string, result any, errMsg string) int {
	t.Helper()
	body := map[string]any{"correlation_id": id, "status": status}
	if result != nil {
		body["result"] = result
	}
	if errMsg != "" {
		body["error"] = errMsg
	}
	code, _ := x.d.post(t, "/query-result", map[string]string{apitype.HeaderExtensionInstance: x.instance}, body)
	return code
}

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// hold keeps a long-poll open in the background, as the real extension does
// while it runs commands, so the daemon sees it present. Errors are ignored:
// the daemon may shut down under it.
func (x *fakeExtension) hold(waitMS int) {
	go func() {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/pending-queries?wait_ms=%d", x.d.url, waitMS), nil)
		req.Header.Set("Authorization", "Bearer "+x.d.token)
		req.Header.Set(apitype.HeaderExtensionInstance, x.instance)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
}

// running makes the extension take command id as the real one does with a
// slow command: receive it, acknowledge it with "pending", and keep a
// long-poll open so it stays present while the test builds its result.
func (x *fakeExtension) running(t *testing.T, id string) {
	t.Helper()
	if q := x.pollUntil(t, 1); q[0].CorrelationID != id {
		t.Fatalf("polled %s, want %s", q[0].CorrelationID, id)
	}
	if got := x.report(t, id, "pending", nil, ""); got != 200 {
		t.Fatalf("pending: got %d, want 200", got)
	}
	x.hold(20000)
}
