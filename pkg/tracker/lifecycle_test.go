package tracker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/oklog/ulid/v2"
)

func TestSubmit(t *testing.T) {
	tests := []struct {
		name        string
		opts        tracker.Options
		spec        tracker.Spec
		wantPrefix  string
		wantClient  string
		wantTimeout time.Duration
	}{
		{"defaults", tracker.Options{}, tracker.Spec{Action: "execute_js"}, "cmd_", "direct", 10 * time.Second},
		{"prefix and client", tracker.Options{}, tracker.Spec{Client: "s1", Prefix: "exec"}, "exec_", "s1", 10 * time.Second},
		{"per-command timeout", tracker.Options{}, tracker.Spec{Timeout: 25 * time.Second}, "cmd_", "direct", 25 * time.Second},
		{"negative timeout is the default", tracker.Options{}, tracker.Spec{Timeout: -time.Second}, "cmd_", "direct", 10 * time.Second},
		{"clamped to MaxExecTimeout", tracker.Options{}, tracker.Spec{Timeout: time.Hour}, "cmd_", "direct", 10 * time.Minute},
		{"configured default", tracker.Options{ExecTimeout: 4 * time.Second}, tracker.Spec{}, "cmd_", "direct", 4 * time.Second},
		{"configured clamp", tracker.Options{MaxExecTimeout: time.Minute}, tracker.Spec{Timeout: 2 * time.Minute}, "cmd_", "direct", time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, _ := newTracker(t, tt.opts)
			c := submit(t, tr, tt.spec)
			if !strings.HasPrefix(c.ID, tt.wantPrefix) {
				t.Errorf("ID = %q, want prefix %q", c.ID, tt.wantPrefix)
			}
			if _, err := ulid.ParseStrict(strings.TrimPrefix(c.ID, tt.wantPrefix)); err != nil {
				t.Errorf("ID %q does not end in a ULID: %v", c.ID, err)
			}
			if c.Client != tt.wantClient {
				t.Errorf("Client = %q, want %q", c.Client, tt.wantClient)
			}
			if c.Timeout != tt.wantTimeout {
				t.Errorf("Timeout = %v, want %v", c.Timeout, tt.wantTimeout)
			}
			if c.State != tracker.StateQueued || c.Delivered || !c.CreatedAt.Equal(start) {
				t.Errorf("got %+v, want queued, undelivered, created at %v", c, start)
			}
		})
	}

	t.Run("ids are unique", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{MaxActive: 1000})
		seen := map[string]bool{}
		for range 1000 {
			c := submit(t, tr, tracker.Spec{})
			if seen[c.ID] {
				t.Fatalf("duplicate id %s", c.ID)
			}
			seen[c.ID] = true
		}
	})
}

