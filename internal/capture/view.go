package capture

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// Views are entries rendered for agents: compact typed structs, empty fields
// omitted, long fields clipped with their full length stated in the text
// ("…[clipped: N chars in full]"). In a list a view's page_url is given only
// when it differs from the previous entry's.

// View is one rendered entry: *LogView, *ErrorView, *NetworkView,
// *ActionView, *NavView, *VitalView or *WebSocketView.
type View interface {
	Kind() Kind   // the kind of entry it renders
	Header() Head // the part every view shares
}

// Head is the part every view shares.
type Head struct {
	ID      uint64 `json:"id"` // the entry's sequence number, usable as a cursor
	TS      int64  `json:"ts"` // ms since the epoch
	TabID   int64  `json:"tab_id"`
	FrameID int64  `json:"frame_id,omitempty"`
	PageURL string `json:"page_url,omitempty"`
}

// LogView is a console message.
type LogView struct {
	Head
	Level   string `json:"level"`
	Message string `json:"message"`
	Source  string `json:"source,omitempty"`
	Stack   string `json:"stack,omitempty"`
}

// ErrorView is an uncaught error, unhandled rejection or failed resource
// load.
type ErrorView struct {
	Head
	Type        string `json:"type"`
	Message     string `json:"message"`
	Source      string `json:"source,omitempty"`
	Line        int64  `json:"line,omitempty"`
	Column      int64  `json:"column,omitempty"`
	Element     string `json:"element,omitempty"`
	ResourceURL string `json:"resource_url,omitempty"`
	Stack       string `json:"stack,omitempty"`
}

// NetworkView is a request. The bodies are not inline: their lengths say
// one was captured, and Store.Body returns it.
type NetworkView struct {
	Head
	Method       string  `json:"method"`
	URL          string  `json:"url"`
	Status       int     `json:"status"` // 0 when there was no response
	Error        string  `json:"error,omitempty"`
	Type         string  `json:"type"`   // resource type
	Source       string  `json:"source"` // page, browser or page+browser
	DurationMS   float64 `json:"duration_ms,omitempty"`
	MimeType     string  `json:"mime_type,omitempty"`
	RequestBody  int     `json:"request_body_chars,omitempty"`  // chars captured
	ResponseBody int     `json:"response_body_chars,omitempty"` // chars captured
	RequestSize  int64   `json:"request_body_size,omitempty"`   // bytes the page sent
	ResponseSize int64   `json:"response_body_size,omitempty"`  // bytes the server sent
	// BodyTruncated says a body was cut at the body cap when captured.
	BodyTruncated bool `json:"body_truncated,omitempty"`
	// Body is "pending" while the page is still reading the bodies; in full
	// detail (Store.Entry) it says why a lean request's bodies were not kept.
	Body string `json:"body,omitempty"`
	// Lean says a page loaded while no agent was at work made the request,
	// which did not fail, so its bodies were not kept (lean.go); a list
	// says it once, in Page.Lean.
	Lean bool `json:"-"`
	// Headers are given only by Store.Entry.
	RequestHeaders  map[string]string `json:"request_headers,omitempty"`
	ResponseHeaders map[string]string `json:"response_headers,omitempty"`
}

// ActionView is a user action.
type ActionView struct {
	Head
	Type      string   `json:"type"`
	Selector  string   `json:"selector"`
	Role      string   `json:"role,omitempty"`
	Name      string   `json:"name,omitempty"`
	Text      string   `json:"text,omitempty"`
	Value     string   `json:"value,omitempty"`
	Key       string   `json:"key,omitempty"`
	Modifiers []string `json:"modifiers,omitempty"`
	// Locator names the element as interact can find it again.
	Locator *apitype.Locator `json:"locator,omitempty"`
}

// NavView is a navigation.
type NavView struct {
	Head
	Type string `json:"type"`
	From string `json:"from,omitempty"`
	To   string `json:"to"`
}

