//go:build unix

package main

// The harness runs the real binaries: TestMain builds gasoline-mcp and
// gasoline side by side in a temporary directory (so the bridge finds the
// daemon next to itself, as in an install), and each test gets its own
// state dir and free loopback port. Every daemon a test causes is stopped by
// t.Cleanup, by its pid only.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

var (
	binDir    string // holds gasoline-mcp and gasoline
	bridgeBin string
	daemonBin string
)

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gasoline-bridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	bridgeBin = filepath.Join(dir, "gasoline-mcp")
	daemonBin = filepath.Join(dir, "gasoline")
	builds := [][]string{
		{"build", "-o", daemonBin, "github.com/gasoline-mcp/gasoline/cmd/daemon"},
		{"build", "-o", bridgeBin, "github.com/gasoline-mcp/gasoline/cmd/bridge"},
	}
	if raceEnabled {
		builds[1] = append([]string{"build", "-race"}, builds[1][1:]...)
	}
	for _, args := range builds {
		cmd := exec.Command("go", args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "go %s: %v\n", strings.Join(args, " "), err)
			return 1
		}
	}
	return m.Run()
}

// cleanEnv is the environment without any GASOLINE_ setting of the machine
// running the tests, and without the race detector's 1s pause at exit.
func cleanEnv(extra ...string) []string {
	env := []string{"GORACE=atexit_sleep_ms=0"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GASOLINE_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// env is one test's daemon address and state dir.
type env struct {
	t    testing.TB
	port int
	dir  string
}

// newEnv reserves a port and a state dir, and stops whatever daemon ends up
// serving them when the test ends.
func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, port: freePort(t), dir: filepath.Join(t.TempDir(), "state")}
	t.Cleanup(e.stopDaemon)
	return e
}

func (e *env) flags() []string {
	return []string{"--port", strconv.Itoa(e.port), "--state-dir", e.dir}
}

// gasoline runs the daemon CLI and returns its exit code and output.
func (e *env) gasoline(args ...string) (int, string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daemonBin, append(args, e.flags()...)...)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	e.t.Fatalf("running gasoline %v: %v", args, err)
	return -1, ""
}

// client returns a daemon client with the state dir's current token.
func (e *env) client() *client.Client {
	tok, _ := state.Dir{Path: e.dir}.ReadToken()
	return client.New(config.BaseURL(e.port), tok)
}

// health returns the daemon's health, or an error when none answers.
func (e *env) health() (apitype.Health, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := e.client()
	defer c.CloseIdleConnections()
	return c.Health(ctx)
}

// daemonPID returns the pid of the daemon answering on the test's port.
func (e *env) daemonPID() int {
	e.t.Helper()
	h, err := e.health()
	if err != nil {
		e.t.Fatalf("no daemon answers: %v", err)
	}
	return h.PID
}

// kill sends SIGKILL to the test's daemon and waits until it has exited (a
// bridge may start another at once).
func (e *env) kill() int {
	e.t.Helper()
	pid := e.daemonPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		e.t.Fatalf("killing daemon %d: %v", pid, err)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("daemon %d still alive 5s after SIGKILL", pid)
		}
	}
	return pid
}

// waitGone waits until pid has exited and nothing answers on the port.
func (e *env) waitGone(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, err := e.health()
		if errors.Is(err, client.ErrUnreachable) && (pid == 0 || !alive(pid)) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// alive reports whether pid runs. A killed daemon whose parent exited may
// linger as a zombie when nothing reaps orphans (pid 1 in some containers);
// it counts as gone.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// stopDaemon stops the daemon serving the test, if any: POST /shutdown,
// then SIGTERM to the pid it reports or its pid file names.
func (e *env) stopDaemon() {
	pid := 0
	if h, err := e.health(); err == nil {
		pid = h.PID
	} else if b, err := os.ReadFile(filepath.Join(e.dir, state.PIDFile)); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGCONT) // in case a test left it stopped
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c := e.client()
	defer c.CloseIdleConnections()
	if err := c.Shutdown(ctx); err == nil && e.waitGone(pid) {
		return
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err == nil && !e.waitGone(pid) {
		e.t.Errorf("daemon %d did not stop after SIGTERM", pid)
	}
}

// bridgeProc is a running gasoline-mcp subprocess.
type bridgeProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, line by line; closed at EOF
	stderr *syncBuffer
	exited chan struct{} // closed once cmd.Wait returned
	err    error         // cmd.Wait's error, set before exited is closed
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startBridge runs gasoline-mcp for e with extra flags. The bridge is ended
// (stdin closed, then SIGKILL if it lingers) when the test ends, and its
// stderr is shown if the test failed.
func (e *env) startBridge(extra ...string) *bridgeProc {
	e.t.Helper()
	cmd := exec.Command(bridgeBin, append(append(e.flags(), "--log-level", "debug"), extra...)...)
	cmd.Env = cleanEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	b := &bridgeProc{t: e.t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1000), stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			b.lines <- bytes.Clone(sc.Bytes())
		}
		close(b.lines)
	}()
	go func() {
		b.err = cmd.Wait()
		close(b.exited)
	}()
	e.t.Cleanup(func() {
		stdin.Close()
		select {
		case <-b.exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-b.exited
		}
		if e.t.Failed() {
			e.t.Logf("gasoline-mcp stderr:\n%s", b.stderr.String())
		}
	})
	return b
}

