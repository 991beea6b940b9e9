//go:build unix

// Package conformance drives the real gasoline-mcp with the official MCP Go
// SDK client, so the bridge and daemon are checked against an independent
// implementation of the protocol. It is its own module to keep the SDK out
// of the product's dependencies.
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	bridgeBin string // gasoline-mcp, with gasoline beside it
)

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

// buildAndRun builds both binaries of the repository this module sits in.
func buildAndRun(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "gasoline-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bridgeBin = filepath.Join(dir, "gasoline-mcp")
	for _, b := range []struct{ out, pkg string }{
		{filepath.Join(dir, "gasoline"), "./cmd/daemon"},
		{bridgeBin, "./cmd/bridge"},
	} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = root
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", b.pkg, err)
			return 1
		}
	}
	return m.Run()
}

// env is one test's daemon port and state dir; the daemon the bridge
// starts there is stopped when the test ends.
type env struct {
	t    *testing.T
	port int
	dir  string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	e := &env{t: t, port: port, dir: filepath.Join(t.TempDir(), "state")}
	t.Cleanup(e.stopDaemon)
	return e
}

func (e *env) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(e.port) + path
}

func (e *env) token() string {
	b, err := os.ReadFile(filepath.Join(e.dir, "token"))
	if err != nil {
		e.t.Fatalf("reading the daemon token: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// bridgeCmd is the gasoline-mcp command an agent config would hold.
func (e *env) bridgeCmd() *exec.Cmd {
	cmd := exec.Command(bridgeBin, "--port", strconv.Itoa(e.port), "--state-dir", e.dir)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GASOLINE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// do sends an authenticated request to the daemon as the extension would.
func (e *env) do(method, path string, body, v any) int {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url(path), rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.token())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, v); err != nil {
			e.t.Fatalf("%s %s: decoding %s: %v", method, path, raw, err)
		}
	}
	if resp.StatusCode >= 300 {
		e.t.Logf("%s %s: HTTP %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode
}

// stopDaemon asks the daemon to shut down, then sends SIGTERM to the pid in
// its pid file if it is still there.
func (e *env) stopDaemon() {
	pidBytes, err := os.ReadFile(filepath.Join(e.dir, "daemon.pid"))
	if err != nil {
		return // never started
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidBytes)))
	if b, err := os.ReadFile(filepath.Join(e.dir, "token")); err == nil {
		req, _ := http.NewRequest(http.MethodPost, e.url("/shutdown"), nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(b)))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(e.dir, "daemon.pid")); err != nil {
			return // the daemon removes its pid file on exit
		}
	}
	if pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
	}
}

// connect launches gasoline-mcp under the SDK's CommandTransport.
func (e *env) connect(ctx context.Context, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "gasoline-conformance", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: e.bridgeCmd()}, opts)
	if err != nil {
		e.t.Fatalf("connecting to gasoline-mcp: %v", err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// structured decodes a tool result's structuredContent into v, checking
// the text content carries the same object.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("tool result has no structuredContent: %+v", res)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding structuredContent %s: %v", raw, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("tool result has no content")
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T, want text", res.Content[0])
	}
	var fromText, fromStructured any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("text content %q is not JSON: %v", text.Text, err)
	}
	json.Unmarshal(raw, &fromStructured)
	a, _ := json.Marshal(fromText)
	b, _ := json.Marshal(fromStructured)
	if !bytes.Equal(a, b) {
		t.Errorf("text content %s differs from structuredContent %s", a, b)
	}
}

// TestSDKSession is the whole async cycle through the SDK client, with a
// fake extension over HTTP completing the command, in the stateless
// revision the SDK asks for by default (server/discover, no initialize) and
// in the legacy one.
func TestSDKSession(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(v, func(t *testing.T) { testSDKSession(t, v) })
	}
}

