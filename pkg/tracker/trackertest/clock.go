// Package trackertest provides a fake Clock so that tests of the tracker and
// of code built on it can drive timeouts and TTLs without sleeping.
package trackertest

import (
	"math"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Clock is a manual tracker.Clock: time stands still until Advance or Set
// moves it, and timers fire only then, synchronously, in the goroutine that
// moved it. All its methods are safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	base   time.Time     // the time at offset 0
	now    time.Duration // offset of the current time from base; guarded by mu
	seq    uint64        // timers made so far, to order equal deadlines; guarded by mu
	timers []*timer      // min-heap of pending timers by (at, seq); guarded by mu
}

var _ tracker.Clock = (*Clock)(nil)

// NewClock returns a Clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{base: start} }

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base.Add(c.now)
}

// AfterFunc arranges for f to be called by the Advance or Set that moves the
// clock to d from now or beyond. A d <= 0 fires at the next Advance, even
// Advance(0). Unlike time.AfterFunc, f runs in the caller of Advance or Set,
// not in a goroutine of its own.
func (c *Clock) AfterFunc(d time.Duration, f func()) tracker.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &timer{c: c, at: addSat(c.now, max(d, 0)), seq: c.seq, f: f}
	c.push(t)
	return t
}

// Advance moves the clock forward by d, firing every timer that falls due on
// the way in deadline order (equal deadlines in creation order). While a
// timer's f runs, the clock reads that timer's deadline, and the clock's lock
// is not held, so f may call AfterFunc; a timer f creates fires within the
// same Advance if it falls due by its end.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.advanceLocked(addSat(c.now, max(d, 0)))
}

// Set moves the clock to t, firing due timers as Advance does. Setting a time
// before the current one only moves the clock back; nothing fires.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	target := t.Sub(c.base)
	if target < c.now {
		c.now = target
		c.mu.Unlock()
		return
	}
	c.advanceLocked(target)
}

// advanceLocked fires the timers due by target and leaves the clock there.
// c.mu must be held; it is released on return.
func (c *Clock) advanceLocked(target time.Duration) {
	for len(c.timers) > 0 && c.timers[0].at <= target {
		t := c.timers[0]
		c.remove(0)
		c.now = max(c.now, t.at)
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	c.now = target
	c.mu.Unlock()
}

// Timers returns how many timers are waiting to fire: tests use it to check
// that stopped timers are gone.
func (c *Clock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// timer is one pending AfterFunc.
type timer struct {
	c     *Clock
	at    time.Duration // deadline, as an offset from c.base
	seq   uint64
	f     func()
	index int // position in c.timers, -1 once fired or stopped; guarded by c.mu
}

// Stop removes the timer from its clock. It reports whether it prevented the
// call, that is, whether the timer had neither fired nor been stopped.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	t.c.remove(t.index)
	return true
}

// The timer heap, by hand rather than container/heap: the fake clock runs
// millions of timers in the memory test.

func (c *Clock) less(i, j int) bool {
	a, b := c.timers[i], c.timers[j]
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (c *Clock) swap(i, j int) {
	h := c.timers
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (c *Clock) push(t *timer) {
	t.index = len(c.timers)
	c.timers = append(c.timers, t)
	c.up(t.index)
}

// remove takes the timer at index i out of the heap.
func (c *Clock) remove(i int) {
	last := len(c.timers) - 1
	t := c.timers[i]
	if i != last {
		c.swap(i, last)
	}
	c.timers[last] = nil
	c.timers = c.timers[:last]
	if i != last {
		if !c.down(i) {
			c.up(i)
		}
	}
	t.index = -1
}

func (c *Clock) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.less(i, p) {
			return
		}
		c.swap(i, p)
		i = p
	}
}

// down sifts the timer at i down and reports whether it moved.
func (c *Clock) down(i int) bool {
	start, n := i, len(c.timers)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && c.less(r, l) {
			m = r
		}
		if !c.less(m, i) {
			break
		}
		c.swap(i, m)
		i = m
	}
	return i > start
}

// addSat returns a+b, saturating instead of overflowing.
func addSat(a, b time.Duration) time.Duration {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
