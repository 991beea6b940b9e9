package capture_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// loadEv is a top document's load in tab (lean: loaded while no agent was
// at work).
func loadEv(tab int64, lean bool) apitype.Event {
	return apitype.Event{Kind: "nav", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, Type: "load", To: pageURL, Lean: lean}
}

// leanReq is a request of tab's page: lean (no bodies), or with a response
// body.
func leanReq(tab int64, url string, lean bool) apitype.Event {
	e := netEv(tab, "page", "GET", url, 200)
	e.RequestID = url
	e.Lean = lean
	if !lean {
		e.ResponseBody, e.ResponseBodySize = `{"ok":true}`, 11
	}
	return e
}

func vitalEv(tab int64) apitype.Event {
	return apitype.Event{Kind: "vital", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, Name: "LCP", Value: apitype.Num(900), Unit: "ms"}
}

// The extension's lean mark survives the wire (the fast decoder and
// encoding/json alike) on requests and on top-document loads.
func TestLeanDecoded(t *testing.T) {
	for _, body := range []string{
		`{"events":[{"kind":"nav","ts":1,"tab_id":4,"frame_id":0,"page_url":"http://a/","type":"load","to":"http://a/","lean":true},` +
			`{"kind":"network","ts":2,"tab_id":4,"frame_id":0,"page_url":"http://a/","request_id":"1","source":"page","method":"GET","url":"http://a/api","status":200,"resource_type":"fetch","lean":true}]}`,
		// an unknown key sends the batch to encoding/json, which keeps lean too
		`{"events":[{"kind":"nav","ts":1,"tab_id":4,"page_url":"http://a/","type":"load","to":"http://a/","lean":true,"later":1},` +
			`{"kind":"network","ts":2,"tab_id":4,"page_url":"http://a/","request_id":"1","source":"page","method":"GET","url":"http://a/api","status":200,"resource_type":"fetch","lean":true}]}`,
	} {
		s := capture.New(capture.Options{})
		if ack, err := s.IngestJSON([]byte(body)); err != nil || ack.Accepted != 2 {
			t.Fatalf("ingest: got %+v, %v, want 2 accepted", ack, err)
		}
		p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
		if len(p.Entries) != 1 || !p.Entries[0].(*capture.NetworkView).Lean {
			t.Fatalf("got %+v, want one lean request", p.Entries)
		}
		if !strings.Contains(p.Lean, "refresh the page (interact({action:\"refresh\", tab_id:4}))") {
			t.Errorf("lean note %q does not say tab 4's page is still lean", p.Lean)
		}
	}
}

