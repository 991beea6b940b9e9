package tracker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/gasoline-mcp/gasoline/pkg/tracker/trackertest"
)

func TestPoll(t *testing.T) {
	t.Run("blocks until a command is queued", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		got := make(chan result, 1)
		go func() {
			cs, err := tr.Poll(context.Background(), "ext", 0)
			got <- result{cmds: cs, err: err}
		}()
		eventually(t, "Poll blocks", func() bool { return tr.Polling("ext") > 0 })
		c := submit(t, tr, tracker.Spec{})
		r := recv(t, got)
		if r.err != nil || len(r.cmds) != 1 || r.cmds[0].ID != c.ID || r.cmds[0].State != tracker.StatePending {
			t.Errorf("got %+v, %v; want [%s] pending", r.cmds, r.err, c.ID)
		}
	})

	t.Run("ctx end", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan result, 1)
		go func() {
			cs, err := tr.Poll(ctx, "ext", 0)
			got <- result{cmds: cs, err: err}
		}()
		eventually(t, "Poll blocks", func() bool { return tr.Polling("ext") > 0 })
		cancel()
		if r := recv(t, got); r.cmds != nil || !errors.Is(r.err, context.Canceled) {
			t.Errorf("got %v, %v; want nil, %v", r.cmds, r.err, context.Canceled)
		}
	})

	t.Run("max and order", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{MaxActive: 100})
		var want []string
		for i := range 20 {
			want = append(want, submit(t, tr, tracker.Spec{Client: fmt.Sprint(i % 3)}).ID)
		}
		tests := []struct {
			max  int
			want []string
		}{
			{0, want[:16]},
			{3, want[16:19]},
			{-1, want[19:]},
		}
		for _, tt := range tests {
			if got := ids(poll(t, tr, "ext", tt.max)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Poll(max %d) = %v, want %v", tt.max, got, tt.want)
			}
		}
	})
}

// TestExactlyOnce races many Polls against many Submits: every command must
// be delivered exactly once.
func TestExactlyOnce(t *testing.T) {
	const pollers, submitters, n = 8, 4, 1000
	tr, _ := newTracker(t, tracker.Options{MaxActive: n})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var (
		mu        sync.Mutex
		delivered = map[string]int{}
		total     atomic.Int64
		wg        sync.WaitGroup
	)
	for p := range pollers {
		wg.Go(func() {
			for {
				cs, err := tr.Poll(ctx, fmt.Sprintf("inst%d", p), 3)
				if err != nil {
					return
				}
				mu.Lock()
				for _, c := range cs {
					delivered[c.ID]++
					if c.Extension != fmt.Sprintf("inst%d", p) {
						t.Errorf("%s delivered to %s, returned to inst%d", c.ID, c.Extension, p)
					}
				}
				mu.Unlock()
				total.Add(int64(len(cs)))
			}
		})
	}
	var submitted sync.Map
	var sw sync.WaitGroup
	for range submitters {
		sw.Go(func() {
			for range n / submitters {
				c, err := tr.Submit(tracker.Spec{})
				if err != nil {
					t.Error(err)
					return
				}
				submitted.Store(c.ID, true)
			}
		})
	}
	sw.Wait()
	eventually(t, "every command is delivered", func() bool { return total.Load() >= n })
	cancel()
	wg.Wait()

	if len(delivered) != n {
		t.Errorf("delivered %d distinct commands, want %d", len(delivered), n)
	}
	for id, times := range delivered {
		if times != 1 {
			t.Errorf("%s delivered %d times, want 1", id, times)
		}
		if _, ok := submitted.Load(id); !ok {
			t.Errorf("%s delivered but never submitted", id)
		}
	}
	if s := tr.Stats(); s.Queued != 0 || s.Pending != n {
		t.Errorf("Stats = %+v, want Queued 0, Pending %d", s, n)
	}
}

