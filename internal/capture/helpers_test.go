package capture_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// clock is a settable clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.UnixMilli(1_700_000_000_000)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const pageURL = "http://localhost:3000/cart"

func logEv(tab int64, level, msg string) apitype.Event {
	return apitype.Event{Kind: "log", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, Level: level, Message: msg}
}

func netEv(tab int64, source, method, url string, status int) apitype.Event {
	return apitype.Event{Kind: "network", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, RequestID: "r-" + source,
		Source: source, Method: method, URL: url, Status: apitype.Num(float64(status)), ResourceType: "fetch"}
}

func errEv(tab int64, msg, source string, ts float64) apitype.Event {
	return apitype.Event{Kind: "error", TS: ts, TabID: tab, PageURL: pageURL, Type: "uncaught", Message: msg,
		Source: source, Stack: "TypeError: " + msg + "\n    at f (" + source + ")"}
}

// ingest stores evs and fails the test if any is rejected.
func ingest(t testing.TB, s *capture.Store, evs ...apitype.Event) apitype.EventsAck {
	t.Helper()
	ack, err := s.Ingest(apitype.EventBatch{Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	if len(ack.Rejected) > 0 {
		t.Fatalf("got rejections %+v, want none", ack.Rejected)
	}
	return ack
}

func query(t testing.TB, s *capture.Store, f capture.Filter) capture.Page {
	t.Helper()
	p, err := s.Query(f)
	if err != nil {
		t.Fatalf("query %+v: %v", f, err)
	}
	return p
}

func ids(p capture.Page) []uint64 {
	out := []uint64{}
	for _, v := range p.Entries {
		out = append(out, v.Header().ID)
	}
	return out
}

// messages returns the log messages of p.
func messages(p capture.Page) []string {
	out := []string{}
	for _, v := range p.Entries {
		out = append(out, v.(*capture.LogView).Message)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
