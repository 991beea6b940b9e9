package daemon_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/rs/zerolog"
)

// BenchmarkCycle times the full async cycle of scripts/bench's cycle row
// (issue 33) against a real daemon in this process, over keep-alive
// loopback HTTP as a fake extension holding the state-dir token: submit
// (POST /mcp interact), poll (GET /pending-queries, which answers at
// once), result (POST /query-result), retrieve (POST /mcp observe
// command_result). Each request's share is reported as its own metric, and
// health-ns is one GET /health, the floor of each; a CPU profile of it
// (-cpuprofile) shows the daemon's side and the client's together.
//
//	go test ./internal/daemon -run '^$' -bench Cycle -benchmem -cpuprofile /tmp/cycle.prof
func BenchmarkCycle(b *testing.B) {
	d := harness.StartDaemon(b, daemon.Options{LogTo: io.Discard, LogLevel: zerolog.InfoLevel})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8, Proxy: nil}}
	defer hc.CloseIdleConnections()
	do := func(method, path, client string, body []byte) []byte {
		req, _ := http.NewRequest(method, d.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+d.Token)
		if client != "" {
			req.Header.Set(apitype.HeaderClient, client)
		}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: HTTP %d %s", method, path, resp.StatusCode, out)
		}
		return out
	}
	submit := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"document.title"}}}`)
	poll := "/pending-queries?wait_ms=5000&contract=" + extcontract.Version
	var steps [5]time.Duration // submit, poll, result, retrieve, health
	cycle := func() {
		t0 := time.Now()
		var sub struct {
			Result struct {
				StructuredContent struct {
					CorrelationID string `json:"correlation_id"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(do("POST", "/mcp", "bench-cycle", submit), &sub); err != nil || sub.Result.StructuredContent.CorrelationID == "" {
			b.Fatalf("submit: no correlation id (%v)", err)
		}
		id := sub.Result.StructuredContent.CorrelationID
		t1 := time.Now()
		var pq apitype.PendingQueries
		if err := json.Unmarshal(do("GET", poll, "", nil), &pq); err != nil || len(pq.Queries) != 1 || pq.Queries[0].CorrelationID != id {
			b.Fatalf("poll: got %+v (%v), want %s", pq, err, id)
		}
		t2 := time.Now()
		do("POST", "/query-result", "", []byte(`{"correlation_id":"`+id+`","status":"complete","result":{"value":"Home Page"}}`))
		t3 := time.Now()
		out := do("POST", "/mcp", "bench-cycle", []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"`+id+`"}}}`))
		t4 := time.Now()
		if !bytes.Contains(out, []byte(`"status":"complete"`)) {
			b.Fatalf("retrieve: %.300s", out)
		}
		do("GET", "/health", "", nil)
		t5 := time.Now()
		for i, d := range []time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4)} {
			steps[i] += d
		}
	}
	for range 200 {
		cycle()
	}
	steps = [5]time.Duration{}
	b.ResetTimer()
	for range b.N {
		cycle()
	}
	for i, name := range []string{"submit", "poll", "result", "retrieve", "health"} {
		b.ReportMetric(float64(steps[i].Nanoseconds())/float64(b.N), name+"-ns")
	}
}
