package capture_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// BenchmarkIngestJSON decodes, validates and stores batches of 200 logs and
// requests, the daemon's side of POST /events.
func BenchmarkIngestJSON(b *testing.B) {
	batch := apitype.EventBatch{}
	for i := range 200 {
		ev := logEv(int64(i%3), "log", "cart updated: item "+strconv.Itoa(i)+" qty 2 price 12.99 {id: 7, sku: \"SKU-9\"}")
		ev.Source = "http://localhost:3000/static/js/main.chunk.js:1234:17"
		if i%5 == 0 {
			ev = netEv(1, "browser", "GET", "http://localhost:3000/api/cart/"+strconv.Itoa(i), 200)
			ev.ResponseHeaders = map[string]string{"content-type": "application/json"}
		}
		batch.Events = append(batch.Events, ev)
	}
	body, err := json.Marshal(batch)
	if err != nil {
		b.Fatal(err)
	}
	s := capture.New(capture.Options{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.IngestJSON(body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*200)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkQueryLogs reads the newest 100 of 5 000 buffered logs.
func BenchmarkQueryLogs(b *testing.B) {
	s := capture.New(capture.Options{})
	for i := range 5000 {
		ingest(b, s, logEv(int64(i%3), []string{"log", "warn"}[i%2], "message number "+strconv.Itoa(i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Query(capture.Filter{Kind: capture.KindLog, Limit: 100, MinLevel: "warn"}); err != nil {
			b.Fatal(err)
		}
	}
}