// TestTimers drives every per-command timer to just before its deadline (no
// change) and then to it (the transition).
func TestTimers(t *testing.T) {
	tests := []struct {
		name       string
		opts       tracker.Options
		spec       tracker.Spec
		deliver    bool // poll it as "ext", which stays connected
		ack        bool // report pending after delivery
		deadline   time.Duration
		wantState  tracker.State
		wantReason string
		wantError  string
	}{
		{name: "dispatch", deadline: 30 * time.Second,
			wantState: tracker.StateExpired, wantReason: tracker.ReasonExtensionNoResponse, wantError: "installed, paired and connected"},
		{name: "dispatch configured", opts: tracker.Options{DispatchTimeout: 5 * time.Second}, deadline: 5 * time.Second,
			wantState: tracker.StateExpired, wantReason: tracker.ReasonExtensionNoResponse, wantError: "within 5s"},
		{name: "ack", deliver: true, deadline: 3 * time.Second,
			wantState: tracker.StateExpired, wantReason: tracker.ReasonExtensionNoResponse, wantError: "did not acknowledge it within 3s"},
		{name: "exec default", deliver: true, ack: true, deadline: 10 * time.Second,
			wantState: tracker.StateTimeout, wantReason: tracker.ReasonExecutionTimeout, wantError: "10s execution deadline"},
		{name: "exec per-command", spec: tracker.Spec{Timeout: 25 * time.Second}, deliver: true, ack: true, deadline: 25 * time.Second,
			wantState: tracker.StateTimeout, wantReason: tracker.ReasonExecutionTimeout, wantError: "25s execution deadline"},
		{name: "exec clamped", spec: tracker.Spec{Timeout: time.Hour}, deliver: true, ack: true, deadline: 10 * time.Minute,
			wantState: tracker.StateTimeout, wantReason: tracker.ReasonExecutionTimeout, wantError: "10m execution deadline"},
		{name: "exec before ack", spec: tracker.Spec{Timeout: time.Second}, deliver: true, deadline: time.Second,
			wantState: tracker.StateTimeout, wantReason: tracker.ReasonExecutionTimeout},
		{name: "external", spec: tracker.Spec{Prefix: "ann", External: true}, deadline: 10 * time.Minute,
			wantState: tracker.StateExpired, wantReason: tracker.ReasonWaitExpired, wantError: "within 10m"},
		{name: "external configured", opts: tracker.Options{ExternalTTL: time.Minute}, spec: tracker.Spec{External: true}, deadline: time.Minute,
			wantState: tracker.StateExpired, wantReason: tracker.ReasonWaitExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, clk := newTracker(t, tt.opts)
			var c tracker.Command
			if tt.deliver {
				c = deliver(t, tr, tt.spec)
				defer hold(t, tr, "ext")()
				if tt.ack {
					report(t, tr, c.ID, tracker.StatePending, "")
				}
			} else {
				c = submit(t, tr, tt.spec)
			}
			before := c.State

			clk.Advance(tt.deadline - time.Nanosecond)
			if got := get(t, tr, c.ID); got.State != before {
				t.Fatalf("just before the deadline: state %v, want %v", got.State, before)
			}
			clk.Advance(time.Nanosecond)
			got := get(t, tr, c.ID)
			if got.State != tt.wantState || got.Reason != tt.wantReason {
				t.Fatalf("at the deadline: got %v/%v, want %v/%v", got.State, got.Reason, tt.wantState, tt.wantReason)
			}
			if !strings.Contains(got.Error, tt.wantError) {
				t.Errorf("Error = %q, want it to contain %q", got.Error, tt.wantError)
			}
			if want := start.Add(tt.deadline); got.FinishedAt == nil || !got.FinishedAt.Equal(want) {
				t.Errorf("FinishedAt = %v, want %v", got.FinishedAt, want)
			}
			if f := tr.List("").Failed; len(f) != 1 || f[0].ID != c.ID {
				t.Errorf("failed ring = %v, want [%s] at once", ids(f), c.ID)
			}
			// Only the retention timer (and the held Poll's instance) remain.
			clk.Advance(time.Minute)
			if n, _, _ := tr.Sizes(); n != 0 {
				t.Errorf("retained commands after the TTL = %d, want 0", n)
			}
			if got := get(t, tr, c.ID); got.State != tt.wantState {
				t.Errorf("from the ring: state %v, want %v", got.State, tt.wantState)
			}
		})
	}
}

