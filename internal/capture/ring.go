package capture

import (
	"container/list"
	"sort"
)

// entry is one buffered event. The header fields and rec are replaced only
// under Store.mu (a network merge swaps rec and size); the record rec points
// to is never modified once stored, so a copy of an entry taken under the
// lock can be rendered after it is released.
type entry struct {
	seq     uint64
	kind    Kind
	ts      int64 // ms since the epoch
	tab     int64
	frame   int64
	pageURL text
	size    int64         // estimated bytes, counted against the ring
	rec     record        // *logRec, *errorRec, *netRec, *actionRec, *navRec, *vitalRec or *wsRec
	pend    *list.Element // in Store.merge while the network entry waits for its other half
}

// ring is one kind's buffer: a circular slice of entries in sequence order,
// grown on demand up to its entry bound. Past either bound it evicts fairly:
// the oldest entries of the tab that holds the most (entries past the entry
// bound, bytes past the byte bound), so one noisy tab cannot push a quiet
// tab's entries out; with one tab that is simply the oldest entry. Evicted
// entries are counted in dropped. Guarded by Store.mu.
type ring struct {
	limit   Limit
	buf     []*entry
	head    int // index in buf of the oldest entry
	n       int
	bytes   int64
	dropped int64
	// evicted is the highest sequence number evicted, so a reader whose
	// cursor is below it knows it missed entries.
	evicted uint64
	// tabN counts the entries each tab holds (tabs with none are absent).
	tabN map[int64]int
	// held is heaviest's scratch map of bytes per tab.
	held map[int64]int64
	// lost holds each tab's losses (evictions, and what the extension
	// reports for the tab), so that a read of some tabs reports only the
	// losses that could have hit it (eviction takes the noisy tab's entries
	// from the middle of the ring). other holds the losses of tabs past
	// maxLossTabs and those the extension reports without a tab: every read
	// counts them, and says how many of its losses they are.
	lost  map[int64]*loss
	other loss
}

// loss counts entries lost and the highest sequence number among them.
type loss struct {
	n    int64
	last uint64
}

// maxLossTabs bounds the tabs whose losses a ring keeps apart.
const maxLossTabs = 1024

func newRing(l Limit) *ring { return &ring{limit: l, tabN: map[int64]int{}, lost: map[int64]*loss{}} }

// at returns the i-th oldest entry.
func (r *ring) at(i int) *entry { return r.buf[(r.head+i)%len(r.buf)] }

// first returns the index of the first entry with a sequence number above
// seq (r.n when none).
func (r *ring) first(seq uint64) int {
	return sort.Search(r.n, func(i int) bool { return r.at(i).seq > seq })
}

// push appends e, evicting the oldest entries past the bounds, and returns
// how many it evicted. An entry larger than the byte bound on its own is not
// stored (it counts as evicted). gone is called for every evicted entry.
func (r *ring) push(e *entry, gone func(*entry)) int64 {
	if e.size > r.limit.MaxBytes {
		r.lose(e)
		return 1
	}
	ev := r.shed(func() (bool, bool) {
		return r.n >= r.limit.MaxEntries, r.bytes+e.size > r.limit.MaxBytes
	}, 0, gone)
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = e
	r.n++
	r.bytes += e.size
	r.tabN[e.tab]++
	return ev
}

// resized accounts for an entry whose size changed by delta in place and
// evicts while the ring is over its byte bound, never the last entry. It
// returns how many it evicted.
func (r *ring) resized(delta int64, gone func(*entry)) int64 {
	r.bytes += delta
	return r.shed(func() (bool, bool) { return false, r.bytes > r.limit.MaxBytes }, 1, gone)
}

// shed evicts while over reports the ring over its entry or byte bound and
// more than keep entries remain, and returns how many it evicted. Each round
// takes the tab holding the most (entries when over the entry bound, else
// bytes): its oldest entry when that is the ring's oldest, else its oldest
// entries in one pass, a few more than needed (1/64 of the ring), so that a
// flood next to a quiet tab costs a pass per many pushes.
func (r *ring) shed(over func() (entries, bytes bool), keep int, gone func(*entry)) int64 {
	var ev int64
	for r.n > keep {
		byEntries, byBytes := over()
		if !byEntries && !byBytes {
			break
		}
		tab := r.heaviest(byEntries)
		if r.at(0).tab == tab {
			gone(r.popOldest())
			ev++
			continue
		}
		ev += r.evictTab(tab, over, keep, max(1, r.n/64), gone)
	}
	return ev
}

