package tracker

// ring is the failed buffer: the last size failed or expired commands, oldest
// evicted first, with an index by id that eviction keeps consistent.
//
// Entries are metadata only: they keep no Params, Result or Attachment, so the ring's
// memory is bounded by its size whatever the commands carried. ring is not
// safe for concurrent use; the tracker guards it with its mutex.
type ring struct {
	buf   []Command         // slot i%len(buf) holds sequence number i
	first uint64            // sequence number of the oldest entry
	next  uint64            // sequence number the next push gets
	index map[string]uint64 // id → sequence number, for entries in buf
}

func newRing(size int) ring {
	return ring{buf: make([]Command, size), index: make(map[string]uint64, size)}
}

// len is the number of entries.
func (r *ring) len() int { return int(r.next - r.first) }

// push appends c, evicting the oldest entry when the ring is full.
func (r *ring) push(c Command) {
	if r.len() == len(r.buf) {
		old := &r.buf[r.first%uint64(len(r.buf))]
		if seq, ok := r.index[old.ID]; ok && seq == r.first {
			delete(r.index, old.ID)
		}
		*old = Command{}
		r.first++
	}
	c.Params, c.Result, c.Attachment = nil, nil, nil
	r.buf[r.next%uint64(len(r.buf))] = c
	r.index[c.ID] = r.next
	r.next++
}

// get returns the entry for id, or nil. The pointer is valid until the next
// push.
func (r *ring) get(id string) *Command {
	seq, ok := r.index[id]
	if !ok {
		return nil
	}
	return &r.buf[seq%uint64(len(r.buf))]
}

// markRead sets Read on the entry for id, if there is one.
func (r *ring) markRead(id string) {
	if c := r.get(id); c != nil {
		c.Read = true
	}
}

// snapshots returns copies of the entries that keep returns true for, oldest
// first, as a non-nil slice.
func (r *ring) snapshots(keep func(*Command) bool) []Command {
	out := []Command{}
	for seq := r.first; seq != r.next; seq++ {
		c := &r.buf[seq%uint64(len(r.buf))]
		if keep == nil || keep(c) {
			out = append(out, clone(*c))
		}
	}
	return out
}
