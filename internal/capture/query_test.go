package capture_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// fixture stores, in order (ids 1..8):
//
//	1 log debug  tab 1 "render cart"
//	2 log info   tab 1 "Cart loaded"           page /cart
//	3 log warn   tab 2 "low stock for SKU-9"   page /shop
//	4 log error  tab 2 "checkout failed"       page /shop
//	5 net GET  200 tab 1 http://localhost:3000/api/cart
//	6 net POST 500 tab 1 http://localhost:3000/api/cart
//	7 net POST 404 tab 2 http://cdn.example/img.png
//	8 net GET  0   tab 2 http://localhost:3000/api/stock  net::ERR_FAILED
func fixture(t *testing.T) *capture.Store {
	s := capture.New(capture.Options{})
	shop := func(ev apitype.Event) apitype.Event { ev.PageURL = "http://localhost:3000/shop"; return ev }
	failed := netEv(2, "browser", "GET", "http://localhost:3000/api/stock", 0)
	failed.Error = "net::ERR_FAILED"
	ingest(t, s,
		logEv(1, "debug", "render cart"),
		logEv(1, "info", "Cart loaded"),
		shop(logEv(2, "warn", "low stock for SKU-9")),
		shop(logEv(2, "error", "checkout failed")),
		netEv(1, "browser", "GET", "http://localhost:3000/api/cart", 200),
		netEv(1, "browser", "POST", "http://localhost:3000/api/cart", 500),
		shop(netEv(2, "browser", "POST", "http://cdn.example/img.png", 404)),
		failed,
	)
	return s
}

