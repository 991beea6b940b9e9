package capture_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func kindStats(s *capture.Store, k capture.Kind) capture.KindStats {
	for _, ks := range s.Stats().Kinds {
		if ks.Kind == k {
			return ks
		}
	}
	return capture.KindStats{}
}

// TestNoisyTabEvictedFirst is issue 16's finding 5 in the ring: a tab that
// floods the logs, before and after a quiet tab logs, leaves every one of
// the quiet tab's entries in place; what the flood lost is counted.
func TestNoisyTabEvictedFirst(t *testing.T) {
	const bound, quiet, flood = 100, 20, 5000
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{"log": {MaxEntries: bound}}})
	defer s.Close()
	var want []string
	for i := range flood {
		if i%(flood/quiet) == 0 {
			msg := fmt.Sprintf("quiet %d", len(want))
			want = append(want, msg)
			ingest(t, s, logEv(1, "warn", msg))
		}
		ingest(t, s, logEv(2, "log", fmt.Sprintf("noise %d", i)))
	}
	got := messages(query(t, s, capture.Filter{Kind: "log", TabID: ptr(int64(1))}))
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the quiet tab's logs after the flood: got %d %v, want all %d", len(got), got, len(want))
	}
	ks := kindStats(s, "log")
	if ks.Entries != bound || ks.Dropped != quiet+flood-bound {
		t.Errorf("log ring: %d entries, %d dropped; want %d and %d", ks.Entries, ks.Dropped, bound, quiet+flood-bound)
	}
	noisy := messages(query(t, s, capture.Filter{Kind: "log", TabID: ptr(int64(2))}))
	if len(noisy) == 0 || noisy[len(noisy)-1] != fmt.Sprintf("noise %d", flood-1) {
		t.Errorf("the noisy tab keeps its newest entries: last %v", noisy[max(0, len(noisy)-1):])
	}
}

// TestNoisyTabEvictedFirstByBytes: past the byte bound the tab holding the
// most bytes goes first, even when the quiet tab holds more entries.
func TestNoisyTabEvictedFirstByBytes(t *testing.T) {
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{"network": {MaxEntries: 1000, MaxBytes: 256 << 10}}})
	defer s.Close()
	big := strings.Repeat("x", 16<<10)
	quiet := 0
	for i := range 400 {
		if i%10 == 0 {
			ingest(t, s, netEv(1, "browser", "GET", fmt.Sprintf("http://localhost:3000/api/quiet/%d", quiet), 200))
			quiet++
		}
		e := netEv(2, "browser", "POST", fmt.Sprintf("http://localhost:3000/upload/%d", i), 200)
		e.ResponseBody, e.ResponseBodySize = big, int64(len(big))
		ingest(t, s, e)
	}
	got := query(t, s, capture.Filter{Kind: "network", TabID: ptr(int64(1))})
	if len(got.Entries) != quiet {
		t.Errorf("the quiet tab's requests after the flood: got %d, want all %d", len(got.Entries), quiet)
	}
	if ks := kindStats(s, "network"); ks.Bytes > 256<<10 || ks.Dropped == 0 {
		t.Errorf("network ring: %d bytes, %d dropped; want at most %d bytes and the flood's losses counted", ks.Bytes, ks.Dropped, 256<<10)
	}
}

// TestOneTabStillOldestFirst: with one tab, eviction is the oldest entry.
func TestOneTabStillOldestFirst(t *testing.T) {
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{"log": {MaxEntries: 10}}})
	defer s.Close()
	var evs []apitype.Event
	for i := range 25 {
		evs = append(evs, logEv(1, "log", fmt.Sprint(i)))
	}
	ingest(t, s, evs...)
	got := messages(query(t, s, capture.Filter{Kind: "log"}))
	if strings.Join(got, ",") != "15,16,17,18,19,20,21,22,23,24" {
		t.Errorf("got %v, want the newest 10 in order", got)
	}
}
