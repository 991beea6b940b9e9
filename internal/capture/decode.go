package capture

import (
	"strconv"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// fastDecode is the fast path of POST /events: encoding/json spends most of
// an ingest in reflection and in scanning the body twice, and the extension
// sends one fixed shape. It decodes a batch whose keys are exactly the
// contract's and whose values are plain (strings without invalid UTF-8 or
// surrogate escapes, numbers of the fields' types), appending the events to
// *evs (b.Events is *evs), and returns ok false on anything else, leaving the
// caller to decode with encoding/json (which also explains what is wrong).
// When ok, the result is what encoding/json would decode (FuzzFastDecode
// checks it).
func fastDecode(body []byte, evs *[]apitype.Event) (b apitype.EventBatch, ok bool) {
	p := parser{b: body}
	if !p.byte('{') {
		return b, false
	}
	seenEvents, seenDropped, seenByTab, seenID := false, false, false, false
	for first := true; ; first = false {
		if p.byte('}') {
			break
		}
		if !first && !p.byte(',') {
			return b, false
		}
		key, ok := p.key()
		if !ok || !p.byte(':') {
			return b, false
		}
		switch {
		case key == "events" && !seenEvents:
			seenEvents = true
			if !p.events(evs) {
				return b, false
			}
		case key == "dropped" && !seenDropped:
			seenDropped = true
			if b.Dropped, ok = p.counts(); !ok {
				return b, false
			}
		case key == "dropped_by_tab" && !seenByTab:
			seenByTab = true
			if b.DroppedByTab, ok = p.tabCounts(); !ok {
				return b, false
			}
		case key == "batch_id" && !seenID:
			seenID = true
			if !p.strInto(&b.BatchID) {
				return b, false
			}
		default:
			return b, false
		}
	}
	p.ws()
	b.Events = *evs
	return b, seenEvents && p.i == len(p.b)
}

// parser reads JSON from b at i.
type parser struct {
	b          []byte
	i          int
	lastPage   string // the last page_url read, shared by the events that repeat it
	lastSource string // the same for source
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// byte consumes c, after white space, if it is next.
func (p *parser) byte(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// null consumes a null literal if it is next.
func (p *parser) null() bool {
	p.ws()
	if len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// keys are the contract's keys (contractKeys, generated from
// apitype.Event): the batch's, the events' and their locators'.
var keys = map[string]string{}

// httpMethods are the methods the decoder shares instead of allocating.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

func init() {
	for _, k := range contractKeys {
		keys[k] = k
	}
	for _, v := range apitype.EventKinds() {
		enums[v] = v
	}
	for _, v := range httpMethods {
		enums[v] = v
	}
	for _, s := range apitype.EventSpecs {
		for _, f := range s.Fields {
			for _, v := range f.Enum {
				enums[v] = v
			}
		}
	}
}

// enums are the contract's enumerated values, shared instead of allocated.
var enums = map[string]string{}

// shared reads a string into *v like strInto, without allocating when it is
// one of enums or equal to *last (when last is not nil); *last is then the
// string read.
func (p *parser) shared(v *string, last *string) bool {
	if p.null() {
		return true
	}
	if p.i < len(p.b) && p.b[p.i] == '"' {
		end := p.i + 1
		for end < len(p.b) && p.b[end] >= 0x20 && p.b[end] < utf8.RuneSelf && p.b[end] != '"' && p.b[end] != '\\' {
			end++
		}
		if end < len(p.b) && p.b[end] == '"' {
			raw := p.b[p.i+1 : end]
			if s, ok := enums[string(raw)]; ok {
				*v, p.i = s, end+1
				return true
			}
			if last != nil && *last == string(raw) {
				*v, p.i = *last, end+1
				return true
			}
		}
	}
	s, ok := p.str()
	*v = s
	if last != nil {
		*last = s
	}
	return ok
}

// key reads an object key that is one of keys, spelled without escapes,
// without allocating.
func (p *parser) key() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) && p.b[p.i] != '"' && p.b[p.i] != '\\' {
		p.i++
	}
	if p.i == len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	k, ok := keys[string(p.b[start:p.i])]
	p.i++
	return k, ok
}

// str reads a string.
func (p *parser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			p.i += n
		}
	}
	return "", false
}

// escaped reads the rest of a string that has escapes, from start.
func (p *parser) escaped(start int) (string, bool) {
	out := append(make([]byte, 0, p.i-start+32), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return "", false
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				if p.i+4 > len(p.b) {
					return "", false
				}
				v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
				if err != nil || (v >= 0xD800 && v <= 0xDFFF) {
					return "", false // surrogates: left to encoding/json
				}
				out = utf8.AppendRune(out, rune(v))
				p.i += 4
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out = append(out, p.b[p.i:p.i+n]...)
			p.i += n
		}
	}
	return "", false
}

