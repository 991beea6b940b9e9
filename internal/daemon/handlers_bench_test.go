//go:build unix

package daemon

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/rs/zerolog"
)

// BenchmarkCycleHandlers is the daemon's own work in the full async cycle
// of scripts/bench's cycle row (issue 33), without the network: the four
// requests (submit, poll, result, retrieve) served by the daemon's real
// handler, wired as Run wires it, into a recorder. Each request's share is
// reported as its own metric; its CPU and allocation profiles
// (-cpuprofile, -memprofile) are the daemon's alone.
//
//	go test ./internal/daemon -run '^$' -bench CycleHandlers -benchmem -cpuprofile /tmp/handlers.prof
func BenchmarkCycleHandlers(b *testing.B) {
	dir, err := state.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	const port, token = 7890, "bench-token"
	p := assemble(Options{}, dir, nil, port, zerolog.Nop())
	defer p.trk.Close()
	h := server.New(server.Config{Port: port, Token: token, Tracker: p.trk, MCP: p.mcp, Health: p.health, Started: p.started,
		Capture: p.capt, Results: p.results, Annotations: p.anns, Contracts: p.contracts, Log: zerolog.Nop()}).Handler()
	serve := func(method, path, client, body string) []byte {
		req := httptest.NewRequest(method, "http://127.0.0.1:7890"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if client != "" {
			req.Header.Set(apitype.HeaderClient, client)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s %s: HTTP %d %s", method, path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	submit := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"document.title"}}}`
	poll := "/pending-queries?wait_ms=5000&contract=" + extcontract.Version
	var steps [4]time.Duration
	cycle := func() {
		t0 := time.Now()
		var sub struct {
			Result struct {
				StructuredContent struct {
					CorrelationID string `json:"correlation_id"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(serve("POST", "/mcp", "bench-cycle", submit), &sub); err != nil || sub.Result.StructuredContent.CorrelationID == "" {
			b.Fatalf("submit: no correlation id (%v)", err)
		}
		id := sub.Result.StructuredContent.CorrelationID
		t1 := time.Now()
		var pq apitype.PendingQueries
		if err := json.Unmarshal(serve("GET", poll, "", ""), &pq); err != nil || len(pq.Queries) != 1 || pq.Queries[0].CorrelationID != id {
			b.Fatalf("poll: got %+v (%v), want %s", pq, err, id)
		}
		t2 := time.Now()
		serve("POST", "/query-result", "", `{"correlation_id":"`+id+`","status":"complete","result":{"value":"Home Page"}}`)
		t3 := time.Now()
		out := serve("POST", "/mcp", "bench-cycle", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"`+id+`"}}}`)
		t4 := time.Now()
		if !bytes.Contains(out, []byte(`"status":"complete"`)) {
			b.Fatalf("retrieve: %.300s", out)
		}
		for i, d := range []time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3)} {
			steps[i] += d
		}
	}
	for range 200 {
		cycle()
	}
	steps = [4]time.Duration{}
	cpu0 := processCPU(b)
	b.ResetTimer()
	for range b.N {
		cycle()
	}
	b.StopTimer()
	// The process's CPU time, unlike the wall time, hardly moves with what
	// else the machine runs.
	b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	for i, name := range []string{"submit", "poll", "result", "retrieve"} {
		b.ReportMetric(float64(steps[i].Nanoseconds())/float64(b.N), name+"-ns")
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