// heaviest returns the tab holding the most entries (byEntries) or bytes.
func (r *ring) heaviest(byEntries bool) int64 {
	best, most := r.at(0).tab, int64(-1)
	if len(r.tabN) == 1 {
		return best
	}
	if byEntries {
		for tab, n := range r.tabN {
			if int64(n) > most || int64(n) == most && tab < best {
				best, most = tab, int64(n)
			}
		}
		return best
	}
	if r.held == nil {
		r.held = map[int64]int64{}
	}
	clear(r.held)
	for i := range r.n {
		e := r.at(i)
		r.held[e.tab] += e.size
	}
	for tab, b := range r.held {
		if b > most || b == most && tab < best {
			best, most = tab, b
		}
	}
	return best
}

// evictTab removes tab's oldest entries, in one pass that keeps the order of
// the rest, while over reports the ring over a bound and then extra more,
// never leaving fewer than keep entries. It returns how many it removed.
func (r *ring) evictTab(tab int64, over func() (bool, bool), keep, extra int, gone func(*entry)) int64 {
	var ev int64
	w := 0
	n := r.n
	for i := range n {
		e := r.at(i)
		if e.tab == tab && r.n > keep {
			byEntries, byBytes := over()
			if byEntries || byBytes || extra > 0 {
				if !byEntries && !byBytes {
					extra--
				}
				r.n--
				r.forget(e)
				gone(e)
				ev++
				continue
			}
		}
		r.buf[(r.head+w)%len(r.buf)] = e
		w++
	}
	for i := w; i < n; i++ {
		r.buf[(r.head+i)%len(r.buf)] = nil
	}
	return ev
}

func (r *ring) popOldest() *entry {
	e := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	r.forget(e)
	return e
}

// forget accounts for evicted entry e, which the caller took out of buf.
func (r *ring) forget(e *entry) {
	r.bytes -= e.size
	r.lose(e)
	r.untab(e)
}

// lose counts e as lost, for its tab and for the ring.
func (r *ring) lose(e *entry) {
	r.dropped++
	r.evicted = max(r.evicted, e.seq)
	l := r.lossOf(e.tab)
	l.n++
	l.last = max(l.last, e.seq)
}

// lossOf returns tab's loss counts, other once maxLossTabs tabs have theirs.
func (r *ring) lossOf(tab int64) *loss {
	l := r.lost[tab]
	if l == nil {
		l = &r.other
		if len(r.lost) < maxLossTabs {
			l = &loss{}
			r.lost[tab] = l
		}
	}
	return l
}

// reported counts n entries the extension lost before sending them, of tab
// (nil: a tab it could not name).
func (r *ring) reported(tab *int64, n int64) {
	r.dropped += n
	l := &r.other
	if tab != nil {
		l = r.lossOf(*tab)
	}
	l.n += n
}

// resetDropped zeroes the loss counts. The sequence numbers stay, so a
// cursor from before still learns it missed entries.
func (r *ring) resetDropped() {
	r.dropped = 0
	r.other.n = 0
	for _, l := range r.lost {
		l.n = 0
	}
}

// losses returns the entries lost from the tabs reads selects (nil: every
// tab) and from no known tab, how many of them are of no known tab, and the
// highest sequence number among those evicted.
func (r *ring) losses(reads func(tab int64) bool) (n, unknown int64, last uint64) {
	if reads == nil {
		return r.dropped, r.other.n, r.evicted
	}
	n, last = r.other.n, r.other.last
	for tab, l := range r.lost {
		if reads(tab) {
			n += l.n
			last = max(last, l.last)
		}
	}
	return n, r.other.n, last
}

func (r *ring) untab(e *entry) {
	if r.tabN[e.tab]--; r.tabN[e.tab] <= 0 {
		delete(r.tabN, e.tab)
	}
}

func (r *ring) grow() {
	size := min(max(16, 2*len(r.buf)), r.limit.MaxEntries)
	nb := make([]*entry, size)
	for i := range r.n {
		nb[i] = r.at(i)
	}
	r.buf, r.head = nb, 0
}

// removeIf removes the entries del selects, keeping the order of the rest,
// calls gone for each, and returns how many it removed. Removed entries are
// not counted as dropped.
func (r *ring) removeIf(del func(*entry) bool, gone func(*entry)) int {
	kept := make([]*entry, 0, len(r.buf))
	removed := 0
	for i := range r.n {
		e := r.at(i)
		if del(e) {
			gone(e)
			r.bytes -= e.size
			r.untab(e)
			removed++
			continue
		}
		kept = append(kept, e)
	}
	if removed == 0 {
		return 0
	}
	r.buf = kept[:cap(kept)]
	if len(r.buf) == 0 {
		r.buf = nil
	}
	r.head, r.n = 0, len(kept)
	return removed
}