func TestDisconnect(t *testing.T) {
	const grace = 3 * time.Second
	long := tracker.Spec{Timeout: 5 * time.Minute}

	t.Run("gone after grace", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, long)
		report(t, tr, c.ID, tracker.StatePending, "")
		clk.Advance(grace - time.Nanosecond)
		if got := get(t, tr, c.ID); got.State != tracker.StatePending {
			t.Fatalf("before grace: got %v, want %v", got.State, tracker.StatePending)
		}
		if !tr.Presence().Connected {
			t.Errorf("before grace: Connected = false, want true")
		}
		clk.Advance(time.Nanosecond)
		got := get(t, tr, c.ID)
		if got.State != tracker.StateError || got.Reason != tracker.ReasonExtensionDisconnected {
			t.Fatalf("after grace: got %v/%v, want %v/%v", got.State, got.Reason, tracker.StateError, tracker.ReasonExtensionDisconnected)
		}
		if !strings.Contains(got.Error, "may or may not have run") {
			t.Errorf("Error = %q, want it to say the command may or may not have run", got.Error)
		}
		if tr.Presence().Connected {
			t.Errorf("after grace: Connected = true, want false")
		}
		if _, _, inst := tr.Sizes(); inst != 0 {
			t.Errorf("instances kept = %d, want 0", inst)
		}
	})

	t.Run("touch in time", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, long)
		report(t, tr, c.ID, tracker.StatePending, "")
		clk.Advance(2 * time.Second)
		tr.Touch("ext")
		clk.Advance(grace - time.Nanosecond)
		if got := get(t, tr, c.ID); got.State != tracker.StatePending {
			t.Fatalf("grace after the touch not over: got %v, want %v", got.State, tracker.StatePending)
		}
		clk.Advance(time.Nanosecond)
		if got := get(t, tr, c.ID); got.State != tracker.StateError {
			t.Fatalf("grace after the touch over: got %v, want %v", got.State, tracker.StateError)
		}
	})

	t.Run("re-poll in time", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, long)
		report(t, tr, c.ID, tracker.StatePending, "")
		clk.Advance(2 * time.Second)
		release := hold(t, tr, "ext")
		clk.Advance(time.Minute) // a Poll in flight: connected however long
		if got := get(t, tr, c.ID); got.State != tracker.StatePending {
			t.Fatalf("with a Poll in flight: got %v, want %v", got.State, tracker.StatePending)
		}
		release()
		clk.Advance(grace - time.Nanosecond)
		if got := get(t, tr, c.ID); got.State != tracker.StatePending {
			t.Fatalf("grace after the Poll ended not over: got %v, want %v", got.State, tracker.StatePending)
		}
		clk.Advance(time.Nanosecond)
		if got := get(t, tr, c.ID); got.State != tracker.StateError {
			t.Fatalf("grace after the Poll ended over: got %v, want %v", got.State, tracker.StateError)
		}
	})

	t.Run("report keeps it connected", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		a := deliver(t, tr, long)
		b := deliver(t, tr, long)
		report(t, tr, a.ID, tracker.StatePending, "")
		report(t, tr, b.ID, tracker.StatePending, "")
		clk.Advance(2 * time.Second)
		report(t, tr, a.ID, tracker.StateComplete, `1`)
		clk.Advance(2 * time.Second)
		if got := get(t, tr, b.ID); got.State != tracker.StatePending {
			t.Fatalf("got %v, want %v", got.State, tracker.StatePending)
		}
	})

	t.Run("queued commands go to the next instance", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		first := submit(t, tr, long)
		second := submit(t, tr, long)
		got := poll(t, tr, "A", 1)
		if len(got) != 1 || got[0].ID != first.ID {
			t.Fatalf("A polled %v, want [%s]", ids(got), first.ID)
		}
		report(t, tr, first.ID, tracker.StatePending, "")
		clk.Advance(grace)
		if c := get(t, tr, first.ID); c.State != tracker.StateError || c.Reason != tracker.ReasonExtensionDisconnected {
			t.Errorf("delivered command: got %v/%v, want %v/%v", c.State, c.Reason, tracker.StateError, tracker.ReasonExtensionDisconnected)
		}
		if c := get(t, tr, second.ID); c.State != tracker.StateQueued {
			t.Errorf("undelivered command: got %v, want %v", c.State, tracker.StateQueued)
		}
		got = poll(t, tr, "B", 0)
		if len(got) != 1 || got[0].ID != second.ID || got[0].Extension != "B" {
			t.Fatalf("B polled %+v, want [%s] delivered to B", got, second.ID)
		}
	})

	t.Run("instances are independent", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		a := deliver(t, tr, long) // to "ext"
		report(t, tr, a.ID, tracker.StatePending, "")
		defer hold(t, tr, "other")()
		clk.Advance(grace)
		if c := get(t, tr, a.ID); c.State != tracker.StateError {
			t.Errorf("got %v, want %v", c.State, tracker.StateError)
		}
		if !tr.Presence().Connected {
			t.Errorf("Connected = false, want true (other is polling)")
		}
	})
}

func TestPresence(t *testing.T) {
	tr, clk := newTracker(t, tracker.Options{})
	if got := tr.Presence(); got != (tracker.Presence{}) {
		t.Errorf("never seen: got %+v, want zero", got)
	}
	tr.Touch("A")
	want := tracker.Presence{Connected: true, LastSeen: start, Instance: "A"}
	if got := tr.Presence(); got != want {
		t.Errorf("after Touch: got %+v, want %+v", got, want)
	}
	clk.Advance(3 * time.Second)
	want.Connected = false
	if got := tr.Presence(); got != want {
		t.Errorf("after grace: got %+v, want %+v", got, want)
	}
	release := hold(t, tr, "B")
	clk.Advance(time.Minute)
	want = tracker.Presence{Connected: true, LastSeen: start.Add(time.Minute + 3*time.Second), Instance: "B"}
	if got := tr.Presence(); got != want {
		t.Errorf("polling: got %+v, want %+v", got, want)
	}
	release()
}