// A read of requests some of which came from lean pages says so once, with
// how many and what to do; a read of other tabs, or with nothing lean, adds
// nothing (and its JSON has no lean key).
func TestLeanRequests(t *testing.T) {
	s := capture.New(capture.Options{})
	ingest(t, s,
		loadEv(1, true), leanReq(1, "http://localhost:3000/api/a", true), leanReq(1, "http://localhost:3000/api/b", true),
		loadEv(2, false), leanReq(2, "http://localhost:3000/api/c", false),
	)
	tests := []struct {
		name string
		f    capture.Filter
		want string
	}{
		{"every tab", capture.Filter{Kind: capture.KindNetwork},
			`2 requests came from pages loaded while no agent was at work: their bodies were not kept; refresh the page (interact({action:"refresh", tab_id:1})) to capture bodies`},
		{"one lean request", capture.Filter{Kind: capture.KindNetwork, URL: "/api/b"},
			`1 request came from a page loaded while no agent was at work: its bodies were not kept; refresh the page (interact({action:"refresh", tab_id:1})) to capture bodies`},
		{"the tab at work", capture.Filter{Kind: capture.KindNetwork, TabID: ptr(int64(2))}, ""},
		{"logs", capture.Filter{Kind: capture.KindLog}, ""},
		{"vitals of the tab at work", capture.Filter{Kind: capture.KindVital, Tabs: []int64{2}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := query(t, s, tc.f)
			if p.Lean != tc.want {
				t.Errorf("got lean %q, want %q", p.Lean, tc.want)
			}
			b, _ := json.Marshal(p)
			if tc.want == "" && strings.Contains(string(b), "lean") {
				t.Errorf("a read with nothing lean says lean: %s", b)
			}
			if strings.Count(string(b), "not kept") > 1 {
				t.Errorf("the note is repeated per entry: %s", b)
			}
		})
	}

	// A lean request's body: why there is none and what to do; a request
	// of a page at work without a body is still plain "no body".
	_, err := s.Body(2, "response")
	if !errors.Is(err, capture.ErrBodyNotKept) || errors.Is(err, capture.ErrNoBody) ||
		!strings.Contains(err.Error(), `interact({action:"refresh", tab_id:1})`) || !strings.Contains(err.Error(), "no agent was at work") {
		t.Errorf("lean body: got %v, want ErrBodyNotKept naming the refresh", err)
	}
	if b, err := s.Body(5, "response"); err != nil || b.Text != `{"ok":true}` {
		t.Errorf("body at work: got %+v, %v", b, err)
	}
	if _, err := s.Body(5, "request"); !errors.Is(err, capture.ErrNoBody) {
		t.Errorf("empty request body at work: got %v, want ErrNoBody", err)
	}
	v, err := s.Entry(2)
	if err != nil {
		t.Fatal(err)
	}
	if n := v.(*capture.NetworkView); !strings.HasPrefix(n.Body, "not kept: its page was loaded while no agent was at work") {
		t.Errorf("lean request in full: got body %q, want why it was not kept", n.Body)
	}
	if v, _ := s.Entry(5); v.(*capture.NetworkView).Body != "" {
		t.Errorf("request at work in full: got body %q, want none", v.(*capture.NetworkView).Body)
	}

	ingest(t, s, loadEv(6, true), leanReq(6, "http://localhost:3000/api/d", true))
	want := `3 requests came from pages loaded while no agent was at work: their bodies were not kept; ` +
		`refresh the pages of tabs 1, 6 (interact({action:"refresh", tab_id})) to capture bodies`
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork}); p.Lean != want {
		t.Errorf("two lean tabs: got lean %q, want %q", p.Lean, want)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork, Limit: 1}); !strings.HasPrefix(p.Lean, "1 request came") {
		t.Errorf("a page of one lean request: got lean %q, want it counted alone", p.Lean)
	}
}

// A tab reloaded while an agent works: its newer records are not lean, no
// note shows for its current page, and its older lean requests say the
// reload already brought bodies.
func TestLeanTabReloadedAtWork(t *testing.T) {
	s := capture.New(capture.Options{})
	ingest(t, s, loadEv(3, true), leanReq(3, "http://localhost:3000/api/old", true), vitalEv(3))
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); !strings.HasPrefix(p.Lean, "tab 3's page was loaded while no agent was at work") {
		t.Fatalf("vitals of the lean page: got lean %q", p.Lean)
	}
	cursor := s.Head()
	ingest(t, s, at(loadEv(3, false), 10), at(leanReq(3, "http://localhost:3000/api/new", false), 11), at(vitalEv(3), 12))

	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork, Since: &cursor}); p.Lean != "" || len(p.Entries) != 1 || p.Entries[0].(*capture.NetworkView).Lean {
		t.Errorf("requests since the reload: got lean %q, entries %+v, want nothing lean", p.Lean, p.Entries)
	}
	want := `1 request came from a page loaded while no agent was at work: its bodies were not kept; requests made since the page was reloaded have them`
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork}); p.Lean != want {
		t.Errorf("every request: got lean %q, want %q", p.Lean, want)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean != "" {
		t.Errorf("vitals after the reload: got lean %q, want none", p.Lean)
	}
	if p, _ := s.WebSockets(capture.Filter{}); p.Lean != "" {
		t.Errorf("websockets after the reload: got lean %q, want none", p.Lean)
	}
	_, err := s.Body(2, "response")
	if !errors.Is(err, capture.ErrBodyNotKept) || !strings.Contains(err.Error(), "tab 3 has been reloaded while you work since") {
		t.Errorf("old lean body: got %v, want ErrBodyNotKept saying the tab was reloaded", err)
	}
	if b, err := s.Body(5, "response"); err != nil || b.Text == "" {
		t.Errorf("body after the reload: got %+v, %v", b, err)
	}
}

