package har

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// required are the fields HAR 1.2 requires of each object
// (http://www.softwareishard.com/blog/har-12-spec/), by the object's path.
var required = map[string][]string{
	"log":                            {"version", "creator", "pages", "entries"},
	"log.creator":                    {"name", "version"},
	"log.pages[]":                    {"startedDateTime", "id", "title", "pageTimings"},
	"log.entries[]":                  {"startedDateTime", "time", "request", "response", "cache", "timings"},
	"log.entries[].request":          {"method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"},
	"log.entries[].request.postData": {"mimeType", "text"},
	"log.entries[].response":         {"status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"},
	"log.entries[].response.content": {"size", "mimeType"},
	"log.entries[].timings":          {"send", "wait", "receive"},
}

// walk calls visit with every object of v under path.
func walk(path string, v any, visit func(path string, obj map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		visit(path, v)
		for k, c := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, c, visit)
		}
	case []any:
		for _, c := range v {
			walk(path+"[]", c, visit)
		}
	}
}

func TestBuildHasEveryRequiredField(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	xs := []Exchange{
		{Started: t0, PageURL: "http://127.0.0.1:1/", Method: "GET", URL: "http://127.0.0.1:1/", Status: 200, DurationMS: 12,
			MimeType: "text/html", ResponseHeaders: map[string]string{"Content-Type": "text/html"},
			ResponseBody: Body{Text: "<p>hi</p>", Source: FromCache}},
		{Started: t0.Add(time.Millisecond), PageURL: "http://127.0.0.1:1/", Method: "POST", URL: "http://127.0.0.1:1/api?q=a%20b&x",
			Status: 302, RequestHeaders: map[string]string{"Authorization": "[redacted]", "content-type": "application/json"},
			ResponseHeaders: map[string]string{"Location": "/next"},
			RequestBody:     Body{Text: `{"a":1}`, Source: FromCapture}, ResponseBody: Body{Why: "not a text type"}},
		{Started: t0.Add(2 * time.Millisecond), PageURL: "http://127.0.0.1:1/other", Method: "GET", URL: "http://127.0.0.1:1/gone", Error: "net::ERR_FAILED"},
	}
	h := Build(Creator{Name: "gasoline", Version: "test"}, xs)
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	walk("", doc, func(path string, obj map[string]any) {
		for _, f := range required[path] {
			if _, ok := obj[f]; !ok {
				t.Errorf("%s: no %q in %v", path, f, obj)
			}
		}
		seen[path]++
	})
	for path := range required {
		if seen[path] == 0 {
			t.Errorf("the test archive has no %s object to check", path)
		}
	}

	if got, want := len(h.Log.Pages), 2; got != want {
		t.Errorf("pages: got %d, want %d", got, want)
	}
	e := h.Log.Entries[1]
	if got, want := e.Request.QueryString, []NameValue{{"q", "a b"}, {"x", ""}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("queryString: got %v, want %v", got, want)
	}
	if got, want := e.Response.RedirectURL, "/next"; got != want {
		t.Errorf("redirectURL: got %q, want %q", got, want)
	}
	if got, want := e.Request.Headers[0], (NameValue{"Authorization", "[redacted]"}); got != want {
		t.Errorf("redacted header: got %v, want %v", got, want)
	}
	if got, want := e.Response.Content.Comment, "not a text type"; got != want {
		t.Errorf("content comment: got %q, want %q", got, want)
	}
	if got, want := h.Log.Entries[0].Response.Content.Comment, FromCache; got != want {
		t.Errorf("content comment: got %q, want %q", got, want)
	}
	if got, want := h.Log.Entries[0].StartedDateTime, "2026-11-26T05:00:00.000Z"; got != want {
		t.Errorf("startedDateTime: got %q, want %q", got, want)
	}
}