func TestRetention(t *testing.T) {
	t.Run("unread complete goes to the ring", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{Client: "s"})
		report(t, tr, c.ID, tracker.StateComplete, `{"v":1}`)
		clk.Advance(time.Minute - time.Nanosecond)
		if got := get(t, tr, c.ID); got.State != tracker.StateComplete || string(got.Result) != `{"v":1}` {
			t.Fatalf("within TTL: got %v %s, want complete {\"v\":1}", got.State, got.Result)
		}
		if got := tr.Stats().Completed; got != 1 {
			t.Errorf("Stats.Completed = %d, want 1", got)
		}
		clk.Advance(time.Nanosecond)
		got := get(t, tr, c.ID)
		if got.State != tracker.StateExpired || got.Reason != tracker.ReasonResultExpired || got.Result != nil {
			t.Fatalf("after TTL: got %v/%v result %s, want %v/%v and no result", got.State, got.Reason, got.Result, tracker.StateExpired, tracker.ReasonResultExpired)
		}
		if want := "result expired after 60s without being read"; got.Error != want {
			t.Errorf("Error = %q, want %q", got.Error, want)
		}
		if f := tr.List("s").Failed; len(f) != 1 || f[0].ID != c.ID {
			t.Errorf("List.Failed = %v, want [%s]", ids(f), c.ID)
		}
		if s := tr.Stats(); s.Completed != 0 || s.Failed != 1 {
			t.Errorf("Stats = %+v, want Completed 0, Failed 1", s)
		}
		if _, clients, _ := tr.Sizes(); clients != 0 {
			t.Errorf("clients kept = %d, want 0", clients)
		}
	})

	t.Run("configured TTL in the message", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{ResultTTL: 5 * time.Second})
		c := deliver(t, tr, tracker.Spec{})
		report(t, tr, c.ID, tracker.StateComplete, `1`)
		clk.Advance(5 * time.Second)
		if got, want := get(t, tr, c.ID).Error, "result expired after 5s without being read"; got != want {
			t.Errorf("Error = %q, want %q", got, want)
		}
	})

	t.Run("read is dropped", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		report(t, tr, c.ID, tracker.StateComplete, `1`)
		if got, err := tr.Result(c.Client, c.ID); err != nil || !got.Read {
			t.Fatalf("Result: got %+v, %v, want it read", got, err)
		}
		clk.Advance(time.Minute)
		if _, err := tr.Get(c.ID); !errors.Is(err, tracker.ErrUnknownCommand) {
			t.Errorf("Get after TTL: got %v, want %v", err, tracker.ErrUnknownCommand)
		}
		if n := tr.Stats().Failed; n != 0 {
			t.Errorf("ring size = %d, want 0", n)
		}
	})

	t.Run("announced but unread goes to the ring", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		report(t, tr, c.ID, tracker.StateComplete, `1`)
		if got, _ := tr.WaitAny(context.Background(), ""); len(got) != 1 {
			t.Fatalf("WaitAny = %v, want [%s]", ids(got), c.ID)
		}
		clk.Advance(time.Minute)
		if got := get(t, tr, c.ID); got.Reason != tracker.ReasonResultExpired {
			t.Errorf("got reason %q, want %q", got.Reason, tracker.ReasonResultExpired)
		}
	})

	t.Run("failures are in the ring at once and after TTL", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		if _, err := tr.Report("ext", c.ID, tracker.StateError, nil, "ReferenceError: x is not defined"); err != nil {
			t.Fatal(err)
		}
		f := tr.List("").Failed
		if len(f) != 1 || f[0].State != tracker.StateError || f[0].Reason != tracker.ReasonCommandError || f[0].Error != "ReferenceError: x is not defined" {
			t.Fatalf("List.Failed = %+v, want the error at once", f)
		}
		if got, _ := tr.Result(c.Client, c.ID); !got.Read {
			t.Errorf("Result: Read = false, want true")
		}
		clk.Advance(time.Minute)
		got := get(t, tr, c.ID)
		if got.State != tracker.StateError || !got.Read {
			t.Errorf("from the ring: got %v read=%v, want %v read=true", got.State, got.Read, tracker.StateError)
		}
	})

	t.Run("MaxRetained evicts the oldest", func(t *testing.T) {
		for _, read := range []bool{false, true} {
			t.Run(fmt.Sprintf("read=%v", read), func(t *testing.T) {
				tr, _ := newTracker(t, tracker.Options{})
				var first string
				for i := range 101 {
					c := deliver(t, tr, tracker.Spec{Client: "s"})
					report(t, tr, c.ID, tracker.StateComplete, `1`)
					if read {
						tr.Result(c.Client, c.ID)
					}
					if i == 0 {
						first = c.ID
					}
				}
				l := tr.List("s")
				if len(l.Completed) != 100 || l.Completed[0].ID == first {
					t.Fatalf("retained %d, oldest %s; want 100 without %s", len(l.Completed), l.Completed[0].ID, first)
				}
				c, err := tr.Get(first)
				switch {
				case read && !errors.Is(err, tracker.ErrUnknownCommand):
					t.Errorf("evicted read result: got %v, want %v", err, tracker.ErrUnknownCommand)
				case !read && (err != nil || c.Reason != tracker.ReasonResultExpired):
					t.Errorf("evicted unread result: got %v/%v, want reason %v", c.Reason, err, tracker.ReasonResultExpired)
				}
			})
		}
	})

	t.Run("ring FIFO at size+1", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{MaxActive: 200})
		var all []string
		for range 101 {
			c := submit(t, tr, tracker.Spec{})
			if _, err := tr.Cancel("", c.ID); err != nil {
				t.Fatal(err)
			}
			all = append(all, c.ID)
		}
		clk.Advance(time.Minute) // end retention: only the ring answers
		f := tr.All().Failed
		if len(f) != 100 || f[0].ID != all[1] || f[99].ID != all[100] {
			t.Fatalf("ring holds %d, %s..%s; want 100, %s..%s", len(f), f[0].ID, f[len(f)-1].ID, all[1], all[100])
		}
		if _, err := tr.Get(all[0]); !errors.Is(err, tracker.ErrUnknownCommand) {
			t.Errorf("evicted entry: got %v, want %v", err, tracker.ErrUnknownCommand)
		}
		for _, id := range all[1:] {
			if c := get(t, tr, id); c.State != tracker.StateCancelled {
				t.Fatalf("%s: got %v, want %v", id, c.State, tracker.StateCancelled)
			}
		}
		// A full turn evicts every earlier entry, index included.
		for range 100 {
			c := submit(t, tr, tracker.Spec{})
			tr.Cancel("", c.ID)
		}
		clk.Advance(time.Minute)
		for _, id := range all {
			if _, err := tr.Get(id); !errors.Is(err, tracker.ErrUnknownCommand) {
				t.Fatalf("%s after a full turn: got %v, want %v", id, err, tracker.ErrUnknownCommand)
			}
		}
		if n := tr.Stats().Failed; n != 100 {
			t.Errorf("Stats.Failed = %d, want 100", n)
		}
	})
}