// Vitals and WebSocket reads name the tabs they cover whose page is lean
// now; an iframe's load does not change its tab's page, a closed tab is
// forgotten.
func TestLeanPages(t *testing.T) {
	s := capture.New(capture.Options{})
	frame := loadEv(5, false)
	frame.FrameID = 2 // an iframe of the lean page, captured at work
	ingest(t, s, loadEv(3, true), loadEv(4, false), loadEv(5, true), frame, vitalEv(4))

	one := `tab 3's page was loaded while no agent was at work: its web vitals are not captured until it is reloaded ` +
		`(interact({action:"refresh", tab_id:3})); analyze({what:"performance", tab_id:3}) measures it now`
	if p := query(t, s, capture.Filter{Kind: capture.KindVital, Tabs: []int64{3, 4}}); p.Lean != one || len(p.Entries) != 1 {
		t.Errorf("vitals of tabs 3 and 4: got lean %q (%d entries), want %q", p.Lean, len(p.Entries), one)
	}
	both := `tabs 3, 5 show pages loaded while no agent was at work: their web vitals are not captured until each is reloaded ` +
		`(interact({action:"refresh", tab_id})); analyze({what:"performance", tab_id}) measures one now`
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean != both {
		t.Errorf("vitals of every tab: got lean %q, want %q", p.Lean, both)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindVital, ExceptTabs: []int64{3, 5}}); p.Lean != "" {
		t.Errorf("vitals of other tabs: got lean %q, want none", p.Lean)
	}
	ws := `tab 5's page was loaded while no agent was at work: its WebSocket traffic is not captured until it is reloaded (interact({action:"refresh", tab_id:5}))`
	if p, _ := s.WebSockets(capture.Filter{TabID: ptr(int64(5))}); p.Lean != ws {
		t.Errorf("websockets of tab 5: got lean %q, want %q", p.Lean, ws)
	}

	ingest(t, s, apitype.Event{Kind: "tab", TS: 1_700_000_000_000, TabID: 3, Type: "removed"})
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); !strings.HasPrefix(p.Lean, "tab 5's page") {
		t.Errorf("after tab 3 closed: got lean %q, want tab 5 only", p.Lean)
	}

	var evs []apitype.Event
	for tab := int64(10); tab < 18; tab++ {
		evs = append(evs, loadEv(tab, true))
	}
	ingest(t, s, evs...)
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); !strings.HasPrefix(p.Lean, "tabs 5, 10, 11, 12, 13 and 4 more show pages") {
		t.Errorf("many lean tabs: got lean %q, want the first five and a count", p.Lean)
	}
}

// A lean page half merged with its browser half stays lean.
func TestLeanMerged(t *testing.T) {
	s := capture.New(capture.Options{})
	page := leanReq(1, "http://localhost:3000/api/a", true)
	browser := netEv(1, "browser", "GET", "http://localhost:3000/api/a", 200)
	ingest(t, s, loadEv(1, true), browser, page)
	p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
	if len(p.Entries) != 1 || p.Entries[0].(*capture.NetworkView).Source != "page+browser" || !strings.HasPrefix(p.Lean, "1 request came") {
		t.Errorf("got %+v, lean %q, want one merged lean request", p.Entries, p.Lean)
	}
}

