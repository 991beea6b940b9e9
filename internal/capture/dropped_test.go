package capture_test

import (
	"fmt"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// TestFloodLeavesQuietReaderWhole: the noisy tab's entries are evicted from
// the middle of the ring, so a read of the quiet tab lost nothing and says
// so (dropped 0, missed false), while a read of the noisy tab, or of every
// tab, reports the flood's losses.
func TestFloodLeavesQuietReaderWhole(t *testing.T) {
	const bound, flood = 50, 500
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{"log": {MaxEntries: bound}}})
	defer s.Close()
	ingest(t, s, logEv(1, "warn", "quiet first"))
	start := uint64(0)
	for i := range flood {
		if i == flood/2 {
			ingest(t, s, logEv(1, "warn", "quiet second"))
		}
		ingest(t, s, logEv(2, "log", fmt.Sprintf("noise %d", i)))
	}
	lost := int64(flood + 2 - bound)
	for _, c := range []struct {
		name        string
		f           capture.Filter
		dropped     int64
		missed      bool
		wantEntries int
	}{
		{"tab_id of the quiet tab", capture.Filter{Kind: "log", TabID: ptr(int64(1)), Since: &start}, 0, false, 2},
		{"the agent's tabs", capture.Filter{Kind: "log", Tabs: []int64{1}, Since: &start}, 0, false, 2},
		{"every tab but the noisy one", capture.Filter{Kind: "log", ExceptTabs: []int64{2}, Since: &start}, 0, false, 2},
		{"tab_id of the noisy tab", capture.Filter{Kind: "log", TabID: ptr(int64(2)), Since: &start}, lost, true, -1},
		{"both tabs", capture.Filter{Kind: "log", Tabs: []int64{1, 2}, Since: &start}, lost, true, -1},
		{"every tab", capture.Filter{Kind: "log", Since: &start}, lost, true, -1},
		{"every tab, no cursor", capture.Filter{Kind: "log"}, lost, false, -1},
	} {
		p := query(t, s, c.f)
		if p.Dropped != c.dropped || p.Missed != c.missed {
			t.Errorf("%s: dropped %d, missed %v; want %d and %v", c.name, p.Dropped, p.Missed, c.dropped, c.missed)
		}
		if c.wantEntries >= 0 && len(p.Entries) != c.wantEntries {
			t.Errorf("%s: %d entries, want %d", c.name, len(p.Entries), c.wantEntries)
		}
	}
}

// TestExtensionLossesCountForEveryReader: losses the extension reports name
// no tab, so every read counts them; Clear of the kind resets the counts but
// a cursor from before the losses still learns it missed entries.
func TestExtensionLossesCountForEveryReader(t *testing.T) {
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{"log": {MaxEntries: 10}}})
	defer s.Close()
	start := uint64(0)
	for i := range 30 {
		ingest(t, s, logEv(2, "log", fmt.Sprint(i)))
	}
	if _, err := s.Ingest(apitype.EventBatch{Dropped: map[string]int64{"log": 3}}); err != nil {
		t.Fatal(err)
	}
	if p := query(t, s, capture.Filter{Kind: "log", TabID: ptr(int64(1))}); p.Dropped != 3 {
		t.Errorf("quiet tab: dropped %d, want the extension's 3", p.Dropped)
	}
	if _, err := s.Clear("log", nil); err != nil {
		t.Fatal(err)
	}
	p := query(t, s, capture.Filter{Kind: "log", TabID: ptr(int64(2)), Since: &start})
	if p.Dropped != 0 || !p.Missed {
		t.Errorf("after Clear: dropped %d, missed %v; want 0 and true", p.Dropped, p.Missed)
	}
}