// terminal builds a command in each terminal state.
var terminal = []struct {
	name  string
	state tracker.State
	make  func(*testing.T, *tracker.Tracker, func(time.Duration)) string
}{
	{"complete", tracker.StateComplete, func(t *testing.T, tr *tracker.Tracker, _ func(time.Duration)) string {
		c := deliver(t, tr, tracker.Spec{})
		return report(t, tr, c.ID, tracker.StateComplete, `1`).ID
	}},
	{"error", tracker.StateError, func(t *testing.T, tr *tracker.Tracker, _ func(time.Duration)) string {
		c := deliver(t, tr, tracker.Spec{})
		return report(t, tr, c.ID, tracker.StateError, "").ID
	}},
	{"timeout", tracker.StateTimeout, func(t *testing.T, tr *tracker.Tracker, _ func(time.Duration)) string {
		c := deliver(t, tr, tracker.Spec{})
		return report(t, tr, c.ID, tracker.StateTimeout, "").ID
	}},
	{"expired", tracker.StateExpired, func(t *testing.T, tr *tracker.Tracker, advance func(time.Duration)) string {
		c := submit(t, tr, tracker.Spec{})
		advance(30 * time.Second)
		return c.ID
	}},
	{"cancelled", tracker.StateCancelled, func(t *testing.T, tr *tracker.Tracker, _ func(time.Duration)) string {
		c := submit(t, tr, tracker.Spec{})
		tr.Cancel("", c.ID)
		return c.ID
	}},
	{"external complete", tracker.StateComplete, func(t *testing.T, tr *tracker.Tracker, _ func(time.Duration)) string {
		c := submit(t, tr, tracker.Spec{External: true})
		tr.Complete(c.ID, json.RawMessage(`[]`))
		return c.ID
	}},
	{"external expired", tracker.StateExpired, func(t *testing.T, tr *tracker.Tracker, advance func(time.Duration)) string {
		c := submit(t, tr, tracker.Spec{External: true})
		advance(10 * time.Minute)
		return c.ID
	}},
	{"external cancelled", tracker.StateCancelled, func(t *testing.T, tr *tracker.Tracker, _ func(time.Duration)) string {
		c := submit(t, tr, tracker.Spec{External: true})
		tr.Cancel("", c.ID)
		return c.ID
	}},
}

