// Package har renders captured requests as an HTTP Archive (HAR 1.2), the
// format replay tools (Playwright's routeFromHAR, browsers' DevTools) load.
package har

import (
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// Version is the HAR version Build writes.
const Version = "1.2"

// Where a response body came from, as an entry's content comment says.
const (
	// FromCapture: the body the page read, kept by the capture hooks
	// (fetch/XHR text bodies, up to the body cap).
	FromCapture = "captured"
	// FromCache: read again from the browser's HTTP cache in the page's
	// context at export (no network), the bytes the page was served.
	FromCache = "cache re-read"
)

// An export never fetches from the site (it would send the user's
// requests again): a body neither captured nor in the cache has no text,
// its content says why in its comment and "_notCaptured": true (HAR 1.2
// allows custom fields named with a leading underscore).

// HAR is an HTTP Archive document.
type HAR struct {
	Log Log `json:"log"`
}

// Log is the archive's root object.
type Log struct {
	Version string  `json:"version"`
	Creator Creator `json:"creator"`
	Pages   []Page  `json:"pages"`
	Entries []Entry `json:"entries"`
	Comment string  `json:"comment,omitempty"`
}

// Creator names the program that wrote the archive.
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Page is one page the entries were made by.
type Page struct {
	StartedDateTime string      `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
}

// PageTimings are ms from the page's start to its DOMContentLoaded and
// load events, from the document's navigation timing entry; -1 when the
// export had none (the tab has left the page, or it has not loaded yet).
type PageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// Entry is one request and its response.
type Entry struct {
	Pageref         string   `json:"pageref,omitempty"`
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         Timings  `json:"timings"`
	Comment         string   `json:"comment,omitempty"`
}

// NameValue is a header or query parameter.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Cookie is a cookie a request sent (name and value only) or a response
// set (with the attributes of its Set-Cookie line).
type Cookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Path     string `json:"path,omitempty"`
	Domain   string `json:"domain,omitempty"`
	Expires  string `json:"expires,omitempty"`
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	Secure   bool   `json:"secure,omitempty"`
}

// Request is an entry's request.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

// PostData is a request's body.
type PostData struct {
	MimeType string      `json:"mimeType"`
	Params   []NameValue `json:"params"`
	Text     string      `json:"text"`
	Comment  string      `json:"comment,omitempty"`
}

// Response is an entry's response.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

// Content is a response's body. Text is absent when no body was kept;
// Comment then says why, else where the text came from.
type Content struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Comment  string `json:"comment,omitempty"`
	// NotCaptured marks a body the response had and the archive lacks.
	NotCaptured bool `json:"_notCaptured,omitempty"`
}

// Timings split an entry's time (HAR 1.2: send, wait and receive are
// never negative; blocked, dns, connect and ssl are -1 where they do not
// apply or are not known; ssl is also counted in connect; the entry's time
// is the sum of all but ssl, leaving out the -1s). Without a Resource
// Timing entry the capture knows only the total, so it is all wait.
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// Exchange is one captured request, as Build takes it.
type Exchange struct {
	Started         time.Time
	PageURL         string // the document that made it; groups entries into pages
	Method          string
	URL             string
	Status          int    // 0: no response
	Error           string // why there was no response
	DurationMS      float64
	MimeType        string
	RequestHeaders  map[string]string // as captured: credentials stay "[redacted]"
	ResponseHeaders map[string]string
	RequestBody     Body
	ResponseBody    Body
	// Note is the capture's comment on the entry (its id, its type).
	Note string
	// Timing is the browser's Resource Timing entry of this request, when
	// the page still had one at export; nil when not.
	Timing *Timing
}

// Timing is a PerformanceResourceTiming (or PerformanceNavigationTiming)
// entry as the page's performance timeline gave it: times are
// milliseconds on the document's timeline, and 0 where the browser does
// not expose a phase (a connection reused, a cross-origin response without
// Timing-Allow-Origin).
type Timing struct {
	URL               string  `json:"url"`
	Origin            float64 `json:"origin"` // performance.timeOrigin, ms since the Unix epoch
	StartTime         float64 `json:"start"`
	DomainLookupStart float64 `json:"dns_start"`
	DomainLookupEnd   float64 `json:"dns_end"`
	ConnectStart      float64 `json:"connect_start"`
	ConnectEnd        float64 `json:"connect_end"`
	SecureStart       float64 `json:"ssl_start"`
	RequestStart      float64 `json:"request_start"`
	ResponseStart     float64 `json:"response_start"`
	ResponseEnd       float64 `json:"response_end"`
	// FetchStart is when the final request of the fetch began, after any
	// redirects (the start itself when there were none).
	FetchStart float64 `json:"fetch_start"`
	// Protocol is nextHopProtocol: "h2", "h3", "http/1.1", or "" when
	// the browser does not say (cross-origin without Timing-Allow-Origin).
	Protocol string `json:"protocol"`
	// DCL and Load are a navigation entry's domContentLoadedEventStart
	// and loadEventStart: 0 for a resource, or an event still to come.
	DCL  float64 `json:"dcl"`
	Load float64 `json:"load"`
	// Sure is set by Match when the entry and the request had no other
	// candidate: the entry's start is then the request's.
	Sure bool `json:"-"`
}

// Started is when t's fetch started, on the wall clock.
func (t *Timing) Started() time.Time {
	return time.UnixMicro(int64((t.Origin + t.StartTime) * 1000))
}

// Body is a captured body: Text empty when none was kept, with Why.
type Body struct {
	Text      string
	Size      int64 // full size in bytes, 0 when unknown
	Truncated bool  // Text is the first body-cap bytes only
	Source    string
	Why       string // why there is no text
	// None says the request sent no body (a GET, say): its bodySize is 0.
	None bool
}

// Build returns the archive of xs, in their order, made by creator. Pages
// are the distinct PageURLs, in order of their first request.
func Build(creator Creator, xs []Exchange) *HAR {
	h := &HAR{Log: Log{Version: Version, Creator: creator, Pages: []Page{}, Entries: make([]Entry, 0, len(xs))}}
	pages := map[string]string{}
	for _, x := range xs {
		ref, ok := pages[x.PageURL]
		if !ok && x.PageURL != "" {
			ref = "page_" + strconv.Itoa(len(pages)+1)
			pages[x.PageURL] = ref
			h.Log.Pages = append(h.Log.Pages, Page{StartedDateTime: stamp(x.Started), ID: ref, Title: x.PageURL,
				PageTimings: PageTimings{OnContentLoad: -1, OnLoad: -1}})
		}
		h.Log.Entries = append(h.Log.Entries, entry(ref, x))
	}
	for _, x := range xs {
		if tm := x.Timing; tm != nil && x.URL == x.PageURL && tm.DCL > 0 {
			for i := range h.Log.Pages {
				if p := &h.Log.Pages[i]; p.ID == pages[x.PageURL] {
					p.StartedDateTime = stamp(tm.Started())
					p.PageTimings = PageTimings{OnContentLoad: since(tm.DCL, tm.StartTime), OnLoad: since(tm.Load, tm.StartTime)}
				}
			}
		}
	}
	return h
}

// since is the ms from start to t on a document's timeline, -1 when t is
// 0 (the event has not happened).
func since(t, start float64) float64 {
	if t <= 0 {
		return -1
	}
	return round(t - start)
}

func entry(ref string, x Exchange) Entry {
	d := max(x.DurationMS, 0)
	e := Entry{Pageref: ref, StartedDateTime: stamp(x.Started), Time: d, Comment: x.Note,
		Timings: Timings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: d, Receive: 0, SSL: -1}}
	version := ""
	if tm := x.Timing; tm != nil {
		version = HTTPVersion(tm.Protocol)
		if ts, ok := tm.timings(); ok {
			e.Timings = ts
			e.Time = ts.total()
			if tm.Sure {
				e.StartedDateTime = stamp(tm.Started()) // on the page's timeline, as its phases are
			} else {
				e.Comment = join(e.Comment, "timings from the Resource Timing entry of this URL nearest in start time, "+
					"among others as near: startedDateTime is the capture's")
			}
		} else if tm.ResponseEnd > tm.StartTime { // the phases hidden, the whole still shown
			e.Time = round(tm.ResponseEnd - tm.StartTime)
			e.Timings.Wait = e.Time
		}
	}
	switch {
	case x.Timing == nil && isRedirect(x):
		e.Comment = join(e.Comment, "a redirect: the browser's one Resource Timing entry of the fetch (named by this URL) "+
			"has the phases and httpVersion of the final response, so the request this led to has it; timings the total only")
	case x.Timing == nil:
		e.Comment = join(e.Comment, "no Resource Timing entry in the tab at export: httpVersion unknown, timings the total only")
	case e.Timings.Blocked == -1:
		e.Comment = join(e.Comment, "the browser exposed no phases (cross-origin without Timing-Allow-Origin, or no request made): timings the total only")
	}
	if version == "" && x.Timing != nil {
		e.Comment = join(e.Comment, "httpVersion unknown: the browser gave no nextHopProtocol")
	}
	reqCookies, why := requestCookies(x.RequestHeaders)
	e.Request = Request{Method: x.Method, URL: x.URL, HTTPVersion: version, Cookies: reqCookies, Comment: why,
		Headers: headers(x.RequestHeaders), QueryString: query(x.URL), HeadersSize: -1, BodySize: size(x.RequestBody)}
	if x.RequestBody.Text != "" {
		e.Request.PostData = &PostData{MimeType: header(x.RequestHeaders, "content-type"), Params: []NameValue{},
			Text: x.RequestBody.Text, Comment: note(x.RequestBody)}
	}
	mime := x.MimeType
	if mime == "" {
		mime = header(x.ResponseHeaders, "content-type")
	}
	respCookies, why := responseCookies(x.ResponseHeaders)
	r := Response{Status: x.Status, StatusText: http.StatusText(x.Status), HTTPVersion: version, Cookies: respCookies,
		Headers: headers(x.ResponseHeaders), RedirectURL: header(x.ResponseHeaders, "location"), HeadersSize: -1,
		BodySize: size(x.ResponseBody), Comment: join(x.Error, why)}
	r.Content = Content{Size: max(x.ResponseBody.Size, int64(len(x.ResponseBody.Text))), MimeType: mime,
		Text: x.ResponseBody.Text, Comment: note(x.ResponseBody), NotCaptured: x.ResponseBody.Text == "" && !x.ResponseBody.None}
	if x.Status == 0 {
		r.HTTPVersion = ""
	}
	e.Response = r
	return e
}

// HTTPVersion is the HAR httpVersion of a nextHopProtocol ALPN id: "h2"
// is "HTTP/2", "h3" (and its drafts) "HTTP/3", "http/1.1" "HTTP/1.1";
// "" when the protocol is not known.
func HTTPVersion(protocol string) string {
	p := strings.ToLower(protocol)
	switch {
	case p == "h2" || p == "h2c":
		return "HTTP/2"
	case p == "h3" || strings.HasPrefix(p, "h3-"):
		return "HTTP/3"
	case strings.HasPrefix(p, "http/"):
		return "HTTP/" + p[len("http/"):]
	}
	return ""
}

// timings splits t into HAR phases: blocked from the fetch's start to the
// request's, less the DNS lookup and connection inside it; wait from the
// request to the first byte; receive to the last. The sum is the fetch's
// whole duration. ok is false when the browser exposed no phases.
func (t *Timing) timings() (Timings, bool) {
	if t.RequestStart <= 0 || t.ResponseStart < t.RequestStart || t.ResponseEnd < t.ResponseStart || t.RequestStart < t.StartTime {
		return Timings{}, false
	}
	span := func(from, to float64) float64 {
		if from <= 0 || to <= from {
			return -1
		}
		return round(to - from)
	}
	ts := Timings{DNS: span(t.DomainLookupStart, t.DomainLookupEnd), Connect: span(t.ConnectStart, t.ConnectEnd), SSL: -1, Send: 0,
		Wait: round(t.ResponseStart - t.RequestStart), Receive: round(t.ResponseEnd - t.ResponseStart)}
	if ts.Connect > 0 {
		ts.SSL = span(t.SecureStart, t.ConnectEnd)
	}
	ts.Blocked = round(t.RequestStart - t.StartTime - max(ts.DNS, 0) - max(ts.Connect, 0))
	if ts.Blocked < 0 { // phases out of order: fold the rest into blocked no more
		ts.Blocked = 0
	}
	return ts, true
}

// total is an entry's time: the sum of its phases but ssl (counted in
// connect), leaving out the -1s.
func (t Timings) total() float64 {
	sum := t.Send + t.Wait + t.Receive
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect} {
		if v > 0 {
			sum += v
		}
	}
	return round(sum)
}

// round keeps a microsecond, the finest a timing has.
func round(ms float64) float64 { return math.Round(ms*1000) / 1000 }

// join joins two comments with "; ", either may be empty.
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// requestCookies are the cookies of a Cookie header ("a=1; b=2"). A
// redacted header gives none, and why says so: its names and values are
// not in the capture, so none is written.
func requestCookies(h map[string]string) (cookies []Cookie, why string) {
	cookies = []Cookie{}
	v, ok := lookup(h, "cookie")
	if !ok {
		return cookies, ""
	}
	if v == capture.Redacted {
		return cookies, "the Cookie header is redacted: its cookies are not listed"
	}
	for _, kv := range strings.Split(v, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if name != "" {
			cookies = append(cookies, Cookie{Name: name, Value: value})
		}
	}
	return cookies, ""
}

// responseCookies are the cookies of the Set-Cookie header, one per line
// (a capture joins repeated headers with newlines), with the attributes
// HAR has. A redacted header gives none, and why says so.
func responseCookies(h map[string]string) (cookies []Cookie, why string) {
	cookies = []Cookie{}
	v, ok := lookup(h, "set-cookie")
	if !ok {
		return cookies, ""
	}
	if v == capture.Redacted {
		return cookies, "the Set-Cookie header is redacted: its cookies are not listed"
	}
	for _, line := range strings.Split(v, "\n") {
		parts := strings.Split(line, ";")
		name, value, _ := strings.Cut(strings.TrimSpace(parts[0]), "=")
		if name == "" {
			continue
		}
		c := Cookie{Name: name, Value: value}
		for _, attr := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(attr), "=")
			switch strings.ToLower(k) {
			case "path":
				c.Path = v
			case "domain":
				c.Domain = v
			case "expires":
				if t, err := http.ParseTime(v); err == nil {
					c.Expires = t.UTC().Format(time.RFC3339)
				}
			case "httponly":
				c.HTTPOnly = true
			case "secure":
				c.Secure = true
			}
		}
		cookies = append(cookies, c)
	}
	return cookies, ""
}

// note is a body's content comment: where its text came from, or why
// there is none.
func note(b Body) string {
	if b.Text == "" {
		return b.Why
	}
	s := b.Source
	if b.Truncated {
		s += "; cut at the body cap"
	}
	return s
}

// size is a body's bodySize: its full size, -1 when unknown.
func size(b Body) int64 {
	switch {
	case b.None:
		return 0
	case b.Size > 0:
		return b.Size
	case b.Text != "":
		return int64(len(b.Text))
	}
	return -1
}

// headers lists h sorted by name.
func headers(h map[string]string) []NameValue {
	out := make([]NameValue, 0, len(h))
	for k, v := range h {
		out = append(out, NameValue{Name: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// header returns h's value of name, in any case.
func header(h map[string]string, name string) string {
	v, _ := lookup(h, name)
	return v
}

// lookup returns h's value of name, in any case, and whether h has it.
func lookup(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// query lists the query parameters of u, in their order.
func query(u string) []NameValue {
	out := []NameValue{}
	p, err := url.Parse(u)
	if err != nil || p.RawQuery == "" {
		return out
	}
	for _, kv := range strings.Split(p.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out = append(out, NameValue{Name: k, Value: v})
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// MatchWindow is how far apart an exchange's captured start and a Resource
// Timing entry's start may be and still be one request: the capture stamps
// a request when the browser reports it (after the page began the fetch),
// and a busy machine lets the two drift by some hundred ms.
const MatchWindow = time.Second

// Match sets the Timing of each exchange in xs to the Resource Timing
// entry of ts that is its request, when one surely or most likely is; ts
// are the entries of one document (the tab's top document at export).
//   - Only requests of that document take its entries: none that started
//     before its timeOrigin (an earlier load of the tab), nor one of
//     another page (an iframe) when ts hold the document's navigation
//     entry.
//   - Resource Timing measures a fetch as one entry named by its first URL,
//     redirects included, with the phases and nextHopProtocol of the final
//     response. So a redirect (a 3xx with a Location the capture followed)
//     takes none: the request it led to takes the entry, matched by the
//     first hop's URL and start, its phases counted from fetchStart (after
//     the redirects).
//   - Of all (request, entry) pairs of one URL within MatchWindow, the
//     closest in start time pair first, each entry and request once, so a
//     URL polled or fetched again pairs each with its own.
//
// A match is sure when the request and the entry had no other candidate:
// only then (Timing.Sure) does Build take the entry's start as the HAR
// entry's startedDateTime; else it keeps the capture's.
func Match(xs []Exchange, ts []Timing) {
	pairs, first := candidates(xs, ts)
	perX, perT := map[int]int{}, map[int]int{}
	for _, p := range pairs {
		perX[p.x]++
		perT[p.t]++
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].gap < pairs[b].gap })
	usedX, usedT := map[int]bool{}, map[int]bool{}
	for _, p := range pairs {
		if usedX[p.x] || usedT[p.t] {
			continue
		}
		usedX[p.x], usedT[p.t] = true, true
		t := ts[p.t]
		t.Sure = perX[p.x] == 1 && perT[p.t] == 1
		if first[p.x] != p.x { // the final request's phases start after the redirects
			t.Sure = t.Sure && t.FetchStart > t.StartTime
			t.StartTime = max(t.StartTime, t.FetchStart)
		}
		xs[p.x].Timing = &t
	}
}

// pair is a request (xs[x]) and a Resource Timing entry (ts[t]) that may
// be one fetch, gap apart in start time.
type pair struct {
	x, t int
	gap  time.Duration
}

// candidates returns the pairs Match chooses from, and the first hop of
// each request's redirect chain (itself when it was not redirected to).
func candidates(xs []Exchange, ts []Timing) ([]pair, []int) {
	doc := ""
	byURL := map[string][]int{}
	for j, t := range ts {
		byURL[t.URL] = append(byURL[t.URL], j)
		if t.StartTime == 0 { // only a navigation entry starts at the timeline's 0
			doc = stripFragment(t.URL)
		}
	}
	next := redirects(xs)
	first := make([]int, len(xs))
	for i := range xs {
		first[i] = i
	}
	for i := range xs {
		for j, k := next[i], 0; j >= 0 && k < len(xs); j, k = next[j], k+1 {
			first[j] = first[i]
		}
	}
	var pairs []pair
	for i, x := range xs {
		if isRedirect(x) {
			continue // its chain's final request takes the entry
		}
		if doc != "" && x.PageURL != "" && stripFragment(x.PageURL) != doc && stripFragment(x.URL) != doc {
			continue // another document's request
		}
		head := xs[first[i]]
		js := byURL[head.URL]
		if first[i] != i && stripFragment(x.URL) == doc {
			js = byURL[x.URL] // a navigation entry is named by the document's final URL
		}
		for _, j := range js {
			origin := time.UnixMicro(int64(ts[j].Origin * 1000))
			if head.Started.Before(origin.Add(-originSlack)) {
				continue // started before this document did
			}
			if d := ts[j].Started().Sub(head.Started).Abs(); d <= MatchWindow {
				pairs = append(pairs, pair{i, j, d})
			}
		}
	}
	return pairs, first
}

// originSlack is how much earlier than its document's timeOrigin the
// capture may stamp one of its requests (the two clocks' rounding).
const originSlack = 50 * time.Millisecond

// isRedirect says whether x was answered with a redirect: a 3xx with a
// Location (a 304 Not Modified is none).
func isRedirect(x Exchange) bool {
	return x.Status >= 300 && x.Status < 400 && header(x.ResponseHeaders, "location") != ""
}

// redirects returns, for each exchange of xs, the index of the request its
// redirect led to (the next request of the Location's URL, started no
// earlier than it), or -1 when it is no redirect or none was captured.
func redirects(xs []Exchange) []int {
	next := make([]int, len(xs))
	taken := map[int]bool{}
	for i, x := range xs {
		next[i] = -1
		if !isRedirect(x) {
			continue
		}
		base, err := url.Parse(x.URL)
		if err != nil {
			continue
		}
		to, err := base.Parse(header(x.ResponseHeaders, "location"))
		if err != nil {
			continue
		}
		best := -1
		for j, y := range xs {
			if j != i && !taken[j] && y.URL == to.String() && !y.Started.Before(x.Started) &&
				(best < 0 || y.Started.Before(xs[best].Started)) {
				best = j
			}
		}
		if best >= 0 {
			next[i] = best
			taken[best] = true
		}
	}
	return next
}

func stripFragment(u string) string {
	s, _, _ := strings.Cut(u, "#")
	return s
}
