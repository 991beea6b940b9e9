package tracker

// link is one membership of an entry in an entryList.
type link struct{ prev, next *entry }

// entryList is an intrusive doubly linked list of entries: pushing and
// removing allocate nothing and removal is O(1). An entry carries two links,
// so it can be in one "queue" list (the tracker's queue while queued, its
// instance's running list while pending) and one "client" list (its client's
// active list while non-terminal, retained list after) at the same time.
//
// The zero value is an empty queue list. entryList is not safe for concurrent
// use; the tracker guards every list with its mutex.
type entryList struct {
	front, back *entry
	n           int
	byClient    bool // the list uses entry.cl rather than entry.ql
}

func (l *entryList) link(e *entry) *link {
	if l.byClient {
		return &e.cl
	}
	return &e.ql
}

// pushBack appends e, which must not be in a list of the same kind.
func (l *entryList) pushBack(e *entry) {
	lk := l.link(e)
	lk.prev, lk.next = l.back, nil
	if l.back != nil {
		l.link(l.back).next = e
	} else {
		l.front = e
	}
	l.back = e
	l.n++
}

// remove unlinks e, which must be in l.
func (l *entryList) remove(e *entry) {
	lk := l.link(e)
	if lk.prev != nil {
		l.link(lk.prev).next = lk.next
	} else {
		l.front = lk.next
	}
	if lk.next != nil {
		l.link(lk.next).prev = lk.prev
	} else {
		l.back = lk.prev
	}
	lk.prev, lk.next = nil, nil
	l.n--
}

// next returns the entry after e in l, or nil.
func (l *entryList) next(e *entry) *entry { return l.link(e).next }
