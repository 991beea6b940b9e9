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
	// FromNetwork: fetched again at export because the cache had no copy;
	// the server may have answered differently than to the page.
	FromNetwork = "re-fetched at export"
)

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
	// Protocol is nextHopProtocol: "h2", "h3", "http/1.1", or "" when
	// the browser does not say (cross-origin without Timing-Allow-Origin).
	Protocol string `json:"protocol"`
	// DCL and Load are a navigation entry's domContentLoadedEventStart
	// and loadEventStart: 0 for a resource, or an event still to come.
	DCL  float64 `json:"dcl"`
	Load float64 `json:"load"`
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
			e.StartedDateTime = stamp(tm.Started()) // on the page's timeline, as its phases are
		} else if tm.ResponseEnd > tm.StartTime { // the phases hidden, the whole still shown
			e.Time = round(tm.ResponseEnd - tm.StartTime)
			e.Timings.Wait = e.Time
		}
	}
	switch {
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
		Text: x.ResponseBody.Text, Comment: note(x.ResponseBody)}
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
// a request when the browser reports it, the timeline when the fetch
// began, and a busy machine lets the two drift by some hundred ms.
const MatchWindow = 3 * time.Second

// Match sets the Timing of each exchange in xs to the entry of ts with its
// URL whose start is nearest its Started, within MatchWindow, each entry
// used once. Exchanges are matched oldest first, so a URL fetched again
// and again pairs in order.
func Match(xs []Exchange, ts []Timing) {
	byURL := map[string][]int{}
	for i, t := range ts {
		byURL[t.URL] = append(byURL[t.URL], i)
	}
	used := make([]bool, len(ts))
	for i := range xs {
		best, gap := -1, MatchWindow+1
		for _, j := range byURL[xs[i].URL] {
			d := ts[j].Started().Sub(xs[i].Started).Abs()
			if !used[j] && d <= MatchWindow && d < gap {
				best, gap = j, d
			}
		}
		if best >= 0 {
			used[best] = true
			xs[i].Timing = &ts[best]
		}
	}
}
