package tracker_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/gasoline-mcp/gasoline/pkg/tracker/trackertest"
)

// start is the fake clock's starting time in every test.
var start = time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC)

// guard bounds how long a test waits for a goroutine it expects to finish at
// once; it only turns a hang into a failure and never decides an outcome.
const guard = 10 * time.Second

func newTracker(tb testing.TB, opts tracker.Options) (*tracker.Tracker, *trackertest.Clock) {
	tb.Helper()
	clk := trackertest.NewClock(start)
	opts.Clock = clk
	tr := tracker.New(opts)
	tb.Cleanup(tr.Close)
	return tr, clk
}

func submit(tb testing.TB, tr *tracker.Tracker, spec tracker.Spec) tracker.Command {
	tb.Helper()
	c, err := tr.Submit(spec)
	if err != nil {
		tb.Fatalf("Submit(%+v): %v", spec, err)
	}
	return c
}

// poll polls for up to max commands that must already be queued.
func poll(tb testing.TB, tr *tracker.Tracker, instance string, max int) []tracker.Command {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cs, err := tr.Poll(ctx, instance, max)
	if err != nil {
		tb.Fatalf("Poll(%q, %d): %v", instance, max, err)
	}
	return cs
}

// deliver submits spec and polls it as instance "ext".
func deliver(tb testing.TB, tr *tracker.Tracker, spec tracker.Spec) tracker.Command {
	tb.Helper()
	c := submit(tb, tr, spec)
	cs := poll(tb, tr, "ext", 1)
	if len(cs) != 1 || cs[0].ID != c.ID {
		tb.Fatalf("Poll returned %v, want %s", ids(cs), c.ID)
	}
	return cs[0]
}

func report(tb testing.TB, tr *tracker.Tracker, id string, status tracker.State, result string) tracker.Command {
	tb.Helper()
	var raw json.RawMessage
	if result != "" {
		raw = json.RawMessage(result)
	}
	c, err := tr.Report("ext", id, status, raw, "")
	if err != nil {
		tb.Fatalf("Report(%s, %s): %v", id, status, err)
	}
	return c
}

func get(tb testing.TB, tr *tracker.Tracker, id string) tracker.Command {
	tb.Helper()
	c, err := tr.Get(id)
	if err != nil {
		tb.Fatalf("Get(%s): %v", id, err)
	}
	return c
}

// hold keeps a Poll of instance in flight (so the instance stays connected)
// until the returned function is called. Nothing may be queued meanwhile: the
// held Poll would take it.
func hold(tb testing.TB, tr *tracker.Tracker, instance string) (release func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tr.Poll(ctx, instance, 1)
		done <- err
	}()
	eventually(tb, "the held Poll blocks", func() bool { return tr.Polling(instance) > 0 })
	return func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			tb.Errorf("held Poll returned %v, want %v", err, context.Canceled)
		}
	}
}

// eventually waits, yielding the processor, until cond holds.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up waiting until %s", what)
		}
		runtime.Gosched()
	}
}

// recv returns what ch delivers, failing the test if nothing comes.
func recv[T any](tb testing.TB, ch <-chan T) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		tb.Fatalf("nothing received within %v", guard)
		panic("unreachable")
	}
}

func ids(cs []tracker.Command) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

type result struct {
	cmd  tracker.Command
	cmds []tracker.Command
	err  error
}
