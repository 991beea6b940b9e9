//go:build unix

package main

// The tests run the real binaries, built once by TestMain side by side in a
// temporary directory (so the bridge finds the daemon next to itself, as in
// an install); each test gets its own state dir and free loopback port from
// harness.NewEnv, which stops every daemon a test causes, by its pid only.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

var bins harness.Binaries // gasoline-mcp and gasoline, built by TestMain

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	var err error
	if bins, err = harness.Build(raceEnabled); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(bins.Dir)
	return m.Run()
}

// bridgeProc is a running gasoline-mcp subprocess.
type bridgeProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, line by line; closed at EOF
	stderr *harness.SyncBuffer
	exited chan struct{} // closed once cmd.Wait returned
	err    error         // cmd.Wait's error, set before exited is closed
}

// startBridge runs gasoline-mcp for e with extra flags. The bridge is ended
// (stdin closed, then SIGKILL if it lingers) when the test ends, and its
// stderr is shown if the test failed.
func startBridge(e *harness.Env, extra ...string) *bridgeProc {
	e.T.Helper()
	cmd := exec.Command(e.Bin.Bridge, append(append(e.Flags(), "--log-level", "debug"), extra...)...)
	cmd.Env = harness.CleanEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	b := &bridgeProc{t: e.T, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1000), stderr: &harness.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		e.T.Fatal(err)
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
	e.T.Cleanup(func() {
		stdin.Close()
		select {
		case <-b.exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-b.exited
		}
		if e.T.Failed() {
			e.T.Logf("gasoline-mcp stderr:\n%s", b.stderr.String())
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