func TestForwardOnly(t *testing.T) {
	for _, tc := range terminal {
		// retained: within ResultTTL; ring: only the failed ring (or nothing) remains.
		for _, phase := range []string{"retained", "after TTL"} {
			t.Run(tc.name+"/"+phase, func(t *testing.T) {
				tr, clk := newTracker(t, tracker.Options{})
				id := tc.make(t, tr, clk.Advance)
				if phase == "after TTL" {
					clk.Advance(time.Minute)
				}
				before, err := tr.Get(id)
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				wantState := tc.state
				if phase == "after TTL" && tc.state == tracker.StateComplete {
					wantState = tracker.StateExpired // unread result
				}
				if before.State != wantState {
					t.Fatalf("setup: state %v, want %v", before.State, wantState)
				}
				for _, status := range []tracker.State{tracker.StatePending, tracker.StateComplete, tracker.StateError, tracker.StateTimeout} {
					if _, err := tr.Report("ext", id, status, nil, ""); !errors.Is(err, tracker.ErrFinal) {
						t.Errorf("Report(%v): got %v, want %v", status, err, tracker.ErrFinal)
					}
				}
				if _, err := tr.Cancel("", id); !errors.Is(err, tracker.ErrFinal) {
					t.Errorf("Cancel: got %v, want %v", err, tracker.ErrFinal)
				}
				if _, err := tr.Complete(id, json.RawMessage(`1`)); !errors.Is(err, tracker.ErrFinal) {
					t.Errorf("Complete: got %v, want %v", err, tracker.ErrFinal)
				}
				after := get(t, tr, id)
				if after.State != before.State || after.Reason != before.Reason || string(after.Result) != string(before.Result) {
					t.Errorf("changed: got %v/%v/%s, want %v/%v/%s", after.State, after.Reason, after.Result, before.State, before.Reason, before.Result)
				}
			})
		}
	}
}

func TestReport(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	queued := submit(t, tr, tracker.Spec{Client: "q"})
	external := submit(t, tr, tracker.Spec{External: true})
	tests := []struct {
		name    string
		id      string
		status  tracker.State
		wantErr error
	}{
		{"bad status", queued.ID, "done", tracker.ErrBadStatus},
		{"queued status is bad", queued.ID, tracker.StateQueued, tracker.ErrBadStatus},
		{"unknown id", "exec_nope", tracker.StateComplete, tracker.ErrUnknownCommand},
		{"still queued", queued.ID, tracker.StateComplete, tracker.ErrNotDelivered},
		{"external", external.ID, tracker.StateComplete, tracker.ErrNotDelivered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tr.Report("ext", tt.id, tt.status, nil, ""); !errors.Is(err, tt.wantErr) {
				t.Errorf("got %v, want %v", err, tt.wantErr)
			}
		})
	}

	t.Run("pending acks and repeats", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{})
		if c.Acked || !c.Delivered || c.State != tracker.StatePending || c.DeliveredAt == nil || c.Extension != "ext" {
			t.Fatalf("delivered: got %+v", c)
		}
		for range 2 {
			if got := report(t, tr, c.ID, tracker.StatePending, ""); !got.Acked || got.State != tracker.StatePending {
				t.Errorf("after pending: got acked=%v state=%v, want acked pending", got.Acked, got.State)
			}
		}
		got := report(t, tr, c.ID, tracker.StateComplete, `"ok"`)
		if got.State != tracker.StateComplete || string(got.Result) != `"ok"` || got.Reason != "" || got.Error != "" {
			t.Errorf("after complete: got %+v", got)
		}
	})

	t.Run("final statuses", func(t *testing.T) {
		tests := []struct {
			status     tracker.State
			errMsg     string
			wantReason string
			wantError  string
		}{
			{tracker.StateComplete, "", "", ""},
			{tracker.StateError, "boom", tracker.ReasonCommandError, "boom"},
			{tracker.StateError, "", tracker.ReasonCommandError, "without an error message"},
			{tracker.StateTimeout, "Execution timeout", tracker.ReasonExecutionTimeout, "Execution timeout"},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s %q", tt.status, tt.errMsg), func(t *testing.T) {
				tr, _ := newTracker(t, tracker.Options{})
				c := deliver(t, tr, tracker.Spec{})
				got, err := tr.Report("ext", c.ID, tt.status, nil, tt.errMsg)
				if err != nil {
					t.Fatal(err)
				}
				if got.State != tt.status || got.Reason != tt.wantReason || !strings.Contains(got.Error, tt.wantError) || !got.Acked {
					t.Errorf("got %v/%v/%q, want %v/%v/%q", got.State, got.Reason, got.Error, tt.status, tt.wantReason, tt.wantError)
				}
			})
		}
	})
}