func TestHTTPVersion(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"h2", "HTTP/2"}, {"h3", "HTTP/3"}, {"h3-29", "HTTP/3"}, {"http/1.1", "HTTP/1.1"}, {"http/1.0", "HTTP/1.0"}, {"", ""}, {"quic", ""},
	} {
		if got := HTTPVersion(c.in); got != c.want {
			t.Errorf("HTTPVersion(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCookies: cookies come from the captured Cookie and Set-Cookie
// headers; a redacted header lists none and says so, so no value the
// capture hid can reach the archive.
func TestCookies(t *testing.T) {
	x := Exchange{Method: "GET", URL: "http://127.0.0.1:1/", Status: 200,
		RequestHeaders: map[string]string{"Cookie": "sid=abc; theme=dark"},
		ResponseHeaders: map[string]string{"set-cookie": "sid=xyz; Path=/; HttpOnly; Secure; Expires=Wed, 21 Oct 2026 07:28:00 GMT\n" +
			"lang=en; Domain=example.test; SameSite=Lax"}}
	e := entry("", x)
	want := []Cookie{{Name: "sid", Value: "abc"}, {Name: "theme", Value: "dark"}}
	if got := e.Request.Cookies; !equal(got, want) {
		t.Errorf("request cookies: got %+v, want %+v", got, want)
	}
	want = []Cookie{{Name: "sid", Value: "xyz", Path: "/", HTTPOnly: true, Secure: true, Expires: "2026-10-21T07:28:00Z"},
		{Name: "lang", Value: "en", Domain: "example.test"}}
	if got := e.Response.Cookies; !equal(got, want) {
		t.Errorf("response cookies: got %+v, want %+v", got, want)
	}

	// Headers as the capture keeps them with redaction off: any case of
	// the name, values holding "=", repeated Set-Cookie lines joined by
	// newlines.
	x.RequestHeaders = map[string]string{"COOKIE": "tok=a=b==; empty="}
	x.ResponseHeaders = map[string]string{"Set-Cookie": "tok=c=d==; Path=/api\nold=; Expires=not a date"}
	e = entry("", x)
	if got, want := e.Request.Cookies, []Cookie{{Name: "tok", Value: "a=b=="}, {Name: "empty"}}; !equal(got, want) {
		t.Errorf("captured request cookies: got %+v, want %+v", got, want)
	}
	if got, want := e.Response.Cookies, []Cookie{{Name: "tok", Value: "c=d==", Path: "/api"}, {Name: "old"}}; !equal(got, want) {
		t.Errorf("captured response cookies: got %+v, want %+v", got, want)
	}

	// With redaction on (the default) the capture replaces both headers:
	// no value reaches the HAR, and the comments say why none are listed.
	x.RequestHeaders = map[string]string{"Cookie": capture.Redacted}
	x.ResponseHeaders = map[string]string{"Set-Cookie": capture.Redacted}
	e = entry("", x)
	if len(e.Request.Cookies) != 0 || len(e.Response.Cookies) != 0 ||
		!strings.Contains(e.Request.Comment, "redacted") || !strings.Contains(e.Response.Comment, "redacted") {
		t.Errorf("redacted cookies: got request %+v %q, response %+v %q; want none, each comment saying they are redacted",
			e.Request.Cookies, e.Request.Comment, e.Response.Cookies, e.Response.Comment)
	}
	b, _ := json.Marshal(Build(Creator{}, []Exchange{x}))
	if !strings.Contains(string(b), `"cookies":[]`) {
		t.Errorf("cookies must be an array even when empty: %s", b)
	}
}

func equal(a, b []Cookie) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTimings: a Resource Timing entry splits the entry's time into HAR
// phases that sum to the fetch's duration (ssl inside connect, -1 for what
// did not happen), and gives the httpVersion; without one, or when the
// browser hid the phases, the time is all wait.
func TestTimings(t *testing.T) {
	fresh := &Timing{StartTime: 100, DomainLookupStart: 102, DomainLookupEnd: 110, ConnectStart: 110, ConnectEnd: 150,
		SecureStart: 120, RequestStart: 151, ResponseStart: 251, ResponseEnd: 260.5, Protocol: "h2"}
	reused := &Timing{StartTime: 100, DomainLookupStart: 100, DomainLookupEnd: 100, ConnectStart: 100, ConnectEnd: 100,
		RequestStart: 103, ResponseStart: 140, ResponseEnd: 141, Protocol: "http/1.1"}
	hidden := &Timing{StartTime: 100, ResponseEnd: 180}
	for _, c := range []struct {
		name    string
		tm      *Timing
		want    Timings
		time    float64
		version string
	}{
		{"new TLS connection", fresh, Timings{Blocked: 3, DNS: 8, Connect: 40, SSL: 30, Send: 0, Wait: 100, Receive: 9.5}, 160.5, "HTTP/2"},
		{"reused connection", reused, Timings{Blocked: 3, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 37, Receive: 1}, 41, "HTTP/1.1"},
		{"phases hidden", hidden, Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 80, Receive: 0}, 80, ""},
		{"no entry", nil, Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 70, Receive: 0}, 70, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := entry("", Exchange{Method: "GET", URL: "http://127.0.0.1:1/a", Status: 200, DurationMS: 70, Timing: c.tm})
			if e.Timings != c.want || e.Time != c.time {
				t.Errorf("got timings %+v time %v, want %+v time %v", e.Timings, e.Time, c.want, c.time)
			}
			if e.Time != e.Timings.total() {
				t.Errorf("time %v is not the sum of the timings %+v", e.Time, e.Timings)
			}
			if e.Request.HTTPVersion != c.version || e.Response.HTTPVersion != c.version {
				t.Errorf("httpVersion: got %q and %q, want %q", e.Request.HTTPVersion, e.Response.HTTPVersion, c.version)
			}
			if (c.version == "" || c.want.Blocked == -1) && e.Comment == "" {
				t.Errorf("an entry without phases or version must say why in its comment")
			}
		})
	}
}

