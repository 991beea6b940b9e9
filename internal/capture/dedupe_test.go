package capture_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// retriedBatch is a POST /events body as the extension's batcher sends it:
// the page's half of a request, which merges with the browser's half, and a
// log line, plus a drop count.
func retriedBatch(id string) string {
	idField := ""
	if id != "" {
		idField = fmt.Sprintf(`"batch_id":%q,`, id)
	}
	return `{` + idField + `"dropped":{"log":2},"events":[` +
		`{"kind":"network","ts":1700000000000,"tab_id":1,"frame_id":0,"page_url":"http://a/","request_id":"7","source":"page","method":"GET","url":"http://a/api","status":200,"resource_type":"fetch"},` +
		`{"kind":"log","ts":1700000000000,"tab_id":1,"frame_id":0,"page_url":"http://a/","level":"log","message":"hello"}]}`
}

// count reads how many entries and drops of kind the store holds.
func count(t *testing.T, s *capture.Store, k capture.Kind) (entries int, dropped int64) {
	t.Helper()
	p, err := s.Query(capture.Filter{Kind: k, Limit: capture.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Entries), p.Dropped
}

func TestRetriedBatchIsStoredOnce(t *testing.T) {
	browser := `{"events":[{"kind":"network","ts":1700000000000,"tab_id":1,"frame_id":0,"page_url":"http://a/","request_id":"99","source":"browser","method":"GET","url":"http://a/api","status":200,"resource_type":"fetch"}]}`
	tests := []struct {
		name      string
		ids       []string // the batch_id of each post of retriedBatch
		wantPosts int      // posts stored
		wantDups  int      // posts answered as duplicates
	}{
		{"a retry after a lost answer", []string{"mhx0k2a1b2c3.1", "mhx0k2a1b2c3.1"}, 1, 1},
		{"many retries", []string{"e.5", "e.5", "e.5", "e.5"}, 1, 3},
		{"the next batch of the same worker", []string{"e.1", "e.2"}, 2, 0},
		{"a restarted worker starts again at 1 in a new epoch", []string{"old.1", "new.1"}, 2, 0},
		{"the same sequence number in two epochs, each retried", []string{"old.1", "new.1", "old.1", "new.1"}, 2, 2},
		{"batches without an id are not deduplicated", []string{"", ""}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := capture.New(capture.Options{})
			if _, err := s.IngestJSON([]byte(browser)); err != nil {
				t.Fatal(err)
			}
			dups := 0
			for _, id := range tc.ids {
				ack, err := s.IngestJSON([]byte(retriedBatch(id)))
				if err != nil {
					t.Fatal(err)
				}
				if ack.Duplicate {
					dups++
					if ack.Accepted != 0 || len(ack.Rejected) != 0 || ack.ConfigVersion == 0 {
						t.Errorf("duplicate answer %+v, want nothing accepted and the config version", ack)
					}
				} else if ack.Accepted != 2 {
					t.Errorf("got %d accepted, want 2", ack.Accepted)
				}
			}
			if dups != tc.wantDups {
				t.Errorf("got %d duplicate answers, want %d", dups, tc.wantDups)
			}
			// The first post's page half merges with the browser half; a
			// second stored post adds a request of its own.
			net, _ := count(t, s, capture.KindNetwork)
			logs, dropped := count(t, s, capture.KindLog)
			if net != tc.wantPosts || logs != tc.wantPosts || dropped != int64(2*tc.wantPosts) {
				t.Errorf("got %d network entries, %d logs, %d logs dropped; want %d, %d, %d",
					net, logs, dropped, tc.wantPosts, tc.wantPosts, 2*tc.wantPosts)
			}
		})
	}
}

// TestConcurrentRetryIsStoredOnce posts the same batch from many
// goroutines at once, as a retry can overlap a first post the daemon is
// still storing: exactly one is stored.
func TestConcurrentRetryIsStoredOnce(t *testing.T) {
	s := capture.New(capture.Options{})
	body := []byte(retriedBatch("e.9"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored := 0
	for range 8 {
		wg.Go(func() {
			ack, err := s.IngestJSON(body)
			if err != nil {
				t.Error(err)
				return
			}
			if !ack.Duplicate {
				mu.Lock()
				stored++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if logs, _ := count(t, s, capture.KindLog); stored != 1 || logs != 1 {
		t.Errorf("got %d posts stored and %d logs, want 1 and 1", stored, logs)
	}
}

func TestBatchIDTooLong(t *testing.T) {
	s := capture.New(capture.Options{})
	_, err := s.IngestJSON([]byte(retriedBatch(strings.Repeat("x", apitype.MaxBatchIDLen+1))))
	if !errors.Is(err, capture.ErrNotBatch) {
		t.Errorf("got %v, want ErrNotBatch", err)
	}
	if _, err := s.IngestJSON([]byte(`{"batch_id":7,"events":[]}`)); !errors.Is(err, capture.ErrNotBatch) {
		t.Errorf("numeric batch_id: got %v, want ErrNotBatch", err)
	}
}
