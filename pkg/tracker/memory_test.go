package tracker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/gasoline-mcp/gasoline/pkg/tracker/trackertest"
)

// cycleClients is how many clients the cycle spreads its commands over, so
// that both retention paths run: the TTL (at 100 ms of fake time per command
// a client finishes ~38 commands per 60 s) and, in bursts, MaxRetained.
var cycleClients = func() []string {
	out := make([]string, 16)
	for i := range out {
		out[i] = fmt.Sprintf("client%d", i)
	}
	return out
}()

var cycleResult = json.RawMessage(`{"success":true,"data":"document.title"}`)

// cycle runs n commands through Submit → Poll → Report → Result, advancing
// the fake clock 100 ms per command.
func cycle(tb testing.TB, tr *tracker.Tracker, clk *trackertest.Clock, n int) {
	ctx := context.Background()
	spec := tracker.Spec{Prefix: "exec", Action: "execute_js", Params: json.RawMessage(`{"script":"document.title"}`)}
	for i := range n {
		spec.Client = cycleClients[i%len(cycleClients)]
		c, err := tr.Submit(spec)
		if err != nil {
			tb.Fatal(err)
		}
		cs, err := tr.Poll(ctx, "ext", 1)
		if err != nil || len(cs) != 1 {
			tb.Fatalf("Poll: %d commands, %v", len(cs), err)
		}
		if _, err := tr.Report("ext", c.ID, tracker.StateComplete, cycleResult, ""); err != nil {
			tb.Fatal(err)
		}
		if _, err := tr.Result(c.Client, c.ID); err != nil {
			tb.Fatal(err)
		}
		clk.Advance(100 * time.Millisecond)
	}
}

func heapAlloc() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// cycleHeapDelta cycles n commands and returns how far the heap moved, once
// the fake clock has run past every timer.
func cycleHeapDelta(tb testing.TB, n int) (delta int64, elapsed time.Duration) {
	tr, clk := newTracker(tb, tracker.Options{})
	cycle(tb, tr, clk, 10_000) // warm up maps, pools and the timer heap
	clk.Advance(time.Hour)
	before := heapAlloc()
	t0 := time.Now()
	cycle(tb, tr, clk, n)
	elapsed = time.Since(t0)
	clk.Advance(time.Hour)
	delta = heapAlloc() - before

	if s := tr.Stats(); s != (tracker.Stats{}) {
		tb.Errorf("Stats after the cycle = %+v, want zero", s)
	}
	if cmds, clients, instances := tr.Sizes(); cmds+clients+instances != 0 {
		tb.Errorf("kept %d commands, %d clients, %d instances; want none", cmds, clients, instances)
	}
	if n := clk.Timers(); n != 0 {
		tb.Errorf("timers left = %d, want 0", n)
	}
	runtime.KeepAlive(tr)
	return delta, elapsed
}

// TestMemoryBounded cycles a million commands (fewer under -short or -race)
// and checks that the heap ends where it started.
func TestMemoryBounded(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 100_000
	}
	delta, elapsed := cycleHeapDelta(t, n)
	t.Logf("%d commands in %v (%.0f/s), heap delta %+.2f MB", n, elapsed.Round(time.Millisecond),
		float64(n)/elapsed.Seconds(), float64(delta)/(1<<20))
	if delta > 10<<20 || delta < -10<<20 {
		t.Errorf("heap moved %+d bytes, want within ±10 MB", delta)
	}
}

// BenchmarkMemory1M reports the heap delta after a million commands.
func BenchmarkMemory1M(b *testing.B) {
	for b.Loop() {
		delta, elapsed := cycleHeapDelta(b, 1_000_000)
		b.ReportMetric(float64(delta)/(1<<20), "heap-delta-MB")
		b.ReportMetric(1e6/elapsed.Seconds(), "cmds/s")
	}
}

// BenchmarkCycle measures one command through Submit → Poll → Report →
// Result.
func BenchmarkCycle(b *testing.B) {
	tr, clk := newTracker(b, tracker.Options{})
	b.ReportAllocs()
	b.ResetTimer()
	cycle(b, tr, clk, b.N)
}

// BenchmarkWaitWakeup measures the time from the Report that finishes a
// command to its blocked Wait returning. ns/op is the mean of that latency.
func BenchmarkWaitWakeup(b *testing.B) {
	tr, _ := newTracker(b, tracker.Options{MaxActive: 1 << 30})
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	woken := make(chan time.Time)
	for range b.N {
		c, _ := tr.Submit(tracker.Spec{})
		tr.Poll(ctx, "ext", 1)
		go func() {
			tr.Wait(ctx, c.Client, c.ID)
			woken <- time.Now()
		}()
		for !tr.Waiting(c.ID) {
			runtime.Gosched()
		}
		t0 := time.Now()
		tr.Report("ext", c.ID, tracker.StateComplete, cycleResult, "")
		lat = append(lat, (<-woken).Sub(t0))
	}
	reportLatency(b, lat)
}

// BenchmarkDispatchWakeup measures the time from Submit to a blocked Poll
// returning the command.
func BenchmarkDispatchWakeup(b *testing.B) {
	tr, _ := newTracker(b, tracker.Options{MaxActive: 1 << 30})
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	polled := make(chan time.Time)
	for range b.N {
		go func() {
			tr.Poll(ctx, "ext", 1)
			polled <- time.Now()
		}()
		for tr.Polling("ext") == 0 {
			runtime.Gosched()
		}
		t0 := time.Now()
		c, _ := tr.Submit(tracker.Spec{})
		lat = append(lat, (<-polled).Sub(t0))
		tr.Report("ext", c.ID, tracker.StateComplete, nil, "")
	}
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	slices.Sort(lat)
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(lat)), "ns/op")
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}
