package tools

import (
	"context"
	"fmt"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// BenchmarkObserveLogs is the daemon's share of the bridged observe-logs
// row of scripts/bench: one tools/call reading 100 buffered logs, from the
// request line to the encoded answer.
func BenchmarkObserveLogs(b *testing.B) {
	e := newCapEnv(b)
	var evs []apitype.Event
	for i := range 100 {
		ev := logEvent(int64(1+i%3), "log", fmt.Sprintf("cart updated: item %d qty 2 price 12.99 {id: %d, sku: \"SKU-9\"}", i, i*7))
		ev.Source = "http://localhost:3000/static/js/main.chunk.js:1234:17"
		evs = append(evs, ev)
	}
	if _, err := e.capt.Ingest(apitype.EventBatch{Events: evs}); err != nil {
		b.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","limit":100}}}`)
	b.ReportAllocs()
	for b.Loop() {
		e.s.Handle(context.Background(), "agent", msg)
	}
}
