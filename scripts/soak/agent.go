//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/bridge"
)

// callTimeout bounds the wait for one answer from the bridge: above the
// bridge's own ceiling (65 s), so a missing answer is the bridge's fault.
const callTimeout = 90 * time.Second

// bridgeProc is the gasoline-mcp the soak's agents talk through, with a
// reader that checks every line it writes.
type bridgeProc struct {
	r     *run
	cmd   *exec.Cmd
	stdin io.WriteCloser

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan rpcResponse // guarded by mu
	lines   int                        // guarded by mu
	done    chan struct{}              // closed when stdout ends
	stopped bool                       // guarded by mu
}

// rpcResponse is one JSON-RPC response.
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

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]json.RawMessage `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
}

func (r *run) startBridge(ctx context.Context, daemonBin string) (*bridgeProc, error) {
	cmd := exec.Command(filepath.Join(r.cfg.BinDir, "gasoline-mcp"),
		"--port", strconv.Itoa(r.port), "--state-dir", r.stateDir, "--daemon-bin", daemonBin, "--log-level", "warn")
	cmd.Env = soakEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting gasoline-mcp: %w", err)
	}
	b := &bridgeProc{r: r, cmd: cmd, stdin: stdin, waiting: map[int64]chan rpcResponse{}, done: make(chan struct{})}
	go b.read(stdout)
	return b, nil
}

// read checks and routes every line of the bridge's stdout.
func (b *bridgeProc) read(stdout io.Reader) {
	defer close(b.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		b.mu.Lock()
		b.lines++
		b.mu.Unlock()
		var resp rpcResponse
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&resp); err != nil || dec.More() {
			b.r.violation("the bridge wrote a line that is not one JSON-RPC response: %.200q", line)
			continue
		}
		if resp.JSONRPC != "2.0" || (resp.Result == nil) == (resp.Error == nil) {
			b.r.violation("the bridge wrote an invalid JSON-RPC response: %.200q", line)
			continue
		}
		id, err := strconv.ParseInt(string(resp.ID), 10, 64)
		if err != nil {
			b.r.violation("the bridge answered an id the soak never sent: %.200q", line)
			continue
		}
		b.mu.Lock()
		ch := b.waiting[id]
		delete(b.waiting, id)
		b.mu.Unlock()
		if ch == nil {
			b.r.violation("the bridge answered id %d twice or unasked", id)
			continue
		}
		ch <- resp
	}
}

// call sends one request and waits for its answer.
func (b *bridgeProc) call(ctx context.Context, method string, params any) (rpcResponse, error) {
	ch := make(chan rpcResponse, 1)
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return rpcResponse{}, errStopped
	}
	b.nextID++
	id := b.nextID
	b.waiting[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	b.writeMu.Lock()
	_, err := b.stdin.Write(append(msg, '\n'))
	b.writeMu.Unlock()
	if err != nil {
		return rpcResponse{}, fmt.Errorf("writing to gasoline-mcp: %w", err)
	}
	timer := time.NewTimer(callTimeout)
	defer timer.Stop()
	select {
	case resp := <-ch:
		return resp, nil
	case <-timer.C:
		b.r.violation("the bridge did not answer a %s within %s", method, callTimeout)
		return rpcResponse{}, errors.New("no answer")
	case <-b.done:
		return rpcResponse{}, errors.New("gasoline-mcp closed its stdout")
	case <-ctx.Done():
		// The answer is still owed; read drops it into the buffered ch.
		return rpcResponse{}, errStopped
	}
}

// tool calls a tool and decodes its result; a JSON-RPC error is returned
// as the response's Error.
func (b *bridgeProc) tool(ctx context.Context, name string, args map[string]any) (rpcResponse, toolResult, error) {
	resp, err := b.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil || resp.Error != nil {
		return resp, toolResult{}, err
	}
	var tr toolResult
	if err := json.Unmarshal(resp.Result, &tr); err != nil || len(tr.Content) == 0 || tr.StructuredContent == nil {
		b.r.violation("a %s result is not a tool result with content and structuredContent: %.200s", name, resp.Result)
		return resp, tr, errors.New("bad tool result")
	}
	if !json.Valid([]byte(tr.Content[0].Text)) {
		b.r.violation("a %s result's text is not the JSON of its structuredContent: %.200q", name, tr.Content[0].Text)
	}
	return resp, tr, nil
}

func (b *bridgeProc) initialize(ctx context.Context) error {
	resp, err := b.call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "soak", "version": "0"},
	})
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
	}
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	_, err = io.WriteString(b.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return err
}

func (b *bridgeProc) answers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lines
}

// stop closes the bridge's stdin and waits for it to exit; every request
// sent must have been answered by then.
func (b *bridgeProc) stop() error {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil
	}
	b.stopped = true
	b.mu.Unlock()
	b.writeMu.Lock()
	b.stdin.Close()
	b.writeMu.Unlock()
	exited := make(chan error, 1)
	go func() { <-b.done; exited <- b.cmd.Wait() }()
	select {
	case err := <-exited:
		b.mu.Lock()
		unanswered := len(b.waiting)
		b.mu.Unlock()
		if unanswered > 0 {
			return fmt.Errorf("exited with %d requests unanswered", unanswered)
		}
		if err != nil {
			return fmt.Errorf("exited: %w", err)
		}
		return nil
	case <-time.After(callTimeout):
		b.cmd.Process.Kill()
		<-exited
		return errors.New("did not exit after EOF on stdin; killed")
	}
}

// agents runs cfg.Agents agent loops for d.
func (r *run) agents(ctx context.Context, b *bridgeProc, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	for range r.cfg.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				r.command(ctx, b)
			}
		}()
	}
	wg.Wait()
}

// seq numbers the soak's scripts; each command's value is its own number.
var (
	seqMu sync.Mutex
	seq   int64
)

func nextSeq() int64 {
	seqMu.Lock()
	defer seqMu.Unlock()
	seq++
	return seq
}

// command runs one command as an agent does: interact, then observe until
// it ends, and records the outcome. Once a command has an id it is followed
// to its end even if ctx ends, so none is left unaccounted for.
func (r *run) command(ctx context.Context, b *bridgeProc) {
	n := nextSeq()
	resp, tr, err := b.tool(ctx, "interact", map[string]any{"action": "execute_js", "script": fmt.Sprintf("soak(%d)", n)})
	switch {
	case errors.Is(err, errStopped):
		return
	case err != nil:
		return // already a violation, or the bridge is gone
	case resp.Error != nil:
		r.count(r.report.SubmitErrors, submitCode(resp.Error.Code))
		return
	case tr.IsError:
		r.count(r.report.SubmitErrors, errorCode(tr))
		return
	}
	var id string
	json.Unmarshal(tr.StructuredContent["correlation_id"], &id)
	if id == "" {
		r.violation("interact answered without a correlation id: %v", tr.StructuredContent)
		return
	}
	r.add(&r.report.Commands, 1)
	follow := context.Background() // an id is followed to its end
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		resp, tr, err := b.tool(follow, "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": 5000})
		if err != nil {
			return
		}
		if resp.Error != nil {
			// Timeouts and a restart mid-call leave the command to poll again.
			r.add(&r.report.ObserveErrors, 1)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if tr.IsError {
			code := errorCode(tr)
			switch code {
			case "unknown_correlation_id":
				r.violation("a command was lost without an explicit failure: %s answered unknown_correlation_id", id)
			default:
				r.count(r.report.Failed, code)
			}
			return
		}
		var st struct {
			Status string `json:"status"`
			Reason string `json:"reason"`
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
		}
		raw, _ := json.Marshal(tr.StructuredContent)
		json.Unmarshal(raw, &st)
		switch st.Status {
		case "pending", "queued":
			continue
		case "complete":
			if string(st.Result.Value) != strconv.FormatInt(n, 10) {
				r.violation("command %s (soak(%d)) completed with value %s", id, n, st.Result.Value)
				return
			}
			r.add(&r.report.Completed, 1)
			return
		case "error", "timeout", "expired", "cancelled":
			r.count(r.report.Failed, st.Status+"/"+st.Reason)
			return
		default:
			r.violation("command %s has unknown status %q", id, st.Status)
			return
		}
	}
	r.violation("command %s did not end within 3 minutes of polling", id)
}

func errorCode(tr toolResult) string {
	var e struct {
		Code string `json:"code"`
	}
	json.Unmarshal(tr.StructuredContent["error"], &e)
	if e.Code == "" {
		return "tool_error"
	}
	return e.Code
}

func submitCode(code int) string {
	switch code {
	case bridge.CodeDaemonRestarted:
		return "daemon_restarted_mid_call"
	case bridge.CodeDaemonUnavailable:
		return "daemon_unavailable"
	case bridge.CodeTimeout:
		return "timeout"
	}
	return "jsonrpc_" + strconv.Itoa(code)
}
