package capture

import (
	"strconv"
	"testing"
)

func TestRecentBatchesIsBounded(t *testing.T) {
	var r recentBatches
	for i := range maxRecentBatches + 10 {
		if !r.add("e." + strconv.Itoa(i)) {
			t.Fatalf("id %d: got seen, want new", i)
		}
	}
	if len(r.ids) != maxRecentBatches || len(r.order) != maxRecentBatches {
		t.Fatalf("got %d ids and %d in order, want %d", len(r.ids), len(r.order), maxRecentBatches)
	}
	if r.add("e." + strconv.Itoa(maxRecentBatches+9)) {
		t.Errorf("the newest id: got new, want seen")
	}
	if r.add("e.10") {
		t.Errorf("the oldest id still remembered: got new, want seen")
	}
	if !r.add("e.9") {
		t.Errorf("an id forgotten to make room: got seen, want new")
	}
}