func TestComplete(t *testing.T) {
	tr, clk := newTracker(t, tracker.Options{})
	ann := submit(t, tr, tracker.Spec{Prefix: "ann", Action: "draw_mode", External: true})
	if cs, err := tr.Poll(canceled(), "ext", 0); len(cs) != 0 || err == nil {
		t.Fatalf("Poll: got %v, %v; want nothing (External is never delivered)", ids(cs), err)
	}
	if s := tr.Stats(); s.External != 1 || s.Queued != 0 {
		t.Errorf("Stats = %+v, want External 1, Queued 0", s)
	}
	clk.Advance(5 * time.Minute)
	got, err := tr.Complete(ann.ID, json.RawMessage(`{"annotations":[]}`))
	if err != nil || got.State != tracker.StateComplete || string(got.Result) != `{"annotations":[]}` {
		t.Fatalf("got %+v, %v; want complete with the annotations", got, err)
	}
	if s := tr.Stats(); s.External != 0 || s.Completed != 1 {
		t.Errorf("Stats = %+v, want External 0, Completed 1", s)
	}
	if _, err := tr.Complete("ann_nope", nil); !errors.Is(err, tracker.ErrUnknownCommand) {
		t.Errorf("unknown: got %v, want %v", err, tracker.ErrUnknownCommand)
	}
	exec := submit(t, tr, tracker.Spec{})
	if _, err := tr.Complete(exec.ID, nil); !errors.Is(err, tracker.ErrUnknownCommand) {
		t.Errorf("not External: got %v, want %v", err, tracker.ErrUnknownCommand)
	}
}

func TestCancelExternal(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	ann := submit(t, tr, tracker.Spec{Client: "s", Prefix: "ann", Action: "draw_mode", External: true})
	got, err := tr.CancelExternal(ann.ID, "the user pressed Esc")
	if err != nil || got.State != tracker.StateCancelled || got.Reason != tracker.ReasonCancelled || got.Error != "the user pressed Esc" {
		t.Fatalf("got %+v, %v; want cancelled with the user's reason", got, err)
	}
	if _, err := tr.CancelExternal(ann.ID, "again"); !errors.Is(err, tracker.ErrFinal) {
		t.Errorf("twice: got %v, want %v", err, tracker.ErrFinal)
	}
	if _, err := tr.Complete(ann.ID, nil); !errors.Is(err, tracker.ErrFinal) {
		t.Errorf("complete after cancel: got %v, want %v", err, tracker.ErrFinal)
	}
	exec := submit(t, tr, tracker.Spec{})
	if _, err := tr.CancelExternal(exec.ID, "x"); !errors.Is(err, tracker.ErrUnknownCommand) {
		t.Errorf("not External: got %v, want %v", err, tracker.ErrUnknownCommand)
	}
	if _, err := tr.CancelExternal("ann_nope", "x"); !errors.Is(err, tracker.ErrUnknownCommand) {
		t.Errorf("unknown: got %v, want %v", err, tracker.ErrUnknownCommand)
	}
}

func TestQueueFull(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	var first tracker.Command
	for i := range 32 {
		c := submit(t, tr, tracker.Spec{Client: "s", External: i%2 == 0})
		if i == 0 {
			first = c
		}
	}
	_, err := tr.Submit(tracker.Spec{Client: "s"})
	if !errors.Is(err, tracker.ErrQueueFull) {
		t.Fatalf("33rd: got %v, want %v", err, tracker.ErrQueueFull)
	}
	for _, want := range []string{"32", "wait", "cancel"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := tr.Submit(tracker.Spec{Client: "other"}); err != nil {
		t.Errorf("another client: got %v, want nil", err)
	}
	if _, err := tr.Cancel("s", first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Submit(tracker.Spec{Client: "s"}); err != nil {
		t.Errorf("after one finished: got %v, want nil", err)
	}
}

func TestCancel(t *testing.T) {
	t.Run("queued is never delivered", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := submit(t, tr, tracker.Spec{Client: "s"})
		got, err := tr.Cancel("s", c.ID)
		if err != nil || got.State != tracker.StateCancelled || got.Reason != tracker.ReasonCancelled || got.Delivered {
			t.Fatalf("got %+v, %v; want cancelled, undelivered", got, err)
		}
		next := submit(t, tr, tracker.Spec{Client: "s"})
		if cs := poll(t, tr, "ext", 0); len(cs) != 1 || cs[0].ID != next.ID {
			t.Errorf("Poll = %v, want only [%s]", ids(cs), next.ID)
		}
	})

	t.Run("pending", func(t *testing.T) {
		tr, clk := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{Client: "s"})
		got, err := tr.Cancel("s", c.ID)
		if err != nil || got.State != tracker.StateCancelled || !strings.Contains(got.Error, "may or may not have run") {
			t.Fatalf("got %+v, %v; want cancelled, saying it may have run", got, err)
		}
		if _, err := tr.Report("ext", c.ID, tracker.StateComplete, nil, ""); !errors.Is(err, tracker.ErrFinal) {
			t.Errorf("late report: got %v, want %v", err, tracker.ErrFinal)
		}
		clk.Advance(10 * time.Second) // the ack and execution timers were stopped
		if got := get(t, tr, c.ID); got.State != tracker.StateCancelled {
			t.Errorf("got %v, want %v", got.State, tracker.StateCancelled)
		}
	})

	t.Run("another client's", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := submit(t, tr, tracker.Spec{Client: "s"})
		if _, err := tr.Cancel("t", c.ID); !errors.Is(err, tracker.ErrUnknownCommand) {
			t.Errorf("got %v, want %v", err, tracker.ErrUnknownCommand)
		}
		if _, err := tr.Cancel("s", "exec_nope"); !errors.Is(err, tracker.ErrUnknownCommand) {
			t.Errorf("unknown: got %v, want %v", err, tracker.ErrUnknownCommand)
		}
	})
}