func TestFilters(t *testing.T) {
	s := fixture(t)
	tests := []struct {
		name string
		f    capture.Filter
		want []uint64
	}{
		{"all logs", capture.Filter{Kind: capture.KindLog}, []uint64{1, 2, 3, 4}},
		{"tab", capture.Filter{Kind: capture.KindLog, TabID: ptr[int64](2)}, []uint64{3, 4}},
		{"no such tab", capture.Filter{Kind: capture.KindLog, TabID: ptr[int64](9)}, []uint64{}},
		{"min level warn", capture.Filter{Kind: capture.KindLog, MinLevel: "warn"}, []uint64{3, 4}},
		{"min level info counts log", capture.Filter{Kind: capture.KindLog, MinLevel: "log"}, []uint64{2, 3, 4}},
		{"exact level", capture.Filter{Kind: capture.KindLog, Level: "debug"}, []uint64{1}},
		{"text ignores case", capture.Filter{Kind: capture.KindLog, Text: "CART"}, []uint64{1, 2}},
		{"text and level", capture.Filter{Kind: capture.KindLog, Text: "sku", MinLevel: "warn"}, []uint64{3}},
		{"url of a log is its page", capture.Filter{Kind: capture.KindLog, URL: "/shop"}, []uint64{3, 4}},
		{"url of a request", capture.Filter{Kind: capture.KindNetwork, URL: "/api/"}, []uint64{5, 6, 8}},
		{"method", capture.Filter{Kind: capture.KindNetwork, Method: "post"}, []uint64{6, 7}},
		{"status code", capture.Filter{Kind: capture.KindNetwork, Status: "500"}, []uint64{6}},
		{"status >=400", capture.Filter{Kind: capture.KindNetwork, Status: ">=400"}, []uint64{6, 7}},
		{"status >399", capture.Filter{Kind: capture.KindNetwork, Status: ">399"}, []uint64{6, 7}},
		{"status 4xx", capture.Filter{Kind: capture.KindNetwork, Status: "4XX"}, []uint64{7}},
		{"status <300", capture.Filter{Kind: capture.KindNetwork, Status: "<300"}, []uint64{5, 8}},
		{"status <=200", capture.Filter{Kind: capture.KindNetwork, Status: "<=200"}, []uint64{5, 8}},
		{"status range", capture.Filter{Kind: capture.KindNetwork, Status: "400-499"}, []uint64{7}},
		{"status failed", capture.Filter{Kind: capture.KindNetwork, Status: "failed"}, []uint64{8}},
		{"status and method", capture.Filter{Kind: capture.KindNetwork, Status: ">=400", Method: "POST", TabID: ptr[int64](1)}, []uint64{6}},
		{"text of a request is its url and error", capture.Filter{Kind: capture.KindNetwork, Text: "err_failed"}, []uint64{8}},
		{"other kind is empty", capture.Filter{Kind: capture.KindAction}, []uint64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(query(t, s, tt.f)); !slices.Equal(got, tt.want) {
				t.Errorf("got ids %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFilterErrors(t *testing.T) {
	s := fixture(t)
	tests := []struct {
		name string
		f    capture.Filter
		want string
	}{
		{"no kind", capture.Filter{}, "unknown kind"},
		{"bad kind", capture.Filter{Kind: "logs"}, "unknown kind"},
		{"level on requests", capture.Filter{Kind: capture.KindNetwork, MinLevel: "warn"}, "logs only"},
		{"status on logs", capture.Filter{Kind: capture.KindLog, Status: "500"}, "network requests only"},
		{"method on errors", capture.Filter{Kind: capture.KindError, Method: "GET"}, "network requests only"},
		{"bad level", capture.Filter{Kind: capture.KindLog, MinLevel: "loud"}, "not one of"},
		{"limit too big", capture.Filter{Kind: capture.KindLog, Limit: 501}, "use 1 to 500"},
		{"negative limit", capture.Filter{Kind: capture.KindLog, Limit: -1}, "use 1 to 500"},
		{"long text", capture.Filter{Kind: capture.KindLog, Text: strings.Repeat("a", 2000)}, "at most"},
	}
	for _, status := range []string{"1000", "6xx", "xx", ">=", "=>400", "abc", "500-400", "-1", "+200", ">=4xx", "200,300"} {
		tests = append(tests, struct {
			name string
			f    capture.Filter
			want string
		}{"status " + status, capture.Filter{Kind: capture.KindNetwork, Status: status}, "use a code"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Query(tt.f)
			if !errors.Is(err, capture.ErrBadFilter) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrBadFilter saying %q", err, tt.want)
			}
		})
	}
}

func TestPagination(t *testing.T) {
	s := capture.New(capture.Options{})
	for i := 1; i <= 120; i++ {
		level := "log"
		if i%3 == 0 {
			level = "warn"
		}
		ingest(t, s, logEv(1, level, "m"+strconv.Itoa(i)))
	}
	t.Run("forward pages", func(t *testing.T) {
		var got []uint64
		cursor := uint64(0)
		pages := 0
		for {
			p := query(t, s, capture.Filter{Kind: capture.KindLog, Since: &cursor, Limit: 50})
			pages++
			got = append(got, ids(p)...)
			if !p.HasMore {
				if p.NextCursor != 120 {
					t.Errorf("last page: got next_cursor %d, want the head 120", p.NextCursor)
				}
				break
			}
			if p.NextCursor != ids(p)[len(p.Entries)-1] {
				t.Errorf("got next_cursor %d, want the last id on the page %d", p.NextCursor, ids(p)[len(p.Entries)-1])
			}
			cursor = p.NextCursor
		}
		if pages != 3 || len(got) != 120 || got[0] != 1 || got[119] != 120 || !slices.IsSorted(got) {
			t.Errorf("got %d ids in %d pages, want 1..120 in 3", len(got), pages)
		}
	})
	t.Run("forward pages with a filter", func(t *testing.T) {
		cursor := uint64(0)
		p := query(t, s, capture.Filter{Kind: capture.KindLog, Since: &cursor, Limit: 40, MinLevel: "warn"})
		if len(p.Entries) != 40 || p.HasMore {
			t.Errorf("got %d entries, has_more %v; want the 40 warnings exactly, has_more false", len(p.Entries), p.HasMore)
		}
	})
	t.Run("newest without a cursor", func(t *testing.T) {
		p := query(t, s, capture.Filter{Kind: capture.KindLog, Limit: 10})
		want := []uint64{111, 112, 113, 114, 115, 116, 117, 118, 119, 120}
		if !slices.Equal(ids(p), want) || !p.Earlier || p.HasMore || p.NextCursor != 120 {
			t.Errorf("got %v earlier=%v has_more=%v next=%d, want %v, earlier, next 120", ids(p), p.Earlier, p.HasMore, p.NextCursor, want)
		}
		all := query(t, s, capture.Filter{Kind: capture.KindLog, Limit: 500})
		if len(all.Entries) != 120 || all.Earlier {
			t.Errorf("got %d entries, earlier=%v; want all 120, nothing earlier", len(all.Entries), all.Earlier)
		}
		if got := query(t, s, capture.Filter{Kind: capture.KindLog}); len(got.Entries) != capture.DefaultLimit {
			t.Errorf("got %d entries, want the default limit %d", len(got.Entries), capture.DefaultLimit)
		}
	})
	t.Run("after the head", func(t *testing.T) {
		head := s.Head()
		p := query(t, s, capture.Filter{Kind: capture.KindLog, Since: &head})
		if len(p.Entries) != 0 || p.HasMore || p.NextCursor != head {
			t.Errorf("got %+v, want nothing, next_cursor %d", p, head)
		}
		ingest(t, s, logEv(1, "log", "new"))
		if got := messages(query(t, s, capture.Filter{Kind: capture.KindLog, Since: &head})); !slices.Equal(got, []string{"new"}) {
			t.Errorf("got %q, want only the new entry", got)
		}
	})
}

func TestDropped(t *testing.T) {
	t.Run("count bound", func(t *testing.T) {
		s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{capture.KindLog: {MaxEntries: 10}}})
		var evicted int64
		for i := 1; i <= 25; i++ {
			ack := ingest(t, s, logEv(1, "log", "m"+strconv.Itoa(i)))
			evicted += ack.DroppedByDaemon["log"]
		}
		ack, err := s.Ingest(apitype.EventBatch{Dropped: map[string]int64{"log": 4, "vital": 2, "bogus": 9, "error": -3}})
		if err != nil {
			t.Fatal(err)
		}
		if ack.Accepted != 0 || len(ack.DroppedByDaemon) != 0 {
			t.Errorf("got %+v for a batch of counts only", ack)
		}
		zero := uint64(0)
		p := query(t, s, capture.Filter{Kind: capture.KindLog, Since: &zero})
		if got := messages(p); len(got) != 10 || got[0] != "m16" || got[9] != "m25" {
			t.Errorf("got %q, want m16..m25", got)
		}
		if evicted != 15 || p.Dropped != 19 || !p.Missed {
			t.Errorf("got %d evicted, dropped %d, missed %v; want 15, 19 (15 + 4 reported), missed", evicted, p.Dropped, p.Missed)
		}
		if v := query(t, s, capture.Filter{Kind: capture.KindVital}); v.Dropped != 2 {
			t.Errorf("got vital dropped %d, want 2 reported", v.Dropped)
		}
		since := uint64(20)
		if p := query(t, s, capture.Filter{Kind: capture.KindLog, Since: &since}); p.Missed {
			t.Errorf("a cursor after the evicted entries: got missed, want not")
		}
	})
	t.Run("byte bound", func(t *testing.T) {
		const maxBytes = 64 << 10
		s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{capture.KindLog: {MaxBytes: maxBytes}}})
		for i := range 100 {
			ingest(t, s, logEv(1, "log", strings.Repeat("x", 2000)+strconv.Itoa(i)))
		}
		st := s.Stats().Kinds[0]
		if st.Bytes > maxBytes || st.Entries < 20 || st.Entries > 32 || st.Dropped != int64(100-st.Entries) {
			t.Errorf("got %+v, want at most %d bytes in 20-32 entries and the rest dropped", st, maxBytes)
		}
	})
}