// send writes one raw line to the bridge's stdin.
func (b *bridgeProc) send(line string) {
	b.t.Helper()
	if _, err := io.WriteString(b.stdin, line+"\n"); err != nil {
		b.t.Fatalf("writing to gasoline-mcp: %v", err)
	}
}

// request sends a JSON-RPC request built from method and params.
func (b *bridgeProc) request(id any, method string, params any) {
	b.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	line, err := json.Marshal(msg)
	if err != nil {
		b.t.Fatal(err)
	}
	b.send(string(line))
}

// tool sends tools/call name(args).
func (b *bridgeProc) tool(id any, name string, args map[string]any) {
	b.t.Helper()
	b.request(id, "tools/call", map[string]any{"name": name, "arguments": args})
}

// rpcResponse is one JSON-RPC response line.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// toolResult is the part of a tools/call result the tests read.
type toolResult struct {
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// recv reads the next stdout line, which must be a JSON-RPC 2.0 response.
func (b *bridgeProc) recv(within time.Duration) rpcResponse {
	b.t.Helper()
	select {
	case line, ok := <-b.lines:
		if !ok {
			b.t.Fatalf("gasoline-mcp closed stdout, want a response")
		}
		return decodeResponse(b.t, line)
	case <-time.After(within):
		b.t.Fatalf("no response from gasoline-mcp within %v", within)
	}
	return rpcResponse{}
}

func decodeResponse(t testing.TB, line []byte) rpcResponse {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var r rpcResponse
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("stdout line is not a JSON-RPC response (%v): %q", err, line)
	}
	if r.JSONRPC != "2.0" || r.ID == nil || (r.Result == nil) == (r.Error == nil) {
		t.Fatalf("stdout line is not a JSON-RPC 2.0 response: %q", line)
	}
	return r
}

// result reads the next response, requires it to answer id with a result,
// and decodes the result into v.
func (b *bridgeProc) result(id any, within time.Duration, v any) {
	b.t.Helper()
	r := b.recv(within)
	wantID, _ := json.Marshal(id)
	if string(r.ID) != string(wantID) {
		b.t.Fatalf("got a response to id %s, want id %s", r.ID, wantID)
	}
	if r.Error != nil {
		b.t.Fatalf("id %s: got error %d %q, want a result", r.ID, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			b.t.Fatalf("id %s: decoding result %s: %v", r.ID, r.Result, err)
		}
	}
}

// noOutput checks nothing arrives on stdout for a while.
func (b *bridgeProc) noOutput(d time.Duration) {
	b.t.Helper()
	select {
	case line, ok := <-b.lines:
		if ok {
			b.t.Errorf("unexpected stdout line %q", line)
		}
	case <-time.After(d):
	}
}

// closeAndWait closes stdin and waits for the bridge to exit, returning its
// exit code; nothing more may appear on stdout.
func (b *bridgeProc) closeAndWait(within time.Duration) int {
	b.t.Helper()
	b.stdin.Close()
	select {
	case <-b.exited:
	case <-time.After(within):
		b.t.Fatalf("gasoline-mcp did not exit within %v of EOF on stdin", within)
	}
	for line := range b.lines {
		b.t.Errorf("unexpected stdout line after EOF: %q", line)
	}
	var exit *exec.ExitError
	if errors.As(b.err, &exit) {
		return exit.ExitCode()
	}
	if b.err != nil {
		b.t.Fatalf("waiting for gasoline-mcp: %v", b.err)
	}
	return 0
}

// initialize runs the MCP handshake.
func (b *bridgeProc) initialize(id any) {
	b.t.Helper()
	b.request(id, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "bridge-test", "version": "0"},
	})
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	b.result(id, 15*time.Second, &res)
	if res.ProtocolVersion != "2025-06-18" || res.ServerInfo.Name != "gasoline" {
		b.t.Fatalf("initialize: got version %q server %q, want 2025-06-18 gasoline", res.ProtocolVersion, res.ServerInfo.Name)
	}
	b.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
