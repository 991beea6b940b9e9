//go:build unix

package daemon

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
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
	var steps [4]time.Duration
	cycle := func() {
		for i, d := range BenchCycle(b, func(method, path, client string, body []byte) []byte {
			return serve(method, path, client, string(body))
		}) {
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
