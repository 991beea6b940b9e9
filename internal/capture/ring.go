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
	rec     record        // *logRec, *errorRec, *netRec, *actionRec, *navRec or *vitalRec
	pend    *list.Element // in Store.merge while the network entry waits for its other half
}

// ring is one kind's buffer: a circular slice of entries in sequence order,
// grown on demand up to its entry bound, evicting the oldest entry past
// either bound. Guarded by Store.mu.
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
}

func newRing(l Limit) *ring { return &ring{limit: l} }

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
		r.dropped++
		r.evicted = max(r.evicted, e.seq)
		return 1
	}
	var ev int64
	for r.n > 0 && (r.n >= r.limit.MaxEntries || r.bytes+e.size > r.limit.MaxBytes) {
		gone(r.popOldest())
		ev++
	}
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = e
	r.n++
	r.bytes += e.size
	return ev
}

// resized accounts for an entry whose size changed by delta in place and
// evicts the oldest entries while the ring is over its byte bound, never the
// last one. It returns how many it evicted.
func (r *ring) resized(delta int64, gone func(*entry)) int64 {
	r.bytes += delta
	var ev int64
	for r.n > 1 && r.bytes > r.limit.MaxBytes {
		gone(r.popOldest())
		ev++
	}
	return ev
}

func (r *ring) popOldest() *entry {
	e := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	r.bytes -= e.size
	r.dropped++
	r.evicted = max(r.evicted, e.seq)
	return e
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
