package capture

// maxRecentBatches is how many batch ids the store remembers. The worker
// retries a batch within a minute of its first post, while at most a few
// batches a second arrive, so a retry finds its id long before it is
// forgotten; 4096 ids of at most 64 bytes bound the memory to about 300 KB.
const maxRecentBatches = 4096

// recentBatches is a set of the last maxRecentBatches batch ids stored,
// oldest forgotten first. Its zero value is empty and ready to use.
type recentBatches struct {
	ids   map[string]struct{}
	order []string // ring of the ids in ids, next at order[next] once full
	next  int
}

// add records id and reports whether it was new.
func (r *recentBatches) add(id string) bool {
	if _, seen := r.ids[id]; seen {
		return false
	}
	if r.ids == nil {
		r.ids = make(map[string]struct{})
	}
	if len(r.order) < maxRecentBatches {
		r.order = append(r.order, id)
	} else {
		delete(r.ids, r.order[r.next])
		r.order[r.next] = id
		r.next = (r.next + 1) % maxRecentBatches
	}
	r.ids[id] = struct{}{}
	return true
}