func TestWait(t *testing.T) {
	t.Run("wakes on a matching entry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := capture.New(capture.Options{})
			ingest(t, s, logEv(1, "warn", "before the wait"))
			got := make(chan capture.Page)
			go func() {
				p, err := s.Wait(context.Background(), capture.Filter{Kind: capture.KindLog, MinLevel: "warn"})
				if err != nil {
					t.Error(err)
				}
				got <- p
			}()
			synctest.Wait() // the waiter is blocked
			ingest(t, s, logEv(1, "info", "not this"), netEv(1, "page", "GET", "u", 500))
			synctest.Wait()
			select {
			case p := <-got:
				t.Fatalf("woke for non-matching entries: %+v", p)
			default:
			}
			ingest(t, s, logEv(1, "error", "this one"), logEv(1, "warn", "and this"))
			p := <-got
			if m := messages(p); !slices.Equal(m, []string{"this one", "and this"}) {
				t.Errorf("got %q, want the two new warnings", m)
			}
		})
	})
	t.Run("returns at once when an entry is already after the cursor", func(t *testing.T) {
		s := fixture(t)
		since := uint64(2)
		p, err := s.Wait(t.Context(), capture.Filter{Kind: capture.KindLog, Since: &since, MinLevel: "warn"})
		if err != nil || !slices.Equal(ids(p), []uint64{3, 4}) {
			t.Errorf("got %v, %v; want ids 3 and 4", ids(p), err)
		}
	})
	t.Run("ends with its context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := fixture(t)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			p, err := s.Wait(ctx, capture.Filter{Kind: capture.KindLog})
			if !errors.Is(err, context.DeadlineExceeded) || len(p.Entries) != 0 || p.NextCursor != 8 {
				t.Errorf("got %+v, %v; want an empty page at cursor 8 and DeadlineExceeded", p, err)
			}
		})
	})
	t.Run("noise does not wake it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := capture.New(capture.Options{})
			if _, err := s.AddNoiseRule(capture.NoiseRule{Message: "^\\[HMR\\]"}); err != nil {
				t.Fatal(err)
			}
			got := make(chan capture.Page)
			go func() {
				p, _ := s.Wait(context.Background(), capture.Filter{Kind: capture.KindLog})
				got <- p
			}()
			synctest.Wait()
			ingest(t, s, logEv(1, "log", "[HMR] connected"))
			synctest.Wait()
			select {
			case p := <-got:
				t.Fatalf("woke for a noise entry: %+v", p)
			default:
			}
			ingest(t, s, logEv(1, "log", "real"))
			if p := <-got; !slices.Equal(messages(p), []string{"real"}) || p.Hidden != 1 {
				t.Errorf("got %q hidden %d, want the real entry and 1 hidden", messages(p), p.Hidden)
			}
		})
	})
	t.Run("Close wakes it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := capture.New(capture.Options{})
			errc := make(chan error)
			go func() {
				_, err := s.Wait(context.Background(), capture.Filter{Kind: capture.KindNetwork})
				errc <- err
			}()
			synctest.Wait()
			s.Close()
			if err := <-errc; !errors.Is(err, capture.ErrClosed) {
				t.Errorf("got %v, want ErrClosed", err)
			}
			if _, err := s.Ingest(apitype.EventBatch{Events: []apitype.Event{logEv(1, "log", "x")}}); !errors.Is(err, capture.ErrClosed) {
				t.Errorf("ingest after Close: got %v, want ErrClosed", err)
			}
		})
	})
	t.Run("bad filter", func(t *testing.T) {
		s := capture.New(capture.Options{})
		if _, err := s.Wait(t.Context(), capture.Filter{Kind: capture.KindLog, Status: "5xx"}); !errors.Is(err, capture.ErrBadFilter) {
			t.Errorf("got %v, want ErrBadFilter", err)
		}
	})
}