// TestMatch pairs each exchange with the Resource Timing entry of its URL
// nearest in start time, each entry once, none beyond MatchWindow.
func TestMatch(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	origin := float64(t0.UnixMilli()) - 1000 // the document began a second before
	at := func(url string, ms float64) Timing { return Timing{URL: url, Origin: origin, StartTime: 1000 + ms} }
	ts := []Timing{at("http://h/poll", 0), at("http://h/poll", 2000), at("http://h/app.js", 40), at("http://h/old.js", -10000)}
	xs := []Exchange{
		{URL: "http://h/poll", Started: t0.Add(30 * time.Millisecond)},
		{URL: "http://h/app.js", Started: t0.Add(-200 * time.Millisecond)}, // the capture stamped it early
		{URL: "http://h/poll", Started: t0.Add(2010 * time.Millisecond)},
		{URL: "http://h/poll", Started: t0.Add(2020 * time.Millisecond)}, // its entry was taken
		{URL: "http://h/old.js", Started: t0},                            // 10 s apart: another load
		{URL: "http://h/none", Started: t0},
	}
	Match(xs, ts)
	want := []*Timing{&ts[0], &ts[2], &ts[1], nil, nil, nil}
	for i, x := range xs {
		checkTiming(t, i, x, want[i])
	}
}

// checkTiming fails when x's Timing is not (a copy of) want.
func checkTiming(t *testing.T, i int, x Exchange, want *Timing) {
	t.Helper()
	switch {
	case want == nil && x.Timing != nil:
		t.Errorf("exchange %d (%s): got timing %+v, want none", i, x.URL, *x.Timing)
	case want != nil && (x.Timing == nil || x.Timing.URL != want.URL || x.Timing.StartTime != want.StartTime):
		t.Errorf("exchange %d (%s): got timing %+v, want %+v", i, x.URL, x.Timing, *want)
	}
}