// The lean tabs are bounded like the tab table (TestLeanTabsEvictOldest
// says which goes).
func TestLeanTabsBounded(t *testing.T) {
	s := capture.New(capture.Options{})
	var evs []apitype.Event
	for tab := int64(0); tab <= capture.MaxTabs; tab++ {
		evs = append(evs, loadEv(tab, true))
	}
	for len(evs) > 0 {
		n := min(len(evs), 200)
		ingest(t, s, evs[:n]...)
		evs = evs[n:]
	}
	p := query(t, s, capture.Filter{Kind: capture.KindVital})
	if want := fmt.Sprintf(" and %d more show pages", capture.MaxTabs-5); !strings.Contains(p.Lean, want) {
		t.Errorf("got lean %q, want %d tabs named (%q)", p.Lean, capture.MaxTabs, want)
	}
}

// at returns ev at ms milliseconds past the tests' epoch.
func at(ev apitype.Event, ms float64) apitype.Event {
	ev.TS = 1_700_000_000_000 + ms
	return ev
}

// The store learns a tab's page is lean, or full, from the top frame's
// page-side requests when it saw no load (the daemon started after it, the
// record was lost, or the page came back from the back/forward cache), and
// a record older than what it knows changes nothing.
func TestLeanLearnedFromRequests(t *testing.T) {
	s := capture.New(capture.Options{})
	ingest(t, s, at(leanReq(7, "http://localhost:3000/api/old", true), 10))
	refresh := `1 request came from a page loaded while no agent was at work: its bodies were not kept; refresh the page (interact({action:"refresh", tab_id:7})) to capture bodies`
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork}); p.Lean != refresh {
		t.Errorf("lean request, no load: got lean %q, want %q", p.Lean, refresh)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); !strings.HasPrefix(p.Lean, "tab 7's page was loaded while no agent was at work") {
		t.Errorf("vitals of a page known lean from its requests: got lean %q", p.Lean)
	}

	// A full page's request, newer: the tab was reloaded at work.
	ingest(t, s, at(leanReq(7, "http://localhost:3000/api/new", false), 20))
	reloaded := `1 request came from a page loaded while no agent was at work: its bodies were not kept; requests made since the page was reloaded have them`
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork}); p.Lean != reloaded {
		t.Errorf("after a request at work: got lean %q, want %q", p.Lean, reloaded)
	}
	// The old page's late record does not undo that.
	ingest(t, s, at(leanReq(7, "http://localhost:3000/api/late", true), 15))
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean != "" {
		t.Errorf("a late record of the old page: got vitals lean %q, want none", p.Lean)
	}
	// An iframe's request or the browser's half does not speak for the page.
	frame := at(leanReq(7, "http://localhost:3000/api/frame", true), 30)
	frame.FrameID = 3
	browser := at(netEv(7, "browser", "GET", "http://localhost:3000/api/b", 200), 31)
	browser.Lean = true
	ingest(t, s, frame, browser)
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean != "" {
		t.Errorf("an iframe's lean request: got vitals lean %q, want none", p.Lean)
	}
}

// A page loaded at work, left while idle, then restored from the
// back/forward cache (no load): its first request says it is full again.
func TestLeanBackForward(t *testing.T) {
	s := capture.New(capture.Options{})
	ingest(t, s, at(loadEv(4, false), 0), at(loadEv(4, true), 100))
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean == "" {
		t.Fatalf("the idle page: got no lean note")
	}
	ingest(t, s, at(leanReq(4, "http://localhost:3000/api/in-flight", false), 50)) // resent as it entered the cache
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean == "" {
		t.Errorf("an older request of the restored page overturned the newer load")
	}
	ingest(t, s, at(leanReq(4, "http://localhost:3000/api/restored", false), 200))
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean != "" {
		t.Errorf("the restored page at work: got lean %q, want none", p.Lean)
	}
}