func TestWait(t *testing.T) {
	wait := func(tr *tracker.Tracker, ctx context.Context, id string) <-chan result {
		got := make(chan result, 1)
		go func() {
			c, err := tr.Wait(ctx, "", id)
			got <- result{cmd: c, err: err}
		}()
		return got
	}

	t.Run("woken by completion", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		got := wait(tr, context.Background(), c.ID)
		eventually(t, "Wait blocks", func() bool { return tr.Waiting(c.ID) })
		report(t, tr, c.ID, tracker.StateComplete, `42`)
		r := recv(t, got)
		if r.err != nil || r.cmd.State != tracker.StateComplete || string(r.cmd.Result) != "42" || !r.cmd.Read {
			t.Fatalf("got %+v, %v; want complete 42, read", r.cmd, r.err)
		}
		if _, ready := tr.Unread(""); len(ready) != 0 {
			t.Errorf("Unread ready = %v, want none (Wait reads)", ids(ready))
		}
	})

	t.Run("woken by failure", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := submit(t, tr, tracker.Spec{})
		got := wait(tr, context.Background(), c.ID)
		eventually(t, "Wait blocks", func() bool { return tr.Waiting(c.ID) })
		tr.Cancel("", c.ID)
		if r := recv(t, got); r.err != nil || r.cmd.State != tracker.StateCancelled {
			t.Errorf("got %v, %v; want %v", r.cmd.State, r.err, tracker.StateCancelled)
		}
	})

	t.Run("many waiters", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		var chans []<-chan result
		for range 10 {
			chans = append(chans, wait(tr, context.Background(), c.ID))
		}
		eventually(t, "Wait blocks", func() bool { return tr.Waiting(c.ID) })
		report(t, tr, c.ID, tracker.StateComplete, `1`)
		for _, ch := range chans {
			if r := recv(t, ch); r.err != nil || r.cmd.State != tracker.StateComplete {
				t.Errorf("got %v, %v; want complete", r.cmd.State, r.err)
			}
		}
	})

	t.Run("ctx end", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		ctx, cancel := context.WithCancel(context.Background())
		got := wait(tr, ctx, c.ID)
		eventually(t, "Wait blocks", func() bool { return tr.Waiting(c.ID) })
		cancel()
		r := recv(t, got)
		if !errors.Is(r.err, context.Canceled) || r.cmd.ID != c.ID || r.cmd.State != tracker.StatePending {
			t.Errorf("got %v %v, %v; want the pending snapshot and %v", r.cmd.ID, r.cmd.State, r.err, context.Canceled)
		}
	})

	t.Run("unknown at once", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		if _, err := tr.Wait(context.Background(), "", "exec_nope"); !errors.Is(err, tracker.ErrUnknownCommand) {
			t.Errorf("got %v, want %v", err, tracker.ErrUnknownCommand)
		}
	})

	t.Run("terminal at once", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		report(t, tr, c.ID, tracker.StateComplete, `1`)
		if got, err := tr.Wait(context.Background(), c.Client, c.ID); err != nil || !got.Read {
			t.Errorf("got read=%v, %v; want read, nil", got.Read, err)
		}
	})
}

func TestWaitAny(t *testing.T) {
	bg := context.Background()

	t.Run("idle client", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		got, err := tr.WaitAny(bg, "s")
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("got %#v, %v; want an empty non-nil slice, nil", got, err)
		}
	})

	t.Run("immediate, then not re-announced", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		a := deliver(t, tr, tracker.Spec{Client: "s"})
		b := deliver(t, tr, tracker.Spec{Client: "s"})
		report(t, tr, a.ID, tracker.StateComplete, `1`)
		report(t, tr, b.ID, tracker.StateError, "")
		got, err := tr.WaitAny(bg, "s")
		if want := []string{a.ID, b.ID}; err != nil || fmt.Sprint(ids(got)) != fmt.Sprint(want) {
			t.Fatalf("got %v, %v; want %v", ids(got), err, want)
		}
		if got[0].Read {
			t.Errorf("WaitAny marked %s read; want only announced", a.ID)
		}
		got, err = tr.WaitAny(bg, "s")
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("second call: got %v, %v; want empty (nothing new, nothing running)", ids(got), err)
		}
		if _, ready := tr.Unread("s"); len(ready) != 2 {
			t.Errorf("Unread ready = %v, want both (announced is not read)", ids(ready))
		}
	})

	t.Run("read results are not announced", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		a := deliver(t, tr, tracker.Spec{Client: "s"})
		report(t, tr, a.ID, tracker.StateComplete, `1`)
		tr.Result(a.Client, a.ID)
		if got, _ := tr.WaitAny(bg, "s"); len(got) != 0 {
			t.Errorf("got %v, want none", ids(got))
		}
	})

	t.Run("blocks, then woken", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		a := deliver(t, tr, tracker.Spec{Client: "s"})
		deliver(t, tr, tracker.Spec{Client: "s"}) // keeps s running after a finishes
		other := deliver(t, tr, tracker.Spec{Client: "t"})
		got := make(chan result, 1)
		go func() {
			cs, err := tr.WaitAny(bg, "s")
			got <- result{cmds: cs, err: err}
		}()
		eventually(t, "WaitAny blocks", func() bool { return tr.WaitingAny("s") })
		report(t, tr, other.ID, tracker.StateComplete, `1`) // another client's: no wake-up for s
		report(t, tr, a.ID, tracker.StateComplete, `1`)
		if r := recv(t, got); r.err != nil || fmt.Sprint(ids(r.cmds)) != fmt.Sprint([]string{a.ID}) {
			t.Fatalf("got %v, %v; want [%s]", ids(r.cmds), r.err, a.ID)
		}

		// b still runs: the next call blocks until ctx ends.
		ctx, cancel := context.WithCancel(bg)
		go func() {
			cs, err := tr.WaitAny(ctx, "s")
			got <- result{cmds: cs, err: err}
		}()
		eventually(t, "WaitAny blocks", func() bool { return tr.WaitingAny("s") })
		cancel()
		if r := recv(t, got); r.err != nil || r.cmds == nil || len(r.cmds) != 0 {
			t.Errorf("ctx end: got %#v, %v; want an empty slice, nil", r.cmds, r.err)
		}
	})
}

