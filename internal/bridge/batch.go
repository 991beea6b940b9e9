package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// batchVersion is the one protocol version whose stdio transport carries
// JSON-RPC batches: a client that negotiated it may send several messages
// as one array, and must get the answers as one array.
const batchVersion = "2025-03-26"

// MaxBatch is the most messages one batch may hold.
const MaxBatch = 100

// noteVersion remembers the protocol version a successful initialize
// negotiated, which decides whether batches are accepted.
func (b *Bridge) noteVersion(m *message, resp []byte) {
	if m.Method != "initialize" {
		return
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &r) == nil && r.Result.ProtocolVersion != "" {
		b.version.Store(r.Result.ProtocolVersion)
	}
}

// isBatch reports whether line is a JSON array the bridge must answer as a
// batch: only after 2025-03-26 was negotiated. Other arrays go to the daemon,
// which says that batches are not part of the negotiated version.
func (b *Bridge) isBatch(line []byte) bool {
	i := firstNonSpace(line)
	v, _ := b.version.Load().(string)
	return i >= 0 && line[i] == '[' && v == batchVersion
}

// handleBatch relays every message of a batch at once and writes their
// answers as one array, in the batch's order, once all are in; a batch of
// notifications only gets no answer. A batch that is not an array of
// messages, is empty or holds more than MaxBatch gets one error, as
// JSON-RPC 2.0 says; initialize inside a batch is refused.
func (b *Bridge) handleBatch(ctx context.Context, line []byte) {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		b.writeError(nil, rpcError{Code: codeParse, Message: fmt.Sprintf("parse error: the batch is not a JSON array of messages: %v", err)})
		return
	}
	switch {
	case len(items) == 0:
		b.writeError(nil, rpcError{Code: codeInvalidRequest, Message: "an empty batch is not a request; send at least one message"})
		return
	case len(items) > MaxBatch:
		b.writeError(nil, rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("a batch holds at most %d messages, this one %d; split it", MaxBatch, len(items))})
		return
	}
	answers := make([][]byte, len(items))
	var wg sync.WaitGroup
	for i, item := range items {
		if m := peek(item, b.opts.Policy); m.Method == "initialize" {
			if m.answerable() {
				answers[i] = errorMessage(m.replyID(), rpcError{Code: codeInvalidRequest, Message: "initialize must not be part of a batch; send it alone"})
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.relay(ctx, item, func(a []byte) { answers[i] = bytes.TrimSpace(a) })
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	var out [][]byte
	for _, a := range answers {
		if len(a) > 0 {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return
	}
	b.writeLine(append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']'))
}