func TestNoiseRules(t *testing.T) {
	s := fixture(t)
	ingest(t, s, logEv(1, "log", "[HMR] connected"), logEv(1, "log", "[HMR] updated"))
	all := func() []uint64 { return ids(query(t, s, capture.Filter{Kind: capture.KindLog})) }
	hmr, err := s.AddNoiseRule(capture.NoiseRule{Message: `^\[HMR\]`})
	if err != nil {
		t.Fatal(err)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindLog}); !slices.Equal(ids(p), []uint64{1, 2, 3, 4}) || p.Hidden != 2 {
		t.Errorf("got %v hidden %d, want 1-4 and 2 hidden", ids(p), p.Hidden)
	}
	if again, _ := s.AddNoiseRule(capture.NoiseRule{Message: `^\[HMR\]`}); again.ID != hmr.ID {
		t.Errorf("adding the same rule twice: got id %q, want %q", again.ID, hmr.ID)
	}
	debug, err := s.AddNoiseRule(capture.NoiseRule{Kind: capture.KindLog, Level: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	cdn, err := s.AddNoiseRule(capture.NoiseRule{URL: "CDN.example"})
	if err != nil {
		t.Fatal(err)
	}
	if got := all(); !slices.Equal(got, []uint64{2, 3, 4}) {
		t.Errorf("with the debug rule: got %v, want 2-4", got)
	}
	if got := ids(query(t, s, capture.Filter{Kind: capture.KindNetwork})); !slices.Equal(got, []uint64{5, 6, 8}) {
		t.Errorf("with the url rule: got %v, want 5, 6, 8", got)
	}
	if got := s.NoiseRules(); len(got) != 3 || got[0].ID != hmr.ID || got[2].ID != cdn.ID {
		t.Errorf("got rules %+v, want the three in order", got)
	}
	if err := s.RemoveNoiseRule(hmr.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveNoiseRule(debug.ID); err != nil {
		t.Fatal(err)
	}
	if got := all(); !slices.Equal(got, []uint64{1, 2, 3, 4, 9, 10}) {
		t.Errorf("after removing: got %v, want every log back", got)
	}
	if err := s.RemoveNoiseRule(hmr.ID); !errors.Is(err, capture.ErrUnknownRule) {
		t.Errorf("removing twice: got %v, want ErrUnknownRule", err)
	}

	bad := []struct {
		name string
		r    capture.NoiseRule
	}{
		{"empty", capture.NoiseRule{}},
		{"bad regex", capture.NoiseRule{Message: "(unclosed"}},
		{"backreference is not RE2", capture.NoiseRule{Message: `(a)\1`}},
		{"long regex", capture.NoiseRule{Message: strings.Repeat("a", capture.MaxRulePattern+1)}},
		{"long url", capture.NoiseRule{URL: strings.Repeat("a", capture.MaxRuleURL+1)}},
		{"level on requests", capture.NoiseRule{Kind: capture.KindNetwork, Level: "warn"}},
		{"bad level", capture.NoiseRule{Level: "loud"}},
		{"bad kind", capture.NoiseRule{Kind: "dom"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.AddNoiseRule(tt.r); !errors.Is(err, capture.ErrBadRule) {
				t.Errorf("got %v, want ErrBadRule", err)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		s := capture.New(capture.Options{})
		for i := range capture.MaxNoiseRules {
			if _, err := s.AddNoiseRule(capture.NoiseRule{URL: "u" + strconv.Itoa(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddNoiseRule(capture.NoiseRule{URL: "one more"}); !errors.Is(err, capture.ErrTooManyRules) {
			t.Errorf("got %v, want ErrTooManyRules", err)
		}
	})
}

func TestErrorGroups(t *testing.T) {
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{}})
	ingest(t, s,
		errEv(1, "x is undefined", "app.js:10:5", 1000),
		errEv(1, "cart is null", "cart.js:3:1", 1500),
		errEv(2, "x is undefined", "app.js:10:5", 2000),
		errEv(1, "x is undefined", "other.js:1:1", 2500),
		errEv(1, "x is undefined", "app.js:10:5", 3000),
	)
	g, err := s.ErrorGroups(capture.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type sum struct {
		msg, src     string
		count        int
		first, last  int64
		lastID       uint64
		lastTab      int64
		stackPresent bool
	}
	var got []sum
	for _, x := range g.Groups {
		got = append(got, sum{x.Message, x.Source, x.Count, x.FirstSeen, x.LastSeen, x.LastID, x.TabID, x.Stack != ""})
	}
	want := []sum{
		{"x is undefined", "app.js:10:5", 3, 1000, 3000, 5, 1, true},
		{"x is undefined", "other.js:1:1", 1, 2500, 2500, 4, 1, true},
		{"cart is null", "cart.js:3:1", 1, 1500, 1500, 2, 1, true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got groups %+v, want %+v", got, want)
	}
	if g, _ := s.ErrorGroups(capture.Filter{Limit: 1}); len(g.Groups) != 1 || g.Omitted != 2 {
		t.Errorf("limit 1: got %d groups, %d omitted; want 1 and 2", len(g.Groups), g.Omitted)
	}
	if g, _ := s.ErrorGroups(capture.Filter{TabID: ptr[int64](2)}); len(g.Groups) != 1 || g.Groups[0].Count != 1 {
		t.Errorf("tab 2: got %+v, want one group of one", g.Groups)
	}
	since := uint64(3)
	if g, _ := s.ErrorGroups(capture.Filter{Since: &since}); len(g.Groups) != 2 || g.NextCursor != 5 {
		t.Errorf("since 3: got %+v, want 2 groups, next cursor 5", g)
	}
	if _, err := s.ErrorGroups(capture.Filter{Kind: capture.KindLog}); !errors.Is(err, capture.ErrBadFilter) {
		t.Errorf("kind log: got %v, want ErrBadFilter", err)
	}
	synctest.Test(t, func(t *testing.T) {
		s := capture.New(capture.Options{})
		ingest(t, s, errEv(1, "old", "a.js", 1))
		got := make(chan capture.GroupPage)
		go func() {
			g, err := s.WaitErrorGroups(context.Background(), capture.Filter{})
			if err != nil {
				t.Error(err)
			}
			got <- g
		}()
		synctest.Wait()
		ingest(t, s, errEv(1, "new", "b.js", 2), errEv(1, "new", "b.js", 3))
		if g := <-got; len(g.Groups) != 1 || g.Groups[0].Message != "new" || g.Groups[0].Count != 2 {
			t.Errorf("got %+v, want the one new group of two", g.Groups)
		}
	})
}

func TestClear(t *testing.T) {
	s := fixture(t)
	ingest(t, s, apitype.Event{Kind: "vital", TS: 1, TabID: 1, PageURL: pageURL, Name: "CLS", Value: apitype.Num(0.1), Unit: "score"})
	if _, err := s.Ingest(apitype.EventBatch{Dropped: map[string]int64{"log": 5, "network": 1}}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Clear(capture.KindLog, ptr[int64](2))
	if err != nil || n != 2 {
		t.Fatalf("clear logs of tab 2: got %d, %v; want 2", n, err)
	}
	p := query(t, s, capture.Filter{Kind: capture.KindLog})
	if !slices.Equal(ids(p), []uint64{1, 2}) || p.Dropped != 5 {
		t.Errorf("got %v dropped %d, want 1, 2 and the dropped count kept", ids(p), p.Dropped)
	}
	if n, _ := s.Clear(capture.KindLog, nil); n != 2 {
		t.Errorf("clear logs: got %d, want 2", n)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindLog}); len(p.Entries) != 0 || p.Dropped != 0 {
		t.Errorf("got %+v, want no logs and the dropped count reset", p)
	}
	if n, _ := s.Clear("", nil); n != 5 {
		t.Errorf("clear all: got %d, want the 4 requests and the vital", n)
	}
	if _, err := s.Clear("dom", nil); !errors.Is(err, capture.ErrBadFilter) {
		t.Errorf("unknown kind: got %v, want ErrBadFilter", err)
	}
	ingest(t, s, logEv(1, "log", "after"))
	if got := ids(query(t, s, capture.Filter{Kind: capture.KindLog})); !slices.Equal(got, []uint64{10}) {
		t.Errorf("got %v, want the new entry to continue the sequence (10)", got)
	}
}

func TestTabs(t *testing.T) {
	c := newClock()
	s := capture.New(capture.Options{Now: c.Now})
	if _, err := s.PageInfo(nil); !errors.Is(err, capture.ErrNoTab) {
		t.Errorf("no tabs: got %v, want ErrNoTab", err)
	}
	tab := func(typ string, id, window int64, url, title, status string, active *bool) apitype.Event {
		ev := apitype.Event{Kind: "tab", TS: 1, TabID: id, PageURL: url, Type: typ, Title: title, WindowID: window, Active: active}
		if status != "" {
			ev.Status = apitype.Str(status)
		}
		return ev
	}
	ingest(t, s, tab("updated", 1, 10, "http://a/", "A", "complete", ptr(true)))
	c.Advance(time.Second)
	ingest(t, s, tab("updated", 2, 10, "http://b/", "B", "loading", nil))
	c.Advance(time.Second)
	ingest(t, s, tab("updated", 3, 20, "http://c/", "C", "complete", nil))
	if p, _ := s.PageInfo(nil); p.TabID != 1 || !p.Active || p.Title != "A" {
		t.Errorf("got page %+v, want the active tab 1", p)
	}
	c.Advance(time.Second)
	ingest(t, s, tab("activated", 2, 10, "", "", "", nil))
	c.Advance(time.Second)
	ingest(t, s, tab("updated", 2, 10, "", "", "complete", nil))
	p, err := s.PageInfo(nil)
	if err != nil || p.TabID != 2 || p.URL != "http://b/" || p.Status != "complete" || !p.Active {
		t.Errorf("got page %+v, %v; want tab 2, active, complete, its URL kept", p, err)
	}
	if p, _ := s.PageInfo(ptr[int64](1)); p.Active {
		t.Errorf("tab 1 still active after tab 2 was activated in its window")
	}
	if _, err := s.PageInfo(ptr[int64](99)); !errors.Is(err, capture.ErrUnknownTab) {
		t.Errorf("unknown tab: got %v, want ErrUnknownTab", err)
	}
	ingest(t, s, tab("removed", 2, 0, "", "", "", nil))
	l := s.Tabs("")
	var got []int64
	for _, x := range l.Tabs {
		got = append(got, x.TabID)
	}
	if !slices.Equal(got, []int64{3, 1}) || l.Total != 2 {
		t.Errorf("got tabs %v (total %d), want 3 then 1, most recently seen first", got, l.Total)
	}
	t.Run("bounded", func(t *testing.T) {
		s := capture.New(capture.Options{Now: c.Now})
		for i := range capture.MaxTabs + 50 {
			c.Advance(time.Millisecond)
			ingest(t, s, tab("updated", int64(i), 1, "http://x/", strings.Repeat("t", 500), "", nil))
		}
		l := s.Tabs("")
		if l.Total != capture.MaxTabs || len(l.Tabs) != 100 || l.Tabs[0].TabID != capture.MaxTabs+49 {
			t.Errorf("got %d tabs, %d listed, first %d; want %d, 100, the newest", l.Total, len(l.Tabs), l.Tabs[0].TabID, capture.MaxTabs)
		}
		if b, _ := json.Marshal(l); len(b) > capture.DefaultPageTokens*4 {
			t.Errorf("tab list is %d bytes, over the page budget", len(b))
		}
	})
}

func TestPageBudget(t *testing.T) {
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{capture.KindLog: {MaxBytes: 64 << 20}}})
	for i := range 600 {
		ev := logEv(int64(i%3), "error", fmt.Sprintf("%04d ", i)+strings.Repeat("lorem \"ipsum\"\n", 1200))
		ev.Stack = strings.Repeat("at f (http://localhost:3000/app.js:1:1)\n", 300)
		ev.PageURL = pageURL + "?" + strconv.Itoa(i)
		ingest(t, s, ev)
	}
	budget := capture.DefaultPageTokens * 4
	t.Run("forward", func(t *testing.T) {
		seen := map[uint64]bool{}
		cursor := uint64(0)
		for range 1000 {
			p := query(t, s, capture.Filter{Kind: capture.KindLog, Since: &cursor, Limit: 500})
			b, _ := json.Marshal(p)
			if len(b) > budget {
				t.Fatalf("page of %d entries is %d bytes, over %d", len(p.Entries), len(b), budget)
			}
			for _, id := range ids(p) {
				if seen[id] {
					t.Fatalf("id %d on two pages", id)
				}
				seen[id] = true
			}
			if !p.HasMore {
				break
			}
			cursor = p.NextCursor
		}
		if len(seen) != 600 {
			t.Errorf("paging read %d entries, want all 600", len(seen))
		}
	})
	t.Run("newest", func(t *testing.T) {
		p := query(t, s, capture.Filter{Kind: capture.KindLog, Limit: 500})
		b, _ := json.Marshal(p)
		if len(b) > budget || !p.Earlier || ids(p)[len(p.Entries)-1] != 600 {
			t.Errorf("got %d bytes, earlier %v, last id %d; want under %d, earlier, ending at 600", len(b), p.Earlier, ids(p)[len(p.Entries)-1], budget)
		}
		if msg := p.Entries[0].(*capture.LogView).Message; !strings.Contains(msg, "chars in full]") {
			t.Errorf("got message %.80q…, want it clipped with its length", msg)
		}
	})
	t.Run("groups", func(t *testing.T) {
		s := capture.New(capture.Options{})
		for i := range 300 {
			ev := errEv(1, strconv.Itoa(i)+strings.Repeat(" boom", 2000), "a.js", float64(i+1))
			ingest(t, s, ev)
		}
		g, _ := s.ErrorGroups(capture.Filter{Limit: 500})
		b, _ := json.Marshal(g)
		if len(b) > budget || g.Omitted == 0 || len(g.Groups)+g.Omitted != 300 {
			t.Errorf("got %d bytes, %d groups, %d omitted; want under %d and 300 in all", len(b), len(g.Groups), g.Omitted, budget)
		}
	})
	t.Run("one entry in detail", func(t *testing.T) {
		s := capture.New(capture.Options{})
		n := netEv(1, "page", "GET", "http://a/"+strings.Repeat("p", 8000), 200)
		n.RequestHeaders = map[string]string{}
		for i := range 100 {
			n.RequestHeaders["X-H"+strconv.Itoa(i)] = strings.Repeat("v", 8000)
		}
		ingest(t, s, n)
		v, _ := s.Entry(1)
		if b, _ := json.Marshal(v); len(b) > budget {
			t.Errorf("detail is %d bytes, over %d", len(b), budget)
		}
	})
}

func TestBodyAndEntryErrors(t *testing.T) {
	s := fixture(t)
	if _, err := s.Body(1, "response"); !errors.Is(err, capture.ErrBadFilter) {
		t.Errorf("body of a log: got %v, want ErrBadFilter", err)
	}
	if _, err := s.Body(5, "response"); !errors.Is(err, capture.ErrNoBody) {
		t.Errorf("body of a browser-only request: got %v, want ErrNoBody", err)
	}
	if _, err := s.Body(5, "headers"); !errors.Is(err, capture.ErrBadFilter) {
		t.Errorf("unknown part: got %v, want ErrBadFilter", err)
	}
	for _, id := range []uint64{0, 99} {
		if _, err := s.Body(id, "response"); !errors.Is(err, capture.ErrUnknownEntry) {
			t.Errorf("body of %d: got %v, want ErrUnknownEntry", id, err)
		}
		if _, err := s.Entry(id); !errors.Is(err, capture.ErrUnknownEntry) {
			t.Errorf("entry %d: got %v, want ErrUnknownEntry", id, err)
		}
	}
	if v, err := s.Entry(3); err != nil || v.(*capture.LogView).Message != "low stock for SKU-9" {
		t.Errorf("entry 3: got %+v, %v", v, err)
	}
}

// TestMemoryBound stores many more events than the rings hold, of every kind
// and of varied sizes, and checks that every ring stays within its bounds and
// that the heap holds about what the rings account for.
func TestMemoryBound(t *testing.T) {
	const maxBytes = 1 << 20
	limits := map[capture.Kind]capture.Limit{}
	for _, k := range capture.Kinds {
		limits[k] = capture.Limit{MaxEntries: 2000, MaxBytes: maxBytes}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	s := capture.New(capture.Options{Limits: limits})
	for i := range 20_000 {
		msg := strings.Repeat("m", i%3000) + strconv.Itoa(i)
		n := netEv(int64(i%5), []string{"page", "browser"}[i%2], "GET", "http://localhost:3000/api/"+strconv.Itoa(i%700), 200)
		n.ResponseBody = msg
		ingest(t, s,
			logEv(1, "log", msg), errEv(1, msg, "a.js", 1), n,
			apitype.Event{Kind: "action", TS: 1, TabID: 1, PageURL: pageURL, Type: "click", Selector: "#" + strconv.Itoa(i), Text: msg},
			apitype.Event{Kind: "nav", TS: 1, TabID: 1, PageURL: pageURL, Type: "pushState", To: pageURL + "?" + msg},
			apitype.Event{Kind: "vital", TS: 1, TabID: 1, PageURL: pageURL, Name: "INP", Value: apitype.Num(float64(i)), Unit: "ms"},
			apitype.Event{Kind: "websocket", TS: 1, TabID: 1, PageURL: pageURL, ConnID: "c" + strconv.Itoa(i%50), Type: "message",
				Direction: "received", Size: int64(len(msg)), Text: msg},
		)
	}
	var accounted int64
	for _, k := range s.Stats().Kinds {
		accounted += k.Bytes
		if k.Bytes > maxBytes || k.Entries > 2000 || k.Dropped == 0 {
			t.Errorf("%s: got %+v, want at most %d bytes and 2000 entries, and evictions", k.Kind, k, maxBytes)
		}
	}
	held := int64(heap()) - int64(before)
	// The estimate leaves out allocator rounding; the heap may not hold much
	// more than twice the accounted bytes.
	if held > 2*accounted+4<<20 {
		t.Errorf("heap grew %d bytes for %d accounted, want at most about twice", held, accounted)
	}
	runtime.KeepAlive(s)
}

// TestTabOwners: tab events may say which agent owns the tab and its tab
// group; the list names the owner, marks the caller's own tabs mine, keeps
// what a later event leaves out, and clears what it sets to "".
func TestTabOwners(t *testing.T) {
	s := capture.New(capture.Options{})
	tab := func(id int64, owner, name, group *string) apitype.Event {
		return apitype.Event{Kind: "tab", TS: 1, TabID: id, PageURL: "http://x/", Type: "updated", Owner: owner, OwnerName: name, Group: group}
	}
	ingest(t, s, tab(1, ptr("client-a"), ptr("claude-code"), ptr("claude-code")), tab(2, ptr("client-b"), ptr(""), nil), tab(3, nil, nil, nil))
	byID := func(client string) map[int64]capture.Tab {
		m := map[int64]capture.Tab{}
		for _, x := range s.Tabs(client).Tabs {
			m[x.TabID] = x
		}
		return m
	}
	got := byID("client-a")
	if x := got[1]; x.Owner != "claude-code" || !x.Mine || x.Group != "claude-code" {
		t.Errorf("tab 1 for its owner: %+v, want owner claude-code, mine, grouped", x)
	}
	if x := got[2]; x.Owner != "client-b" || x.Mine || x.Group != "" {
		t.Errorf("tab 2 (owner without a name) for another client: %+v, want owner client-b (its id), not mine", x)
	}
	if x := got[3]; x.Owner != "" || x.Mine || x.Group != "" {
		t.Errorf("the user's tab 3: %+v, want no owner", x)
	}
	if x := byID("client-b")[2]; !x.Mine {
		t.Errorf("tab 2 for client-b: %+v, want mine", x)
	}
	if x := byID("")[1]; x.Mine {
		t.Errorf("tab 1 for no client: %+v, want not mine", x)
	}

	ingest(t, s, tab(1, nil, nil, nil)) // an event that does not say keeps them
	if x := byID("client-a")[1]; x.Owner != "claude-code" || x.Group != "claude-code" {
		t.Errorf("after an event without owner: %+v, want them kept", x)
	}
	ingest(t, s, tab(1, nil, nil, ptr(""))) // the user took it out of the group
	if x := byID("client-a")[1]; x.Owner != "claude-code" || !x.Mine || x.Group != "" {
		t.Errorf("after ungrouping: %+v, want still owned, no group", x)
	}
	long := strings.Repeat("g", 2000)
	ingest(t, s, tab(1, nil, nil, &long))
	if x := byID("")[1]; len(x.Group) > 512 {
		t.Errorf("a %d-char group title is kept whole", len(x.Group))
	}
}