func TestClose(t *testing.T) {
	tr, clk := newTracker(t, tracker.Options{})
	done := deliver(t, tr, tracker.Spec{Client: "s"})
	report(t, tr, done.ID, tracker.StateComplete, `1`)
	running := deliver(t, tr, tracker.Spec{Client: "s"})
	queued := submit(t, tr, tracker.Spec{Client: "q", External: true})

	results := make(chan result, 3)
	go func() {
		c, err := tr.Wait(context.Background(), running.Client, running.ID)
		results <- result{cmd: c, err: err}
	}()
	go func() {
		tr.WaitAny(context.Background(), "s") // announces done at once
		cs, err := tr.WaitAny(context.Background(), "s")
		results <- result{cmds: cs, err: err}
	}()
	go func() {
		cs, err := tr.Poll(context.Background(), "ext", 0)
		results <- result{cmds: cs, err: err}
	}()
	eventually(t, "everything blocks", func() bool {
		return tr.Waiting(running.ID) && tr.WaitingAny("s") && tr.Polling("ext") > 0
	})

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(tr.Close)
	}
	wg.Wait()
	for range 3 {
		if r := recv(t, results); !errors.Is(r.err, tracker.ErrClosed) {
			t.Errorf("got %v, want %v", r.err, tracker.ErrClosed)
		}
	}
	if n := clk.Timers(); n != 0 {
		t.Errorf("timers left after Close = %d, want 0", n)
	}
	clk.Advance(time.Hour)
	for _, id := range []string{done.ID, running.ID, queued.ID} {
		if _, err := tr.Get(id); err != nil {
			t.Errorf("Get(%s) after Close: %v, want nil (Close fails nothing)", id, err)
		}
	}
	if got := get(t, tr, running.ID); got.State != tracker.StatePending {
		t.Errorf("running command after Close: got %v, want %v", got.State, tracker.StatePending)
	}
	if _, err := tr.Submit(tracker.Spec{}); !errors.Is(err, tracker.ErrClosed) {
		t.Errorf("Submit after Close: got %v, want %v", err, tracker.ErrClosed)
	}
	if _, err := tr.Poll(context.Background(), "ext", 0); !errors.Is(err, tracker.ErrClosed) {
		t.Errorf("Poll after Close: got %v, want %v", err, tracker.ErrClosed)
	}
	tr.Close()
}

func TestPollWithEndedContextHandsOverQueued(t *testing.T) {
	trk := tracker.New(tracker.Options{Clock: trackertest.NewClock(time.Unix(0, 0))})
	defer trk.Close()
	c, err := trk.Submit(tracker.Spec{Client: "a", Prefix: "exec", Action: "execute_js"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := trk.Poll(ctx, "ext", 0)
	if err != nil || len(got) != 1 || got[0].ID != c.ID {
		t.Fatalf("got %v, %v; want %s at once (a zero-length wait is a non-blocking poll)", got, err, c.ID)
	}
	got, err = trk.Poll(ctx, "ext", 0)
	if len(got) != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("empty queue: got %v, %v; want nil, %v", got, err, context.Canceled)
	}
}

func TestErrorTextIsBounded(t *testing.T) {
	trk := tracker.New(tracker.Options{Clock: trackertest.NewClock(time.Unix(0, 0))})
	defer trk.Close()
	c, _ := trk.Submit(tracker.Spec{Client: "a", Prefix: "exec", Action: "execute_js"})
	trk.Poll(context.Background(), "ext", 0)
	huge := strings.Repeat("é", 1<<20) // 2 MB of two-byte characters
	got, err := trk.Report("ext", c.ID, tracker.StateError, nil, "Error: "+huge)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Error) > tracker.MaxErrorBytes+64 || !utf8.ValidString(got.Error) || !strings.Contains(got.Error, "more bytes cut") {
		t.Errorf("got %d bytes of error (valid UTF-8: %v), want at most ~%d, cut at a character, saying so", len(got.Error), utf8.ValidString(got.Error), tracker.MaxErrorBytes)
	}
	if f := trk.List("a").Failed; len(f) != 1 || f[0].Error != got.Error {
		t.Errorf("the failed ring keeps %d entries, want the clipped error", len(f))
	}
}