// TestMatchDocument: a request made before the document's timeOrigin (the
// tab's previous load) never takes the reloaded document's entry, though
// it is nearer in time; nor does a request of another page (an iframe)
// when the entries hold the document's navigation entry.
func TestMatchDocument(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	origin := float64(t0.UnixMilli()) // the reload
	ts := []Timing{{URL: "http://h/page", Origin: origin, StartTime: 0}, {URL: "http://h/api", Origin: origin, StartTime: 100}}
	xs := []Exchange{
		{URL: "http://h/api", PageURL: "http://h/page", Started: t0.Add(-100 * time.Millisecond)}, // 200 ms off, old load
		{URL: "http://h/api", PageURL: "http://h/page#top", Started: t0.Add(400 * time.Millisecond)},
		{URL: "http://h/api", PageURL: "http://h/frame", Started: t0.Add(100 * time.Millisecond)}, // an iframe's
	}
	Match(xs, ts)
	for i, want := range []*Timing{nil, &ts[1], nil} {
		checkTiming(t, i, xs[i], want)
	}
}

// TestMatchNearestPairs: requests of one URL polled close together pair
// by the smallest gap over all candidates, not oldest first: the older
// request, nearer the newer entry, must not take it from the newer
// request. A match with rivals keeps the capture's startedDateTime.
func TestMatchNearestPairs(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	origin := float64(t0.UnixMilli())
	ts := []Timing{
		{URL: "http://h/poll", Origin: origin, StartTime: 0, RequestStart: 1, ResponseStart: 2, ResponseEnd: 3},
		{URL: "http://h/poll", Origin: origin, StartTime: 600, RequestStart: 601, ResponseStart: 602, ResponseEnd: 603},
	}
	xs := []Exchange{
		{URL: "http://h/poll", Method: "GET", Status: 200, Started: t0.Add(350 * time.Millisecond)}, // nearer 600 than 0
		{URL: "http://h/poll", Method: "GET", Status: 200, Started: t0.Add(620 * time.Millisecond)},
	}
	Match(xs, ts)
	checkTiming(t, 0, xs[0], &ts[0])
	checkTiming(t, 1, xs[1], &ts[1])
	h := Build(Creator{}, xs)
	if got := h.Log.Entries[0].StartedDateTime; got != "2026-11-26T05:00:00.350Z" {
		t.Errorf("a match with rivals: startedDateTime %s, want the capture's 05:00:00.350", got)
	}
	if c := h.Log.Entries[0].Comment; !strings.Contains(c, "startedDateTime is the capture's") {
		t.Errorf("a match with rivals: comment %q, want it to say the match was the nearest among others", c)
	}

	one := []Exchange{{URL: "http://h/poll", Method: "GET", Status: 200, Started: t0.Add(20 * time.Millisecond)}}
	Match(one, ts[:1])
	if got := Build(Creator{}, one).Log.Entries[0].StartedDateTime; got != "2026-11-26T05:00:00.000Z" {
		t.Errorf("a sure match: startedDateTime %s, want the entry's 05:00:00.000", got)
	}
}