// When the daemon cannot know whether a lean request's tab was reloaded
// since (the request is an iframe's and no load was seen, or the tab
// closed), the note and the body error claim no reload.
func TestLeanUnknown(t *testing.T) {
	s := capture.New(capture.Options{})
	post := at(leanReq(7, "http://localhost:3000/api/frame", true), 10)
	post.FrameID, post.Method = 2, "POST"
	ingest(t, s, post)
	want := `1 request came from a page loaded while no agent was at work: its bodies were not kept; ` +
		`requests made after the page is reloaded while you work have them (interact({action:"refresh", tab_id:7}))`
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork}); p.Lean != want {
		t.Errorf("unknown tab: got lean %q, want %q", p.Lean, want)
	}
	_, err := s.Body(1, "request")
	if !errors.Is(err, capture.ErrBodyNotKept) || strings.Contains(err.Error(), "has been reloaded") ||
		!strings.Contains(err.Error(), `interact({action:"refresh", tab_id:7})`) {
		t.Errorf("unknown tab's body: got %v, want ErrBodyNotKept claiming no reload", err)
	}

	ingest(t, s, at(loadEv(8, true), 0), at(leanReq(8, "http://localhost:3000/api/x", true), 1),
		apitype.Event{Kind: "tab", TS: 1_700_000_000_002, TabID: 8, Type: "removed"})
	if _, err := s.Body(3, "response"); !errors.Is(err, capture.ErrBodyNotKept) || strings.Contains(err.Error(), "has been reloaded") {
		t.Errorf("closed tab's body: got %v, want ErrBodyNotKept claiming no reload", err)
	}
	both := `2 requests came from pages loaded while no agent was at work: their bodies were not kept; ` +
		`requests made after a page is reloaded while you work have them (interact({action:"refresh", tab_id}) on tabs 7, 8)`
	if p := query(t, s, capture.Filter{Kind: capture.KindNetwork}); p.Lean != both {
		t.Errorf("two unknown tabs: got lean %q, want %q", p.Lean, both)
	}
}

// With nav capture switched off, loads are not stored but still tell the
// store whether the tab's page is lean: a refresh at work is seen.
func TestLeanNavOff(t *testing.T) {
	s := capture.New(capture.Options{})
	if _, err := s.Configure(capture.Settings{Kinds: map[capture.Kind]bool{capture.KindNav: false}}); err != nil {
		t.Fatal(err)
	}
	ack, err := s.Ingest(apitype.EventBatch{Events: []apitype.Event{at(loadEv(3, true), 0)}})
	if err != nil || ack.Accepted != 0 || len(ack.Rejected) != 1 {
		t.Fatalf("a load with nav off: got %+v, %v, want it rejected", ack, err)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); !strings.HasPrefix(p.Lean, "tab 3's page was loaded while no agent was at work") {
		t.Errorf("lean load with nav off: got vitals lean %q", p.Lean)
	}
	s.Ingest(apitype.EventBatch{Events: []apitype.Event{at(loadEv(3, false), 10)}})
	if p := query(t, s, capture.Filter{Kind: capture.KindVital}); p.Lean != "" {
		t.Errorf("refresh at work with nav off: got vitals lean %q, want none", p.Lean)
	}
	if p := query(t, s, capture.Filter{Kind: capture.KindNav}); len(p.Entries) != 0 {
		t.Errorf("nav off stored %+v", p.Entries)
	}
}

// A request that sends no body (GET, HEAD, or Content-Length 0) has none
// to keep: its request body is "no body" even from a lean page.
func TestLeanNoRequestBody(t *testing.T) {
	s := capture.New(capture.Options{})
	head := leanReq(1, "http://localhost:3000/api/h", true)
	head.Method = "HEAD"
	empty := leanReq(1, "http://localhost:3000/api/e", true)
	empty.Method, empty.RequestHeaders = "POST", map[string]string{"Content-Length": "0"}
	post := leanReq(1, "http://localhost:3000/api/p", true)
	post.Method = "POST"
	ingest(t, s, loadEv(1, true), leanReq(1, "http://localhost:3000/api/g", true), head, empty, post)
	for id, want := range map[uint64]error{2: capture.ErrSendsNoBody, 3: capture.ErrSendsNoBody, 4: capture.ErrSendsNoBody, 5: capture.ErrBodyNotKept} {
		if _, err := s.Body(id, "request"); !errors.Is(err, want) || want == capture.ErrSendsNoBody && !errors.Is(err, capture.ErrNoBody) {
			t.Errorf("request body of entry %d: got %v, want %v", id, err, want)
		}
		if _, err := s.Body(id, "response"); !errors.Is(err, capture.ErrBodyNotKept) {
			t.Errorf("response body of entry %d: got %v, want ErrBodyNotKept", id, err)
		}
	}
}

