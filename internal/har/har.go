// Package har renders captured requests as an HTTP Archive (HAR 1.2), the
// format replay tools (Playwright's routeFromHAR, browsers' DevTools) load.
package har

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
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

// PageTimings are -1: the capture does not time page loads.
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

// NameValue is a header, query parameter or cookie.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Request is an entry's request.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
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
	Cookies     []NameValue `json:"cookies"`
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

// Timings split an entry's time. The capture knows only the total, so it
// is all wait; the phases it cannot tell are -1.
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
	return h
}

func entry(ref string, x Exchange) Entry {
	d := max(x.DurationMS, 0)
	e := Entry{Pageref: ref, StartedDateTime: stamp(x.Started), Time: d, Comment: x.Note,
		Timings: Timings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: d, Receive: 0, SSL: -1}}
	e.Request = Request{Method: x.Method, URL: x.URL, HTTPVersion: "HTTP/1.1", Cookies: []NameValue{},
		Headers: headers(x.RequestHeaders), QueryString: query(x.URL), HeadersSize: -1, BodySize: size(x.RequestBody)}
	if x.RequestBody.Text != "" {
		e.Request.PostData = &PostData{MimeType: header(x.RequestHeaders, "content-type"), Params: []NameValue{},
			Text: x.RequestBody.Text, Comment: note(x.RequestBody)}
	}
	mime := x.MimeType
	if mime == "" {
		mime = header(x.ResponseHeaders, "content-type")
	}
	r := Response{Status: x.Status, StatusText: http.StatusText(x.Status), HTTPVersion: "HTTP/1.1", Cookies: []NameValue{},
		Headers: headers(x.ResponseHeaders), RedirectURL: header(x.ResponseHeaders, "location"), HeadersSize: -1,
		BodySize: size(x.ResponseBody), Comment: x.Error}
	r.Content = Content{Size: max(x.ResponseBody.Size, int64(len(x.ResponseBody.Text))), MimeType: mime,
		Text: x.ResponseBody.Text, Comment: note(x.ResponseBody)}
	if x.Status == 0 {
		r.HTTPVersion = ""
	}
	e.Response = r
	return e
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
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
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