// TestMatchRedirect: Resource Timing names a redirected fetch by its
// first URL and gives it the final response's phases and protocol. So the
// 3xx hop gets no entry (its comment says why) and the request it led to
// gets it, its phases from fetchStart, its startedDateTime its own.
func TestMatchRedirect(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	origin := float64(t0.UnixMilli())
	ts := []Timing{{URL: "http://h/a", Origin: origin, StartTime: 100, FetchStart: 160,
		RequestStart: 170, ResponseStart: 190, ResponseEnd: 200, Protocol: "h2"}}
	xs := []Exchange{
		{URL: "http://h/a", Method: "GET", Status: 302, Started: t0.Add(100 * time.Millisecond), DurationMS: 55,
			ResponseHeaders: map[string]string{"Location": "/b"}},
		{URL: "http://h/b", Method: "GET", Status: 200, Started: t0.Add(161 * time.Millisecond), DurationMS: 40},
	}
	Match(xs, ts)
	checkTiming(t, 0, xs[0], nil)
	checkTiming(t, 1, xs[1], &Timing{URL: "http://h/a", StartTime: 160})
	h := Build(Creator{}, xs)
	hop, final := h.Log.Entries[0], h.Log.Entries[1]
	if hop.Request.HTTPVersion != "" || !strings.Contains(hop.Comment, "redirect") {
		t.Errorf("the 3xx hop: httpVersion %q, comment %q; want none and a comment saying it is a redirect", hop.Request.HTTPVersion, hop.Comment)
	}
	if final.Request.HTTPVersion != "HTTP/2" || final.StartedDateTime != "2026-11-26T05:00:00.160Z" || final.Time != 40 {
		t.Errorf("the final request: httpVersion %q, started %s, time %v; want HTTP/2, 05:00:00.160 (fetchStart), 40 ms",
			final.Request.HTTPVersion, final.StartedDateTime, final.Time)
	}

	// A redirected navigation: its entry is named by the document's final
	// URL and starts at the timeline's 0. A 304 is no redirect: it keeps
	// its entry.
	ts = []Timing{{URL: "http://h/home", Origin: origin, StartTime: 0, FetchStart: 30},
		{URL: "http://h/app.css", Origin: origin, StartTime: 80}}
	xs = []Exchange{
		{URL: "http://h/", PageURL: "http://h/", Status: 301, Started: t0.Add(5 * time.Millisecond),
			ResponseHeaders: map[string]string{"location": "http://h/home"}},
		{URL: "http://h/home", PageURL: "http://h/home", Status: 200, Started: t0.Add(31 * time.Millisecond)},
		{URL: "http://h/app.css", PageURL: "http://h/home", Status: 304, Started: t0.Add(82 * time.Millisecond)},
	}
	Match(xs, ts)
	checkTiming(t, 0, xs[0], nil)
	checkTiming(t, 1, xs[1], &Timing{URL: "http://h/home", StartTime: 30})
	checkTiming(t, 2, xs[2], &ts[1])
}

// TestPageTimings: a page's document with its navigation timing entry
// gives the page's onContentLoad and onLoad, from the page's start; a page
// without one keeps -1.
func TestPageTimings(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	origin := float64(t0.UnixMilli())
	xs := []Exchange{
		{Started: t0.Add(3 * time.Millisecond), PageURL: "http://h/a", URL: "http://h/a", Method: "GET", Status: 200,
			Timing: &Timing{URL: "http://h/a", Origin: origin, RequestStart: 5, ResponseStart: 20, ResponseEnd: 30, DCL: 250.5, Load: 400, Sure: true}},
		{Started: t0.Add(time.Second), PageURL: "http://h/b", URL: "http://h/b", Method: "GET", Status: 200},
	}
	h := Build(Creator{}, xs)
	if got, want := h.Log.Pages[0], (Page{StartedDateTime: "2026-11-26T05:00:00.000Z", ID: "page_1", Title: "http://h/a",
		PageTimings: PageTimings{OnContentLoad: 250.5, OnLoad: 400}}); got != want {
		t.Errorf("page with a navigation entry: got %+v, want %+v", got, want)
	}
	if got := h.Log.Pages[1].PageTimings; got != (PageTimings{OnContentLoad: -1, OnLoad: -1}) {
		t.Errorf("page without one: got %+v, want -1s", got)
	}
	if got := h.Log.Entries[0].StartedDateTime; got != "2026-11-26T05:00:00.000Z" {
		t.Errorf("the document's startedDateTime: got %s, want its navigation start", got)
	}
}

// TestBodySize: a body's bodySize is its size, 0 for a request that sent
// none (Body.None), -1 when unknown.
func TestBodySize(t *testing.T) {
	for _, c := range []struct {
		name string
		b    Body
		want int64
	}{
		{"captured", Body{Text: "abc"}, 3},
		{"sized", Body{Size: 10, Why: "not captured"}, 10},
		{"none sent", Body{None: true}, 0},
		{"unknown", Body{Why: "not kept"}, -1},
	} {
		x := Exchange{Started: time.UnixMilli(1_700_000_000_000), Method: "GET", URL: "http://a/", Status: 200, RequestBody: c.b}
		if got := Build(Creator{Name: "t", Version: "1"}, []Exchange{x}).Log.Entries[0].Request.BodySize; got != c.want {
			t.Errorf("%s: got bodySize %d, want %d", c.name, got, c.want)
		}
	}
}
