package trackertest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker/trackertest"
)

var start = time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC)

func TestClock(t *testing.T) {
	c := trackertest.NewClock(start)
	var fired []string
	at := func(name string) func() {
		return func() { fired = append(fired, fmt.Sprintf("%s@%v", name, c.Now().Sub(start))) }
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	c.AfterFunc(time.Second, at("b")) // same deadline: creation order
	stopped := c.AfterFunc(2*time.Second, at("stopped"))
	c.AfterFunc(2*time.Second, func() {
		// f may schedule more; due within this Advance, it fires in it.
		c.AfterFunc(500*time.Millisecond, at("chained"))
	})
	if !stopped.Stop() {
		t.Errorf("Stop of a pending timer: got false, want true")
	}
	if stopped.Stop() {
		t.Errorf("second Stop: got true, want false")
	}

	c.Advance(time.Second - time.Nanosecond)
	if len(fired) != 0 {
		t.Fatalf("before any deadline: fired %v, want none", fired)
	}
	c.Advance(2 * time.Second)
	want := "[a@1s b@1s chained@2.5s]"
	if got := fmt.Sprint(fired); got != want {
		t.Errorf("fired %v, want %v", got, want)
	}
	if got := c.Now().Sub(start); got != 3*time.Second-time.Nanosecond {
		t.Errorf("Now = start+%v, want start+%v", got, 3*time.Second-time.Nanosecond)
	}
	if n := c.Timers(); n != 1 {
		t.Errorf("Timers = %d, want 1", n)
	}

	c.Set(start.Add(time.Hour))
	if got := fired[len(fired)-1]; got != "c@3s" {
		t.Errorf("Set: last fired %v, want c@3s", got)
	}
	c.Set(start) // backwards: nothing fires
	if got := c.Now(); !got.Equal(start) {
		t.Errorf("Now after Set back = %v, want %v", got, start)
	}
	fire := c.AfterFunc(0, at("zero"))
	c.Advance(0)
	if got := fired[len(fired)-1]; got != "zero@0s" {
		t.Errorf("AfterFunc(0) then Advance(0): last fired %v, want zero@0s", got)
	}
	if fire.Stop() {
		t.Errorf("Stop after firing: got true, want false")
	}
}

// TestClockHeap stops and fires many timers in mixed order and checks the
// deadline order holds.
func TestClockHeap(t *testing.T) {
	c := trackertest.NewClock(start)
	var got []time.Duration
	type pending interface{ Stop() bool }
	var ts []pending
	for i := range 1000 {
		d := time.Duration((i*7919)%1000) * time.Millisecond
		ts = append(ts, c.AfterFunc(d, func() { got = append(got, d) }))
	}
	for i := 0; i < len(ts); i += 3 {
		ts[i].Stop()
	}
	c.Advance(time.Hour)
	if len(got) != 1000-334 {
		t.Fatalf("fired %d, want %d", len(got), 1000-334)
	}
	for i := 1; i < len(got); i++ {
		if got[i] < got[i-1] {
			t.Fatalf("fired out of order: %v after %v", got[i], got[i-1])
		}
	}
}