func testSDKSession(t *testing.T, version string) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	e := newEnv(t)
	cs := e.connect(ctx, &mcp.ClientSessionOptions{ProtocolVersion: version}) // the bridge starts the daemon

	ir := cs.InitializeResult()
	if ir.ProtocolVersion != version {
		t.Errorf("negotiated protocol version %q, want %s", ir.ProtocolVersion, version)
	}
	if ir.ServerInfo == nil || ir.ServerInfo.Name != "gasoline" || ir.ServerInfo.Version == "" {
		t.Errorf("serverInfo %+v, want name gasoline and a version", ir.ServerInfo)
	}
	if ir.Capabilities == nil || ir.Capabilities.Tools == nil {
		t.Errorf("capabilities %+v, want tools", ir.Capabilities)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	schemas := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		json.Unmarshal(raw, &s)
		schemas[tool.Name] = s
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	for _, name := range []string{"interact", "observe", "configure"} {
		s, ok := schemas[name]
		if !ok {
			t.Errorf("tools/list lacks %s", name)
			continue
		}
		if s["type"] != "object" || s["properties"] == nil {
			t.Errorf("tool %s input schema %v, want an object schema with properties", name, s)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "observe", Arguments: map[string]any{"what": "pending_commands"}})
	if err != nil {
		t.Fatalf("observe pending_commands: %v", err)
	}
	if res.IsError {
		t.Errorf("observe pending_commands: isError, content %+v", res.Content)
	}
	var pending map[string]any
	structured(t, res, &pending)

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "interact", Arguments: map[string]any{
		"action": "execute_js", "script": "return 6 * 7",
	}})
	if err != nil {
		t.Fatalf("interact execute_js: %v", err)
	}
	var queued struct {
		Status        string `json:"status"`
		CorrelationID string `json:"correlation_id"`
		Message       string `json:"message"`
	}
	structured(t, res, &queued)
	if res.IsError || queued.Status != "queued" || !strings.HasPrefix(queued.CorrelationID, "exec_") || queued.Message == "" {
		t.Fatalf("interact execute_js: got %+v (isError %v), want status queued, an exec_ id and a message", queued, res.IsError)
	}

	// The extension: long-poll, acknowledge, post the result.
	var polled struct {
		Queries []struct {
			CorrelationID string          `json:"correlation_id"`
			Action        string          `json:"action"`
			Params        json.RawMessage `json:"params"`
		} `json:"queries"`
	}
	if code := e.do(http.MethodGet, "/pending-queries?wait_ms=5000", nil, &polled); code != http.StatusOK {
		t.Fatalf("GET /pending-queries: HTTP %d", code)
	}
	if len(polled.Queries) != 1 || polled.Queries[0].CorrelationID != queued.CorrelationID || polled.Queries[0].Action != "execute_js" {
		t.Fatalf("GET /pending-queries: got %+v, want the one execute_js command %s", polled.Queries, queued.CorrelationID)
	}
	if !strings.Contains(string(polled.Queries[0].Params), "6 * 7") {
		t.Errorf("command params %s lack the script", polled.Queries[0].Params)
	}
	for _, post := range []map[string]any{
		{"correlation_id": queued.CorrelationID, "status": "pending"},
		{"correlation_id": queued.CorrelationID, "status": "complete", "result": map[string]any{"value": 42}},
	} {
		if code := e.do(http.MethodPost, "/query-result", post, nil); code >= 300 {
			t.Fatalf("POST /query-result %v: HTTP %d", post["status"], code)
		}
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "observe", Arguments: map[string]any{
		"what": "command_result", "correlation_id": queued.CorrelationID, "wait_ms": 5000,
	}})
	if err != nil {
		t.Fatalf("observe command_result: %v", err)
	}
	var done struct {
		Status        string          `json:"status"`
		CorrelationID string          `json:"correlation_id"`
		Result        json.RawMessage `json:"result"`
	}
	structured(t, res, &done)
	if res.IsError || done.Status != "complete" || done.CorrelationID != queued.CorrelationID {
		t.Fatalf("observe command_result: got %+v (isError %v), want complete", done, res.IsError)
	}
	var value struct {
		Value int `json:"value"`
	}
	if err := json.Unmarshal(done.Result, &value); err != nil || value.Value != 42 {
		t.Errorf("result %s, want {\"value\":42}", done.Result)
	}

	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session (gasoline-mcp should exit 0 on EOF): %v", err)
	}
}

// TestProtocolVersions initializes with every supported version, through
// the SDK and as raw lines, and gets that version back; an unknown version
// gets the newest.
func TestProtocolVersions(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	e := newEnv(t)
	versions := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
	for _, v := range versions {
		t.Run("sdk/"+v, func(t *testing.T) {
			cs := e.connect(ctx, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("got protocol version %q, want %q", got, v)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Errorf("ListTools under %s: %v", v, err)
			}
			cs.Close()
		})
	}

	// Raw lines: one bridge, one initialize per version, then an unknown one.
	cmd := e.bridgeCmd()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i, v := range append(versions, "2099-01-01") {
		id := strconv.Itoa(i + 1)
		want[id] = v
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n", id, v)
	}
	want["5"] = "2025-11-25"
	sc := bufio.NewScanner(stdout)
	for range want {
		if !sc.Scan() {
			t.Fatalf("gasoline-mcp closed stdout: %v", sc.Err())
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Bytes(), err)
		}
		if got := r.Result.ProtocolVersion; got != want[string(r.ID)] {
			t.Errorf("initialize id %s: got version %q, want %q", r.ID, got, want[string(r.ID)])
		}
	}
	stdin.Close()
	if sc.Scan() {
		t.Errorf("unexpected stdout after EOF: %q", sc.Bytes())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("gasoline-mcp after EOF: %v, want exit 0", err)
	}
}
