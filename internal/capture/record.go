package capture

import (
	"strings"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// text is a stored string, possibly clipped at ingest. Its zero value is the
// empty string.
type text struct {
	s     string
	chars int32 // length of s in chars when s is longer than lazyChars bytes, else 0 (count on demand)
	full  int32 // length in chars of the string as captured when s was clipped, else 0
}

// lazyChars is the length up to which a text's char count is left to be
// counted when needed: every clip keeps at least this many chars.
const lazyChars = 64

// count returns the length of t.s in chars.
func (t text) count() int {
	if t.chars > 0 {
		return int(t.chars)
	}
	return utf8.RuneCountInString(t.s)
}

// captured is the length in chars of the string as captured.
func (t text) captured() int {
	if t.full > 0 {
		return int(t.full)
	}
	return t.count()
}

// capText returns s cut to at most max bytes on a character boundary, with
// invalid UTF-8 replaced. A cut string is copied, so the caller's (possibly
// large) string is not retained.
func capText(s string, max int) text {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var t text
	if len(s) <= max {
		t.s = s
	} else {
		i := max
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		t.s, t.full = strings.Clone(s[:i]), int32(utf8.RuneCountInString(s))
	}
	if len(t.s) > lazyChars {
		t.chars = int32(utf8.RuneCountInString(t.s))
	}
	return t
}

// record is a kind's payload of an entry. Records are immutable once stored.
type record interface {
	// bytes estimates the record's heap size.
	bytes() int64
}

type logRec struct {
	level   string
	message text
	stack   text
	source  text
}

type errorRec struct {
	typ         string
	message     text
	stack       text
	source      text
	line, col   int64
	element     string
	resourceURL text
}

// netRec is a network request. A merged record combines a "page" and a
// "browser" event of the same request.
type netRec struct {
	requestID    string
	source       string // page, browser or page+browser
	method       string
	url          text
	status       int
	err          string
	resourceType string
	durationMS   float64
	mimeType     string
	reqHeaders   []header
	respHeaders  []header
	reqBody      text
	respBody     text
	reqSize      int64 // full size as reported (bodies may be cut)
	respSize     int64
	truncated    bool // a body was cut at the body cap
	// bodyPending: the page is still reading the bodies; an event with
	// bodyUpdate and the same request id brings them (ingest.go).
	bodyPending bool
	bodyUpdate  bool
	// lean: a page loaded while no agent was at work made it, so its bodies
	// were kept only if it failed (lean.go, bodiesDropped).
	lean bool
}

type header struct{ name, value string }

type actionRec struct {
	typ       string
	selector  text
	role      string
	name      text
	text      text
	value     text
	key       string
	modifiers []string
	locator   *apitype.Locator // capped copy; nil when the extension sent none
}

type navRec struct {
	typ      string
	from, to text
	lean     bool // a load of a page loaded while no agent was at work (lean.go)
}

type vitalRec struct {
	name  string
	value float64
	unit  string
}

// Estimated fixed costs: the entry header, the record struct and the ring
// slot; strings add their length.
const (
	entryOverhead  = 96
	recordOverhead = 160
	stringOverhead = 16
)

func (t text) size() int64 { return int64(len(t.s)) }

func (r *logRec) bytes() int64 {
	return recordOverhead + int64(len(r.level)) + r.message.size() + r.stack.size() + r.source.size()
}

func (r *errorRec) bytes() int64 {
	return recordOverhead + int64(len(r.typ)+len(r.element)) + r.message.size() + r.stack.size() +
		r.source.size() + r.resourceURL.size()
}

func (r *netRec) bytes() int64 {
	n := int64(recordOverhead + len(r.requestID) + len(r.source) + len(r.method) + len(r.err) +
		len(r.resourceType) + len(r.mimeType))
	n += r.url.size() + r.reqBody.size() + r.respBody.size()
	for _, hs := range [][]header{r.reqHeaders, r.respHeaders} {
		for _, h := range hs {
			n += int64(2*stringOverhead + len(h.name) + len(h.value))
		}
	}
	return n
}

func (r *actionRec) bytes() int64 {
	n := int64(recordOverhead+len(r.typ)+len(r.role)+len(r.key)) + r.selector.size() + r.name.size() +
		r.text.size() + r.value.size()
	for _, m := range r.modifiers {
		n += int64(stringOverhead + len(m))
	}
	if l := r.locator; l != nil {
		n += int64(6*stringOverhead + len(l.By) + len(l.Attr) + len(l.Value) + len(l.Role) + len(l.Name) + len(l.Selector))
	}
	return n
}

func (r *navRec) bytes() int64 {
	return recordOverhead + int64(len(r.typ)) + r.from.size() + r.to.size()
}

func (r *vitalRec) bytes() int64 { return recordOverhead + int64(len(r.name)+len(r.unit)) }

// entrySize estimates the heap an entry holds.
func entrySize(e *entry) int64 { return entryOverhead + e.pageURL.size() + e.rec.bytes() }
