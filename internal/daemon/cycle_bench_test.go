package daemon_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
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
	var steps [5]time.Duration // submit, poll, result, retrieve, health
	cycle := func() {
		four := daemon.BenchCycle(b, do)
		t4 := time.Now()
		do("GET", "/health", "", nil)
		for i, d := range append(four[:], time.Since(t4)) {
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
