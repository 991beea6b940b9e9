package harness

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/rs/zerolog"
)

// Daemon is a real daemon.Run in the test's process, on a free loopback
// port with its own state dir. It is stopped when the test ends.
type Daemon struct {
	URL   string // http://127.0.0.1:port
	Token string // the state dir's admin token
	Dir   string // the state dir
	ids   atomic.Int64
}

// StartDaemon runs a daemon with o, taking a free port, a temporary state
// dir and a test log unless o sets them. The ack timeout and the disconnect
// grace default to a minute rather than 3 s: a fake extension on a busy CI
// machine can be descheduled for seconds, and only the tests about those
// timers (which set them) may see them fire.
func StartDaemon(t testing.TB, o daemon.Options) *Daemon {
	t.Helper()
	if o.Tracker.AckTimeout == 0 {
		o.Tracker.AckTimeout = time.Minute
	}
	if o.Tracker.DisconnectGrace == 0 {
		o.Tracker.DisconnectGrace = time.Minute
	}
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	if o.LogTo == nil {
		o.LogTo = zerolog.NewTestWriter(t)
		o.LogLevel = zerolog.DebugLevel
	}
	ready := make(chan net.Addr, 1)
	o.Ready = func(a net.Addr) { ready <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- daemon.Run(ctx, o) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("daemon exited: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("daemon did not start within 10s")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon.Run: %v", err)
		}
	})
	tok, err := os.ReadFile(filepath.Join(o.StateDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return &Daemon{URL: "http://" + addr.String(), Token: strings.TrimSpace(string(tok)), Dir: o.StateDir}
}

// Post sends body to path with the admin token and headers, and returns
// the status and the response body. A json.RawMessage body is sent as it
// is, valid JSON or not; anything else is JSON-encoded.
func (d *Daemon) Post(t testing.TB, path string, headers map[string]string, body any) (int, []byte) {
	t.Helper()
	b, raw := body.(json.RawMessage)
	if !raw {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatalf("encoding the body of POST %s: %v", path, err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, d.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+d.Token)
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

// Call invokes the MCP tool as client over POST /mcp and returns its
// structuredContent and isError. A JSON-RPC error fails the test.
func (d *Daemon) Call(t testing.TB, client, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, isErr, _ := d.CallImages(t, client, tool, args)
	return res, isErr
}

// Image is an image content block of a tool result, decoded.
type Image struct {
	Data     []byte
	MIMEType string
}

// CallImages is Call that also returns the result's image content blocks.
func (d *Daemon) CallImages(t testing.TB, client, tool string, args map[string]any) (map[string]any, bool, []Image) {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": d.ids.Add(1), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}}
	code, body := d.Post(t, "/mcp", map[string]string{apitype.HeaderClient: client}, msg)
	if code != http.StatusOK {
		t.Fatalf("tools/call %s: HTTP %d %s", tool, code, body)
	}
	var resp struct {
		Result struct {
			Content []struct {
				Type     string `json:"type"`
				Data     []byte `json:"data"` // base64 in JSON
				MIMEType string `json:"mimeType"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	if resp.Error != nil {
		t.Fatalf("tools/call %s: JSON-RPC error %s", tool, resp.Error.Message)
	}
	var images []Image
	for _, c := range resp.Result.Content {
		if c.Type == "image" {
			images = append(images, Image{Data: c.Data, MIMEType: c.MIMEType})
		}
	}
	return resp.Result.StructuredContent, resp.Result.IsError, images
}

// Submit runs interact execute_js with script (and extra arguments) as
// client and returns the correlation id of the queued command.
func (d *Daemon) Submit(t testing.TB, client, script string, extra map[string]any) string {
	t.Helper()
	args := map[string]any{"action": "execute_js", "script": script}
	for k, v := range extra {
		args[k] = v
	}
	res, isErr := d.Call(t, client, "interact", args)
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

// Result runs observe command_result for id as client, waiting up to
// waitMS, and returns its structuredContent; a tool error fails the test.
func (d *Daemon) Result(t testing.TB, client, id string, waitMS int) map[string]any {
	t.Helper()
	res, isErr := d.Call(t, client, "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": waitMS})
	if isErr {
		t.Fatalf("command_result %s: %v", id, res)
	}
	return res
}

// Field returns the value at path in nested JSON objects, or nil.
func Field(m map[string]any, path ...string) any {
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
