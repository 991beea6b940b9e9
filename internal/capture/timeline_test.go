package capture_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func actionEv(tab int64, typ, selector string) apitype.Event {
	return apitype.Event{Kind: "action", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, Type: typ, Selector: selector}
}

func navEv(tab int64, to string) apitype.Event {
	return apitype.Event{Kind: "nav", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, Type: "pushState", From: pageURL, To: to}
}

// TestTimeline reads actions and navigations as one timeline (Filter.Also):
// merged in sequence order, paginated in both directions, filtered, and
// waited for.
func TestTimeline(t *testing.T) {
	s := capture.New(capture.Options{})
	// ids 1..30: an action, then every third entry a navigation, with logs
	// between that the timeline must skip.
	for i := 1; s.Head() < 30; i++ {
		switch {
		case i%3 == 0:
			ingest(t, s, navEv(1, "http://localhost:3000/step/"+strconv.Itoa(i)))
		case i%5 == 0:
			ingest(t, s, logEv(1, "log", "between"))
		default:
			ingest(t, s, actionEv(1, "click", "#b"+strconv.Itoa(i)))
		}
	}
	f := func(since *uint64, limit int) capture.Filter {
		return capture.Filter{Kind: capture.KindAction, Also: []capture.Kind{capture.KindNav}, Since: since, Limit: limit}
	}
	var want []uint64
	for id := uint64(1); id <= 30; id++ {
		if id%3 == 0 || id%5 != 0 {
			want = append(want, id)
		}
	}
	t.Run("forward pages", func(t *testing.T) {
		var got []uint64
		cursor := uint64(0)
		for {
			p := query(t, s, f(&cursor, 7))
			got = append(got, ids(p)...)
			if !p.HasMore {
				if p.NextCursor != 30 {
					t.Errorf("last page: got next_cursor %d, want 30", p.NextCursor)
				}
				break
			}
			cursor = p.NextCursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v: every action and navigation once, in order", got, want)
		}
	})
	t.Run("newest", func(t *testing.T) {
		p := query(t, s, f(nil, 5))
		if got := ids(p); !slices.Equal(got, want[len(want)-5:]) || !p.Earlier {
			t.Errorf("got %v earlier=%v, want %v and earlier", got, p.Earlier, want[len(want)-5:])
		}
		if _, ok := p.Entries[len(p.Entries)-1].(*capture.NavView); !ok {
			t.Errorf("got %T for id 30, want a navigation", p.Entries[len(p.Entries)-1])
		}
	})
	t.Run("filters apply to both kinds", func(t *testing.T) {
		g := f(nil, 50)
		g.URL = "/step/2"
		if got := ids(query(t, s, g)); !slices.Equal(got, []uint64{21, 24, 27}) {
			t.Errorf("got %v, want the navigations to /step/21, 24, 27", got)
		}
	})
	t.Run("single-kind filters are refused", func(t *testing.T) {
		g := f(nil, 0)
		g.MinLevel = "warn"
		if _, err := s.Query(g); !errors.Is(err, capture.ErrBadFilter) {
			t.Errorf("min_level on a timeline: got %v, want ErrBadFilter", err)
		}
		if _, err := s.ErrorGroups(capture.Filter{Kind: capture.KindError, Also: []capture.Kind{capture.KindLog}}); !errors.Is(err, capture.ErrBadFilter) {
			t.Errorf("error groups with Also: got %v, want ErrBadFilter", err)
		}
		if _, err := s.Query(capture.Filter{Kind: capture.KindAction, Also: []capture.Kind{"bogus"}}); !errors.Is(err, capture.ErrBadFilter) {
			t.Errorf("unknown Also kind: got %v, want ErrBadFilter", err)
		}
	})
	t.Run("a wait wakes on either kind", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := capture.New(capture.Options{})
			got := make(chan capture.Page)
			go func() {
				p, err := s.Wait(context.Background(), f(nil, 0))
				if err != nil {
					t.Error(err)
				}
				got <- p
			}()
			synctest.Wait()
			ingest(t, s, logEv(1, "log", "not this"))
			synctest.Wait()
			select {
			case p := <-got:
				t.Fatalf("woke for a log: %+v", p)
			default:
			}
			ingest(t, s, navEv(1, "http://localhost:3000/next"))
			if p := <-got; !slices.Equal(ids(p), []uint64{2}) {
				t.Errorf("got %v, want the navigation 2", ids(p))
			}
		})
	})
	t.Run("dropped sums both kinds", func(t *testing.T) {
		s := capture.New(capture.Options{})
		if _, err := s.Ingest(apitype.EventBatch{Dropped: map[string]int64{"action": 2, "nav": 3}}); err != nil {
			t.Fatal(err)
		}
		if p := query(t, s, f(nil, 0)); p.Dropped != 5 {
			t.Errorf("got dropped %d, want 5", p.Dropped)
		}
	})
}

// TestTabsFitTheBudget lists tabs with long URLs and titles: the list stops
// where the page budget ends, and says how many tabs there are.
func TestTabsFitTheBudget(t *testing.T) {
	c := newClock()
	s := capture.New(capture.Options{Now: c.Now})
	for i := range 100 {
		c.Advance(time.Millisecond)
		ingest(t, s, apitype.Event{Kind: "tab", TS: 1, TabID: int64(i), Type: "updated",
			PageURL: "http://localhost:3000/" + strings.Repeat("p", 2000), Title: strings.Repeat("t", 500)})
	}
	l := s.Tabs("")
	b, _ := json.Marshal(l)
	if len(b) > capture.DefaultPageTokens*4 || len(l.Tabs) < 20 || len(l.Tabs) >= 100 || l.Total != 100 || l.Tabs[0].TabID != 99 {
		t.Errorf("got %d bytes, %d of %d tabs listed, first %d; want under %d bytes, the newest first, total 100",
			len(b), len(l.Tabs), l.Total, l.Tabs[0].TabID, capture.DefaultPageTokens*4)
	}
}
