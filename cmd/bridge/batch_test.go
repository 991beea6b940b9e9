//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// rawLine reads the next stdout line as it is.
func (b *bridgeProc) rawLine(within time.Duration) []byte {
	b.t.Helper()
	select {
	case line, ok := <-b.lines:
		if !ok {
			b.t.Fatalf("gasoline-mcp closed stdout, want a line")
		}
		return line
	case <-time.After(within):
		b.t.Fatalf("no line from gasoline-mcp within %v", within)
	}
	return nil
}

// batchAnswers reads the next line as a batch answer, decoding each answer.
func (b *bridgeProc) batchAnswers(within time.Duration) []rpcResponse {
	b.t.Helper()
	line := b.rawLine(within)
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		b.t.Fatalf("want a JSON array answering the batch, got %q (%v)", line, err)
	}
	out := make([]rpcResponse, len(items))
	for i, it := range items {
		out[i] = decodeResponse(b.t, it)
	}
	return out
}

// TestBatchesUnder20250326: a client that negotiated 2025-03-26, whose stdio
// transport carries JSON-RPC batches, gets one array answering each request
// of a batch in order (notifications get nothing), initialize inside a
// batch is refused, and a malformed or empty batch gets one error.
func TestBatchesUnder20250326(t *testing.T) {
	e := harness.NewEnv(t, bins)
	b := startBridge(e)
	b.request(0, "initialize", map[string]any{
		"protocolVersion": "2025-03-26",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "batch-test", "version": "0"},
	})
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	b.result(0, 30*time.Second, &res)
	if res.ProtocolVersion != "2025-03-26" {
		t.Fatalf("negotiated %q, want 2025-03-26", res.ProtocolVersion)
	}

	b.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},` +
		`{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":"two","method":"tools/list"},` +
		`{"jsonrpc":"2.0","id":3,"method":"no/such/method"},` +
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`)
	got := b.batchAnswers(30 * time.Second)
	if len(got) != 4 {
		t.Fatalf("got %d answers, want 4 (ping, tools/list, the unknown method, initialize): %+v", len(got), got)
	}
	if string(got[0].ID) != "1" || got[0].Error != nil || string(got[0].Result) != "{}" {
		t.Errorf("ping: %+v", got[0])
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if string(got[1].ID) != `"two"` || json.Unmarshal(got[1].Result, &list) != nil || len(list.Tools) == 0 {
		t.Errorf("tools/list: %+v", got[1])
	}
	if string(got[2].ID) != "3" || got[2].Error == nil || got[2].Error.Code != -32601 {
		t.Errorf("unknown method: %+v", got[2])
	}
	if string(got[3].ID) != "4" || got[3].Error == nil || !strings.Contains(got[3].Error.Message, "initialize must not be part of a batch") {
		t.Errorf("initialize in a batch: %+v", got[3])
	}

	// Notifications only: no answer at all; the next request's answer is
	// the next line.
	b.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	b.request(5, "ping", nil)
	b.result(5, 30*time.Second, nil)

	for _, bad := range []struct{ line, want string }{
		{`[]`, "empty batch"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}`, "parse error"},
	} {
		b.send(bad.line)
		r := b.recv(30 * time.Second)
		if r.Error == nil || string(r.ID) != "null" || !strings.Contains(r.Error.Message, bad.want) {
			t.Errorf("%s: got %+v, want one error saying %q", bad.line, r, bad.want)
		}
	}
}

// TestBatchRefusedUnder20250618: batches are not part of later versions; a
// client that negotiated 2025-06-18 gets one error for the array.
func TestBatchRefusedUnder20250618(t *testing.T) {
	e := harness.NewEnv(t, bins)
	b := startBridge(e)
	b.initialize(0)
	b.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	r := b.recv(30 * time.Second)
	if r.Error == nil || string(r.ID) != "null" || !strings.Contains(r.Error.Message, "batches are not supported") {
		t.Fatalf("got %+v, want one error saying batches are not supported", r)
	}
}