func TestSnapshotsAreCopies(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{})
	c := deliver(t, tr, tracker.Spec{})
	c = report(t, tr, c.ID, tracker.StateComplete, `1`)
	*c.DeliveredAt = time.Time{}
	*c.FinishedAt = time.Time{}
	c.State = tracker.StateError
	got := get(t, tr, c.ID)
	if !got.DeliveredAt.Equal(start) || !got.FinishedAt.Equal(start) || got.State != tracker.StateComplete {
		t.Errorf("got %+v, want the tracker unchanged", got)
	}
}

func TestLists(t *testing.T) {
	tr, clk := newTracker(t, tracker.Options{})
	a1 := submit(t, tr, tracker.Spec{Client: "a"})
	b1 := submit(t, tr, tracker.Spec{Client: "b"})
	a2 := submit(t, tr, tracker.Spec{Client: "a"})
	cs := poll(t, tr, "ext", 2) // a1, b1
	clk.Advance(time.Second)
	report(t, tr, cs[1].ID, tracker.StateComplete, `1`) // b1
	report(t, tr, cs[0].ID, tracker.StateComplete, `1`) // a1
	a3 := submit(t, tr, tracker.Spec{Client: "a"})
	tr.Cancel("a", a3.ID)

	la := tr.List("a")
	if got, want := ids(la.Pending), []string{a2.ID}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List(a).Pending = %v, want %v", got, want)
	}
	if got, want := ids(la.Completed), []string{a1.ID}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List(a).Completed = %v, want %v", got, want)
	}
	if got, want := ids(la.Failed), []string{a3.ID}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List(a).Failed = %v, want %v", got, want)
	}
	all := tr.All()
	if got, want := ids(all.Completed), []string{b1.ID, a1.ID}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("All.Completed = %v, want %v (finishing order)", got, want)
	}
	if got, want := ids(all.Pending), []string{a2.ID}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("All.Pending = %v, want %v", got, want)
	}
	empty := tr.List("nobody")
	if empty.Pending == nil || empty.Completed == nil || empty.Failed == nil {
		t.Errorf("List(nobody) = %#v, want empty non-nil slices", empty)
	}

	running, ready := tr.Unread("a")
	if fmt.Sprint(ids(running)) != fmt.Sprint([]string{a2.ID}) || fmt.Sprint(ids(ready)) != fmt.Sprint([]string{a1.ID, a3.ID}) {
		t.Errorf("Unread(a) = %v, %v; want [%s], [%s %s]", ids(running), ids(ready), a2.ID, a1.ID, a3.ID)
	}
	tr.Result(a1.Client, a1.ID)
	if _, ready := tr.Unread("a"); fmt.Sprint(ids(ready)) != fmt.Sprint([]string{a3.ID}) {
		t.Errorf("Unread(a) after Result = %v, want [%s]", ids(ready), a3.ID)
	}
	want := tracker.Stats{Queued: 1, Completed: 3, Failed: 1}
	if got := tr.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestRealClock runs the lifecycle on real time with tiny timeouts: the
// outcome does not depend on how fast the machine is, only the wait does.
func TestRealClock(t *testing.T) {
	tr := tracker.New(tracker.Options{DispatchTimeout: time.Millisecond, ResultTTL: time.Millisecond})
	defer tr.Close()
	c, err := tr.Submit(tracker.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	got, err := tr.Wait(ctx, c.Client, c.ID)
	if err != nil || got.State != tracker.StateExpired || got.Reason != tracker.ReasonExtensionNoResponse {
		t.Fatalf("got %v/%v, %v; want %v/%v", got.State, got.Reason, err, tracker.StateExpired, tracker.ReasonExtensionNoResponse)
	}
	eventually(t, "retention ends", func() bool { n, _, _ := tr.Sizes(); return n == 0 })

	tm := tracker.RealClock().AfterFunc(time.Hour, func() { t.Error("stopped timer fired") })
	if !tm.Stop() {
		t.Errorf("Stop: got false, want true")
	}
}