// VitalView is a web vital or long task.
type VitalView struct {
	Head
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Header returns h; every view has it through its embedded Head.
func (h Head) Header() Head { return h }

func (*LogView) Kind() Kind     { return KindLog }
func (*ErrorView) Kind() Kind   { return KindError }
func (*NetworkView) Kind() Kind { return KindNetwork }
func (*ActionView) Kind() Kind  { return KindAction }
func (*NavView) Kind() Kind     { return KindNav }
func (*VitalView) Kind() Kind   { return KindVital }

// clipLevel is how much of each field a rendering keeps, in chars.
type clipLevel struct{ msg, stack, url, short, header int }

// levels go from the most detail (one entry, Store.Entry) to the least; a
// list starts at levels[1] and moves down until the page fits its budget.
var levels = []clipLevel{
	{msg: 8000, stack: 8000, url: 2000, short: 1000, header: 1000},
	{msg: 2000, stack: 1500, url: 400, short: 200, header: 300},
	{msg: 500, stack: 400, url: 200, short: 100, header: 120},
	{msg: 160, stack: 0, url: 100, short: 60, header: 60},
}

// clip returns t's text cut to n chars; a cut text, or one already cut at
// capture, ends with a note of its full length.
func clip(t text, n int) string {
	if t.full == 0 && (len(t.s) <= n || t.count() <= n) {
		return t.s
	}
	s := t.s
	if t.count() > n {
		i := 0
		for c := 0; c < n; c++ {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		s = s[:i]
	}
	return s + "…[clipped: " + strconv.Itoa(t.captured()) + " chars in full]"
}

func clipStr(s string, n int) string { return clip(text{s: s}, n) }

// render returns e's view at level lv; withURL says whether to give the
// page URL, headers whether to give a request's headers.
func render(e *entry, lv clipLevel, withURL, headers bool) View {
	h := Head{ID: e.seq, TS: e.ts, TabID: e.tab, FrameID: e.frame}
	if withURL {
		h.PageURL = clip(e.pageURL, lv.url)
	}
	switch r := e.rec.(type) {
	case *logRec:
		return &LogView{Head: h, Level: r.level, Message: clip(r.message, lv.msg), Source: clip(r.source, lv.url),
			Stack: clip(r.stack, lv.stack)}
	case *errorRec:
		return &ErrorView{Head: h, Type: r.typ, Message: clip(r.message, lv.msg), Source: clip(r.source, lv.url),
			Line: r.line, Column: r.col, Element: r.element, ResourceURL: clip(r.resourceURL, lv.url),
			Stack: clip(r.stack, lv.stack)}
	case *netRec:
		v := &NetworkView{Head: h, Method: r.method, URL: clip(r.url, lv.url), Status: r.status,
			Error: r.err, Type: r.resourceType, Source: r.source, DurationMS: math.Round(r.durationMS*10) / 10,
			MimeType: r.mimeType, RequestSize: r.reqSize, ResponseSize: r.respSize, BodyTruncated: r.truncated}
		v.RequestBody, v.ResponseBody = r.reqBody.count(), r.respBody.count()
		if r.bodyPending {
			v.Body = "pending"
		}
		v.Lean = r.bodiesDropped()
		if headers && v.Lean && r.reqBody.s == "" && r.respBody.s == "" {
			v.Body = leanBody
		}
		if headers {
			v.RequestHeaders = headerMap(r.reqHeaders, lv.header)
			v.ResponseHeaders = headerMap(r.respHeaders, lv.header)
		}
		return v
	case *actionRec:
		return &ActionView{Head: h, Type: r.typ, Selector: clip(r.selector, lv.short), Role: r.role,
			Name: clip(r.name, lv.short), Text: clip(r.text, lv.short), Value: clip(r.value, lv.short),
			Key: r.key, Modifiers: r.modifiers, Locator: r.locator}
	case *navRec:
		return &NavView{Head: h, Type: r.typ, From: clip(r.from, lv.url), To: clip(r.to, lv.url)}
	case *vitalRec:
		return &VitalView{Head: h, Name: r.name, Value: r.value, Unit: r.unit}
	case *wsRec:
		return renderWS(h, r, lv)
	}
	return nil
}

func headerMap(hs []header, n int) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[clipStr(h.name, n)] = clipStr(h.value, n)
	}
	return m
}

// renderList renders es at level lv, giving each page URL only when it
// differs from the previous entry's.
func renderList(es []entry, lv clipLevel) []View {
	out := make([]View, len(es))
	for i := range es {
		withURL := i == 0 || es[i].pageURL.s != es[i-1].pageURL.s
		out[i] = render(&es[i], lv, withURL, false)
	}
	return out
}

// fits reports whether v's JSON, as the MCP layer writes it (no HTML
// escaping), takes at most budget bytes. The text it holds is a lower bound
// of that size, so a rendering far too large is refused without encoding it.
func fits(v any, budget int) bool {
	if textLen(v) > budget {
		return false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v) == nil && buf.Len() <= budget
}

// textLen is the length of the strings in v, a rendering fit handles.
func textLen(v any) int {
	n := 0
	switch v := v.(type) {
	case []View:
		for _, x := range v {
			n += textLen(x)
		}
	case []ErrorGroup:
		for _, g := range v {
			n += len(g.PageURL) + len(g.Message) + len(g.Source) + len(g.ResourceURL) + len(g.Stack)
		}
	case *LogView:
		n = len(v.PageURL) + len(v.Message) + len(v.Source) + len(v.Stack)
	case *ErrorView:
		n = len(v.PageURL) + len(v.Message) + len(v.Source) + len(v.ResourceURL) + len(v.Stack)
	case *NetworkView:
		n = len(v.PageURL) + len(v.URL)
		for _, hs := range []map[string]string{v.RequestHeaders, v.ResponseHeaders} {
			for k, x := range hs {
				n += len(k) + len(x)
			}
		}
	case *ActionView:
		n = len(v.PageURL) + len(v.Selector) + len(v.Name) + len(v.Text) + len(v.Value)
	case *NavView:
		n = len(v.PageURL) + len(v.From) + len(v.To)
	case *WebSocketView:
		n = len(v.PageURL) + len(v.URL) + len(v.Text) + len(v.Reason)
	}
	return n
}

// fit chooses how to render n items within budget bytes of JSON: at the
// first level from start on whose rendering of all n fits, else at the last
// level with as many items as fit (at least one), kept from the start of the
// list or, with keepEnd, from its end. render(lo, hi, lv) renders items
// [lo, hi). It returns the window and its rendering.
func fit[T any](n, start int, budget int, keepEnd bool, render func(lo, hi int, lv clipLevel) T) (lo, hi int, out T) {
	for _, lv := range levels[start:] {
		out = render(0, n, lv)
		if fits(out, budget) {
			return 0, n, out
		}
	}
	lv := levels[len(levels)-1]
	window := func(k int) (int, int) {
		if keepEnd {
			return n - k, n
		}
		return 0, k
	}
	// The largest k whose window fits; k = 1 is kept even if it does not.
	good, bad := 1, n
	for bad-good > 1 {
		mid := (good + bad) / 2
		lo, hi := window(mid)
		if fits(render(lo, hi, lv), budget) {
			good = mid
		} else {
			bad = mid
		}
	}
	lo, hi = window(good)
	return lo, hi, render(lo, hi, lv)
}
