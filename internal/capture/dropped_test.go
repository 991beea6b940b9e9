package capture_test

import (
	"errors"
	"fmt"
	"strings"
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

// TestExtensionLossesByTab: losses the extension reports with their tab
// count only for readers of that tab; those without a tab count for every
// reader and are labelled as of no known tab. Both arrive through the
// daemon's decoder, as the extension sends them.
func TestExtensionLossesByTab(t *testing.T) {
	s := capture.New(capture.Options{})
	defer s.Close()
	ingest(t, s, logEv(1, "warn", "quiet"), logEv(2, "log", "noisy"))
	body := `{"dropped":{"log":2},"dropped_by_tab":{"2":{"log":40,"network":7},"-1":{"network":3}},"events":[]}`
	if _, err := s.IngestJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name             string
		f                capture.Filter
		dropped, unknown int64
	}{
		{"quiet tab", capture.Filter{Kind: "log", TabID: ptr(int64(1))}, 2, 2},
		{"the agent's tabs: the quiet one", capture.Filter{Kind: "log", Tabs: []int64{1}}, 2, 2},
		{"noisy tab", capture.Filter{Kind: "log", TabID: ptr(int64(2))}, 42, 2},
		{"every tab but the noisy one", capture.Filter{Kind: "log", ExceptTabs: []int64{2}}, 2, 2},
		{"every tab", capture.Filter{Kind: "log"}, 42, 2},
		{"network of the quiet tab", capture.Filter{Kind: "network", TabID: ptr(int64(1))}, 0, 0},
		{"network of no tab (-1)", capture.Filter{Kind: "network", TabID: ptr(int64(-1))}, 3, 0},
		{"network, every tab", capture.Filter{Kind: "network"}, 10, 0},
	} {
		p := query(t, s, c.f)
		if p.Dropped != c.dropped || p.DroppedTabUnknown != c.unknown {
			t.Errorf("%s: dropped %d (of no known tab %d), want %d (%d)", c.name, p.Dropped, p.DroppedTabUnknown, c.dropped, c.unknown)
		}
	}
	if _, err := s.Clear("log", nil); err != nil {
		t.Fatal(err)
	}
	if p := query(t, s, capture.Filter{Kind: "log", TabID: ptr(int64(2))}); p.Dropped != 0 || p.DroppedTabUnknown != 0 {
		t.Errorf("after Clear: dropped %d (%d of no known tab), want 0", p.Dropped, p.DroppedTabUnknown)
	}
}

// TestBadDroppedByTabIsRefused: dropped_by_tab that is not counts per tab id
// refuses the batch with what the shape should be.
func TestBadDroppedByTabIsRefused(t *testing.T) {
	s := capture.New(capture.Options{})
	defer s.Close()
	for _, body := range []string{
		`{"dropped_by_tab":{"tab1":{"log":1}},"events":[]}`,
		`{"dropped_by_tab":{"1":{"log":"x"}},"events":[]}`,
		`{"dropped_by_tab":[1],"events":[]}`,
	} {
		_, err := s.IngestJSON([]byte(body))
		if !errors.Is(err, capture.ErrNotBatch) || !strings.Contains(err.Error(), `{"12": {"log": 3}}`) {
			t.Errorf("%s: got %v, want ErrNotBatch naming the shape", body, err)
		}
	}
}
