package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestPerfBenchLargePage times analyze performance beside analyze dom (the
// outline) on a large real page, Debian python3-doc's library/stdtypes.html,
// interleaved, each call from the MCP client's request to its inline
// complete result. By hand only: E2E_PERF_BENCH=<runs> (e.g. 30) turns it on.
func TestPerfBenchLargePage(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("E2E_PERF_BENCH"))
	if runs <= 0 {
		t.Skip("a benchmark: set E2E_PERF_BENCH=<runs> to run it")
	}
	dirs, _ := filepath.Glob("/usr/share/doc/python3*/html/library/stdtypes.html")
	if len(dirs) == 0 {
		t.Fatal("no /usr/share/doc/python3*/html: apt-get install python3-doc")
	}
	docs := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(filepath.Dir(dirs[0]))))) // 127.0.0.1
	defer docs.Close()
	e := ready(t)
	e.act("new_tab", map[string]any{"url": docs.URL + "/library/stdtypes.html"})
	e.analyze("performance", nil) // the first brings the runtime and the collector
	e.analyze("dom", nil)
	var perf, dom []time.Duration
	for range runs {
		start := time.Now()
		e.analyze("performance", nil)
		perf = append(perf, time.Since(start))
		start = time.Now()
		e.analyze("dom", nil)
		dom = append(dom, time.Since(start))
	}
	for _, row := range []struct {
		name string
		d    []time.Duration
	}{{"analyze performance", perf}, {"analyze dom", dom}} {
		slices.Sort(row.d)
		p := func(q float64) time.Duration { return row.d[min(len(row.d)-1, int(q*float64(len(row.d))))] }
		t.Logf("%-20s stdtypes.html n=%d p50 %v p99 %v", row.name, len(row.d), p(0.5).Round(time.Millisecond), p(0.99).Round(time.Millisecond))
	}
}