// Past capture.MaxTabs the tab learned of longest ago is forgotten, not
// any: here tab 1, as tab 0 was learned of again.
func TestLeanTabsEvictOldest(t *testing.T) {
	s := capture.New(capture.Options{})
	var evs []apitype.Event
	for tab := int64(0); tab < capture.MaxTabs; tab++ {
		evs = append(evs, at(loadEv(tab, true), float64(tab)))
	}
	evs = append(evs, at(loadEv(0, true), capture.MaxTabs), at(loadEv(capture.MaxTabs, true), capture.MaxTabs+1))
	for len(evs) > 0 {
		n := min(len(evs), 200)
		ingest(t, s, evs[:n]...)
		evs = evs[n:]
	}
	for tab, lean := range map[int64]bool{0: true, 1: false, 2: true, capture.MaxTabs: true} {
		p := query(t, s, capture.Filter{Kind: capture.KindVital, Tabs: []int64{tab}})
		if (p.Lean != "") != lean {
			t.Errorf("tab %d: got lean %q, want lean %v", tab, p.Lean, lean)
		}
	}
}

// A lean page keeps the bodies of its failed requests (status 400 or more,
// or no response): those read as any request's, and the list's lean line
// counts only the requests whose bodies it did not keep; a failed request
// without a text body has no body, not one that was not kept.
func TestLeanKeepsFailures(t *testing.T) {
	s := capture.New(capture.Options{})
	failed := leanReq(1, "http://localhost:3000/api/save", true)
	failed.Method, failed.Status = "POST", apitype.Num(500)
	failed.RequestBody, failed.RequestBodySize = `{"name":"x"}`, 12
	failed.ResponseBody, failed.ResponseBodySize = `{"error":"quota exceeded for workspace 42"}`, 43
	offline := leanReq(1, "http://localhost:3000/api/ping", true)
	offline.Method, offline.Status, offline.Error = "POST", apitype.Num(0), "net::ERR_FAILED"
	offline.RequestBody, offline.RequestBodySize = "ping", 4
	image := leanReq(1, "http://localhost:3000/api/avatar", true)
	image.Status = apitype.Num(404)
	ingest(t, s, loadEv(1, true), failed, offline, image, leanReq(1, "http://localhost:3000/api/ok", true))

	p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
	want := `1 request came from a page loaded while no agent was at work: its bodies were not kept; refresh the page (interact({action:"refresh", tab_id:1})) to capture bodies`
	if len(p.Entries) != 4 || p.Lean != want {
		t.Fatalf("got %d entries, lean %q, want 4 and %q", len(p.Entries), p.Lean, want)
	}
	for _, c := range []struct {
		id   uint64
		part string
		want string
		err  error
	}{
		{2, "request", `{"name":"x"}`, nil},
		{2, "response", `{"error":"quota exceeded for workspace 42"}`, nil},
		{3, "request", "ping", nil},
		{4, "response", "", capture.ErrNoBody},
		{5, "response", "", capture.ErrBodyNotKept},
	} {
		b, err := s.Body(c.id, c.part)
		if b.Text != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("Body(%d, %s): got %q, %v, want %q, %v", c.id, c.part, b.Text, err, c.want, c.err)
		}
	}
	v, err := s.Entry(2)
	if n, ok := v.(*capture.NetworkView); err != nil || !ok || n.Body != "" || n.Lean {
		t.Errorf("Entry of the failed lean request: got %+v, %v, want no lean body note", v, err)
	}
}