// number reads a JSON number's literal.
func (p *parser) number() ([]byte, bool) {
	p.ws()
	start := p.i
	digits := func() bool {
		s := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i > s
	}
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if !digits() {
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !digits() {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !digits() {
			return nil, false
		}
	}
	return p.b[start:p.i], true
}

// int reads an integer into *v; null leaves it.
func (p *parser) int(v *int64) bool {
	if p.null() {
		return true
	}
	lit, ok := p.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(string(lit), 10, 64)
	*v = n
	return err == nil
}

// float reads a number into *v; null leaves it.
func (p *parser) float(v *float64) bool {
	if p.null() {
		return true
	}
	lit, ok := p.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseFloat(string(lit), 64)
	*v = n
	return err == nil
}

// strInto reads a string into *v; null leaves it.
func (p *parser) strInto(v *string) bool {
	if p.null() {
		return true
	}
	s, ok := p.str()
	*v = s
	return ok
}

// boolean reads true or false; null leaves *v.
func (p *parser) boolean(v *bool) bool {
	if p.null() {
		return true
	}
	p.ws()
	switch {
	case len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "true":
		*v = true
		p.i += 4
	case len(p.b)-p.i >= 5 && string(p.b[p.i:p.i+5]) == "false":
		*v = false
		p.i += 5
	default:
		return false
	}
	return true
}

// scalar reads a number, a string or null, as Scalar.UnmarshalJSON does.
func (p *parser) scalar(v *apitype.Scalar) bool {
	*v = apitype.Scalar{}
	if p.null() {
		return true
	}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '"' {
		s, ok := p.str()
		*v = apitype.Str(s)
		return ok
	}
	lit, ok := p.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseFloat(string(lit), 64)
	*v = apitype.Num(n)
	return err == nil
}

// headers reads an object of strings into *m (kept and added to when it is
// not nil, as encoding/json does); null sets it to nil.
func (p *parser) headers(m *map[string]string) bool {
	if p.null() {
		*m = nil
		return true
	}
	if !p.byte('{') {
		return false
	}
	if *m == nil {
		*m = map[string]string{}
	}
	for first := true; ; first = false {
		if p.byte('}') {
			return true
		}
		if !first && !p.byte(',') {
			return false
		}
		k, ok := p.str()
		if !ok || !p.byte(':') {
			return false
		}
		var v string
		if !p.strInto(&v) {
			return false
		}
		(*m)[k] = v
	}
}

// locator reads an object of a locator's string fields into **v,
// allocating it when nil as encoding/json does; null sets *v to nil. Any
// other key is left to encoding/json.
func (p *parser) locator(v **apitype.Locator) bool {
	if p.null() {
		*v = nil
		return true
	}
	if !p.byte('{') {
		return false
	}
	if *v == nil {
		*v = &apitype.Locator{}
	}
	l := *v
	for first := true; ; first = false {
		if p.byte('}') {
			return true
		}
		if !first && !p.byte(',') {
			return false
		}
		k, ok := p.key()
		if !ok || !p.byte(':') {
			return false
		}
		var f *string
		switch k {
		case "by":
			f = &l.By
		case "attr":
			f = &l.Attr
		case "value":
			f = &l.Value
		case "role":
			f = &l.Role
		case "name":
			f = &l.Name
		case "selector":
			f = &l.Selector
		default:
			return false
		}
		if !p.strInto(f) {
			return false
		}
	}
}

// strings reads an array of strings into *v; null sets it to nil.
func (p *parser) strings(v *[]string) bool {
	if p.null() {
		*v = nil
		return true
	}
	if !p.byte('[') {
		return false
	}
	*v = []string{}
	for first := true; ; first = false {
		if p.byte(']') {
			return true
		}
		if !first && !p.byte(',') {
			return false
		}
		var s string
		if !p.strInto(&s) {
			return false
		}
		*v = append(*v, s)
	}
}

// counts reads the dropped counts; null gives nil.
func (p *parser) counts() (map[string]int64, bool) {
	if p.null() {
		return nil, true
	}
	if !p.byte('{') {
		return nil, false
	}
	m := map[string]int64{}
	for first := true; ; first = false {
		if p.byte('}') {
			return m, true
		}
		if !first && !p.byte(',') {
			return nil, false
		}
		k, ok := p.str()
		if !ok || !p.byte(':') {
			return nil, false
		}
		var n int64
		if !p.int(&n) {
			return nil, false
		}
		m[k] = n
	}
}

// tabCounts reads the dropped counts per tab: keys are tab ids, parsed as
// encoding/json parses an int64 map key; null gives nil.
func (p *parser) tabCounts() (map[int64]map[string]int64, bool) {
	if p.null() {
		return nil, true
	}
	if !p.byte('{') {
		return nil, false
	}
	m := map[int64]map[string]int64{}
	for first := true; ; first = false {
		if p.byte('}') {
			return m, true
		}
		if !first && !p.byte(',') {
			return nil, false
		}
		k, ok := p.str()
		if !ok || !p.byte(':') {
			return nil, false
		}
		tab, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, false
		}
		c, ok := p.counts()
		if !ok {
			return nil, false
		}
		m[tab] = c
	}
}

// events reads the events array, appending to *evs.
func (p *parser) events(evs *[]apitype.Event) bool {
	if !p.byte('[') {
		return false
	}
	for first := true; ; first = false {
		if p.byte(']') {
			return true
		}
		if !first && !p.byte(',') {
			return false
		}
		if len(*evs) == apitype.MaxEventsPerBatch+1 {
			return false // encoding/json counts them, and the batch is refused
		}
		*evs = append(*evs, apitype.Event{})
		if !p.event(&(*evs)[len(*evs)-1]) {
			return false
		}
	}
}

// event reads one event object.
func (p *parser) event(e *apitype.Event) bool {
	if !p.byte('{') {
		return false
	}
	for first := true; ; first = false {
		if p.byte('}') {
			return true
		}
		if !first && !p.byte(',') {
			return false
		}
		key, ok := p.key()
		if !ok || !p.byte(':') {
			return false
		}
		if !p.field(e, key) {
			return false
		}
	}
}

// optBool reads a boolean into a new *v; null sets *v to nil.
func (p *parser) optBool(v **bool) bool {
	if p.null() {
		*v = nil
		return true
	}
	var b bool
	if !p.boolean(&b) {
		return false
	}
	*v = &b
	return true
}

// optStr reads a string into a new *v; null sets *v to nil.
func (p *parser) optStr(v **string) bool {
	if p.null() {
		*v = nil
		return true
	}
	s, ok := p.str()
	*v = &s
	return ok
}
