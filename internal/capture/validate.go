package capture

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// The daemon's caps of each field, in bytes, are the capture event table's
// (apitype.EventSpecs, EventField.Keep), generated into fields_gen.go as
// keep<Kind><Field>. A longer field is cut (on a character boundary) and
// remembers its full length; bodies are cut at the configured body cap.
const (
	// maxMethod bounds a network event's method (and a filter's).
	maxMethod = keepNetworkMethod
	// maxTS rejects timestamps past the year 5000: ts is ms since the epoch.
	maxTS = 95_000_000_000_000
)

// Redacted replaces the value of a redacted header.
const Redacted = "[redacted]"

// The table's enums that the validator's own rules (those a field's type or
// another field decides) and the filters use.
var (
	logLevels   = enumOf("log", "level")
	tabStatuses = enumOf("tab", "status")
	eventKinds  = apitype.EventKinds()
)

// enumOf returns the values the table allows for a kind's field; it panics
// when the table has no such enum (at init: every test of the package fails).
func enumOf(kind, field string) []string {
	for _, s := range apitype.EventSpecs {
		if s.Kind != kind {
			continue
		}
		for _, f := range s.Fields {
			if f.Name == field && len(f.Enum) > 0 {
				return f.Enum
			}
		}
	}
	panic("capture: the event table has no enum " + kind + "." + field)
}

// switchOf is, by Kind.index, the index of the kind whose capture switch
// turns it on and off (apitype.EventSpec.SwitchedBy).
var switchOf = func() (out [numKinds]int) {
	for i, k := range Kinds {
		out[i] = i
		for _, s := range apitype.EventSpecs {
			if s.Kind == string(k) && s.SwitchedBy != "" {
				out[i] = Kind(s.SwitchedBy).index()
			}
		}
	}
	return out
}()

// fieldRule is a check of one field that the table declares for the
// events of a kind (or of one type of them, EventField.For): a required
// string field must not be empty and, for an enum, must be one of its
// values; each item of a mods field must be one of its values. Rules a
// field's Go type decides (a status that must be an integer, a size that
// must not be negative) are the kind's validator's.
type fieldRule struct {
	name    string
	enum    []string
	forType string                        // the rule holds in events of this type only, when not ""
	str     func(*apitype.Event) string   // a required string field
	list    func(*apitype.Event) []string // a mods field
}

// fieldRules are the table's rules by kind: by Kind.index, tab's last.
type fieldRules [numKinds + 1][]fieldRule

// ruleIndex is kind's index in fieldRules, or -1.
func ruleIndex(kind string) int {
	if kind == "tab" {
		return numKinds
	}
	return Kind(kind).index()
}

// tableRules are apitype.EventSpecs' rules.
var tableRules = mustRules(apitype.EventSpecs)

func mustRules(specs []apitype.EventSpec) fieldRules {
	r, err := compileRules(specs)
	if err != nil {
		panic(err)
	}
	return r
}

// compileRules turns a capture event table into the validator's rules.
func compileRules(specs []apitype.EventSpec) (fieldRules, error) {
	var out fieldRules
	if err := checkTable(specs); err != nil {
		return out, err
	}
	for _, s := range specs {
		i := ruleIndex(s.Kind)
		if i < 0 {
			return out, fmt.Errorf("the capture event table's kind %q is not one of capture.Kinds: add it there first", s.Kind)
		}
		var rules []fieldRule
		for _, f := range s.Fields {
			switch {
			case f.Type == apitype.FieldMods:
				rules = append(rules, fieldRule{name: f.Name, enum: f.Enum, list: eventLists[f.Name]})
			case (f.Need == apitype.Required || f.For != "") && eventStrings[f.Name] != nil:
				rules = append(rules, fieldRule{name: f.Name, enum: f.Enum, forType: f.For, str: eventStrings[f.Name]})
			}
		}
		out[i] = rules
	}
	return out, nil
}

// check applies the rules of the kind at index i to ev.
func (rs *fieldRules) check(ev *apitype.Event, i int) rejection {
	for _, r := range rs[i] {
		switch {
		case r.forType != "" && ev.Type != r.forType:
		case r.list != nil:
			for _, v := range r.list(ev) {
				if !slices.Contains(r.enum, v) {
					return reject("%s: %q is not one of %s", r.name, clipReason(v), strings.Join(r.enum, ", "))
				}
			}
		case r.enum != nil:
			if rj := oneOf(r.name, r.str(ev), r.enum); rj != "" {
				return rj
			}
		case r.str(ev) == "" && r.forType != "":
			return reject("%s is required when type is %s", r.name, r.forType)
		case r.str(ev) == "":
			return reject("%s is required", r.name)
		}
	}
	return ""
}

// tabUpdate is a validated "tab" event.
type tabUpdate struct {
	typ    string
	tab    int64
	window int64
	url    text
	title  text
	status string
	active *bool
	// owner, ownerName and group change the tab's when not nil ("" clears).
	owner, ownerName, group *string
	received                int64 // ms since the epoch
}

// validated is the outcome of validating one event: an entry to buffer, or
// a tab update. A rejected event may still carry a sign of its tab's page
// (its kind's capture is off), which the store learns without storing it.
type validated struct {
	e    *entry
	tab  *tabUpdate
	sign *leanSign
}

// rejection is why an event was refused; it becomes EventRejection.Reason.
type rejection string

func reject(format string, a ...any) rejection { return rejection(fmt.Sprintf(format, a...)) }

func oneOf(field, v string, allowed []string) rejection {
	if slices.Contains(allowed, v) {
		return ""
	}
	if v == "" {
		return reject("%s is required: one of %s", field, strings.Join(allowed, ", "))
	}
	return reject("%s %q is not one of %s", field, clipReason(v), strings.Join(allowed, ", "))
}

// orList writes "a, b or c".
func orList(s []string) string { return joinLast(s, " or ") }

func joinLast(s []string, last string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + last + s[len(s)-1]
}

func clipReason(s string) string {
	if len(s) > 40 {
		return capText(s, 40).s + "…"
	}
	return s
}

// validate checks and caps ev. nowMS stands in for a missing ts.
func validate(ev *apitype.Event, cfg settings, nowMS int64) (validated, rejection) {
	return validateBy(&tableRules, ev, cfg, nowMS)
}

// validateBy is validate with the table's rules given.
func validateBy(rules *fieldRules, ev *apitype.Event, cfg settings, nowMS int64) (validated, rejection) {
	ts := int64(math.Round(ev.TS))
	switch {
	case math.IsNaN(ev.TS) || ev.TS < 0 || ev.TS > maxTS:
		return validated{}, reject("ts must be milliseconds since the epoch")
	case ts == 0:
		ts = nowMS
	}
	if ev.TabID < -1 {
		return validated{}, reject("tab_id must be a tab id or -1")
	}
	if ev.FrameID < -1 {
		return validated{}, reject("frame_id must be a frame id (0 for the top frame)")
	}
	if ev.Kind == "tab" {
		if r := rules.check(ev, numKinds); r != "" {
			return validated{}, r
		}
		u, r := validateTab(ev)
		if r != "" {
			return validated{}, r
		}
		u.received = nowMS
		return validated{tab: u}, ""
	}
	k := Kind(ev.Kind)
	i := k.index()
	if i < 0 {
		return validated{}, oneOf("kind", ev.Kind, eventKinds)
	}
	i = switchOf[i] // network's switch is the WebSockets'

	// A switched-off kind is not validated, but for a record that may say
	// whether its tab's page is lean (leanSignOf).
	if cfg.off[i] && (ev.FrameID != 0 || !(k == KindNav && ev.Type == "load" || k == KindNetwork && ev.Source == "page")) {
		return validated{}, switchedOff(k, cfg)
	}
	if r := rules.check(ev, k.index()); r != "" {
		return validated{}, r
	}
	var rec record
	var r rejection
	switch k {
	case KindLog:
		rec, r = validateLog(ev)
	case KindError:
		rec, r = validateError(ev)
	case KindNetwork:
		rec, r = validateNetwork(ev, cfg)
	case KindAction:
		rec, r = validateAction(ev)
	case KindNav:
		rec, r = validateNav(ev)
	case KindVital:
		rec, r = validateVital(ev)
	case KindWebSocket:
		rec, r = validateWebSocket(ev, cfg)
	}
	if r != "" {
		return validated{}, r
	}
	e := &entry{kind: k, ts: ts, tab: ev.TabID, frame: ev.FrameID, pageURL: capText(ev.PageURL, keepPageURL), rec: rec}
	if cfg.off[i] { // not stored, but what it says of its page is learned (lean.go)
		v := validated{}
		if sign, ok := leanSignOf(e); ok {
			v.sign = &sign
		}
		return v, switchedOff(k, cfg)
	}
	e.size = entrySize(e)
	return validated{e: e}, ""
}

func switchedOff(k Kind, cfg settings) rejection {
	return reject("capture of %q is switched off (capture config version %d); the event was not stored", k, cfg.version)
}

func validateLog(ev *apitype.Event) (record, rejection) {
	return &logRec{level: ev.Level, message: capText(ev.Message, keepLogMessage),
		stack: capText(ev.Stack, keepLogStack), source: capText(ev.Source, keepLogSource)}, ""
}

func validateError(ev *apitype.Event) (record, rejection) {
	if ev.Line < 0 || ev.Column < 0 {
		return nil, reject("line and column must not be negative")
	}
	rec := &errorRec{typ: ev.Type, message: capText(ev.Message, keepErrorMessage), stack: capText(ev.Stack, keepErrorStack),
		source: capText(ev.Source, keepErrorSource), line: ev.Line, col: ev.Column}
	if ev.Type == "resource" { // which needs both (fieldRules)
		rec.element = capText(ev.Element, keepErrorElement).s
		rec.resourceURL = capText(ev.ResourceURL, keepErrorResourceURL)
	}
	return rec, ""
}

func validateNetwork(ev *apitype.Event, cfg settings) (record, rejection) {
	if len(ev.RequestID) > keepNetworkRequestID {
		return nil, reject("request_id is at most %d bytes", keepNetworkRequestID)
	}
	method := strings.ToUpper(ev.Method)
	if len(method) > maxMethod || strings.ContainsFunc(method, func(c rune) bool { return c <= ' ' || c > '~' }) {
		return nil, reject("method must be an HTTP method such as GET")
	}
	status := 0
	if ev.Status.Set {
		n := ev.Status.Num
		if ev.Status.IsStr || n != math.Trunc(n) || n < 0 || n > 999 {
			return nil, reject("status must be an integer HTTP status, or 0 when there was no response")
		}
		status = int(n)
	}
	if ev.DurationMS < 0 || math.IsInf(ev.DurationMS, 0) {
		return nil, reject("duration_ms must not be negative")
	}
	if ev.RequestBodySize < 0 || ev.ResponseBodySize < 0 {
		return nil, reject("body sizes must not be negative")
	}
	rec := &netRec{
		requestID: ev.RequestID, source: ev.Source, method: method, url: capText(ev.URL, keepNetworkURL),
		status: status, err: capText(ev.Error, keepNetworkError).s, resourceType: ev.ResourceType,
		durationMS: ev.DurationMS, mimeType: capText(ev.MimeType, keepNetworkMimeType).s,
		reqHeaders: capHeaders(ev.RequestHeaders, cfg), respHeaders: capHeaders(ev.ResponseHeaders, cfg),
		reqSize: ev.RequestBodySize, respSize: ev.ResponseBodySize, truncated: ev.BodyTruncated,
		bodyPending: ev.BodyPending && !ev.BodyUpdate, bodyUpdate: ev.BodyUpdate, lean: ev.Lean,
	}
	rec.reqBody, rec.reqSize = capBody(ev.RequestBody, ev.RequestBodySize, cfg.bodyCap, &rec.truncated)
	rec.respBody, rec.respSize = capBody(ev.ResponseBody, ev.ResponseBodySize, cfg.bodyCap, &rec.truncated)
	return rec, ""
}

// capBody cuts body at bodyCap and returns it with its full size in bytes.
func capBody(body string, size int64, bodyCap int, truncated *bool) (text, int64) {
	size = max(size, int64(len(body)))
	if len(body) > bodyCap {
		*truncated = true
	}
	t := capText(body, bodyCap)
	t.full = 0 // the full size is reported as a size, in bytes
	return t, size
}

// capHeaders returns h sorted by name, at most apitype.DaemonHeaders.Count of them, with
// names and values capped and, when redaction is on, the credential headers
// (Secrets) redacted.
func capHeaders(h map[string]string, cfg settings) []header {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > apitype.DaemonHeaders.Count {
		names = names[:apitype.DaemonHeaders.Count]
	}
	out := make([]header, 0, len(names))
	for _, k := range names {
		v := h[k]
		if cfg.redact && cfg.secrets.Redact(k, v) {
			v = Redacted
		}
		out = append(out, header{name: capText(k, apitype.DaemonHeaders.Name).s, value: capText(v, apitype.DaemonHeaders.Value).s})
	}
	return out
}

// checkLocator returns a capped copy of an action's locator, or why it is refused.
func checkLocator(l *apitype.Locator) (*apitype.Locator, rejection) {
	i := slices.IndexFunc(apitype.LocatorKinds, func(k apitype.LocatorKind) bool { return k.By == l.By })
	if i < 0 {
		bys := make([]string, len(apitype.LocatorKinds))
		for j, k := range apitype.LocatorKinds {
			bys[j] = k.By
		}
		return nil, reject("a locator is by %s, not %q", orList(bys), clipReason(l.By))
	}
	need := apitype.LocatorKinds[i].Fields
	out := &apitype.Locator{By: l.By, Attr: capText(l.Attr, keepLocatorAttr).s, Value: capText(l.Value, keepLocatorValue).s,
		Role: capText(l.Role, keepLocatorRole).s, Name: capText(l.Name, keepLocatorName).s, Selector: capText(l.Selector, keepLocatorSelector).s}
	have := map[string]string{"attr": out.Attr, "value": out.Value, "role": out.Role, "name": out.Name, "selector": out.Selector}
	for _, f := range need {
		if have[f] == "" {
			return nil, reject("a %s locator needs %s", l.By, f)
		}
	}
	return out, ""
}

func validateAction(ev *apitype.Event) (record, rejection) {
	rec := &actionRec{typ: ev.Type, selector: capText(ev.Selector, keepActionSelector), role: capText(ev.Role, keepActionRole).s,
		name: capText(ev.Name, keepActionName), text: capText(ev.Text, keepActionText)}
	if ev.Value.Set {
		if !ev.Value.IsStr {
			return nil, reject("an action's value must be a string")
		}
		rec.value = capText(ev.Value.Str, keepActionValue)
	}
	if ev.Locator != nil {
		l, r := checkLocator(ev.Locator)
		if r != "" {
			return nil, r
		}
		rec.locator = l
	}
	if ev.Type == "keydown" { // which needs one of the table's keys (fieldRules)
		rec.key = ev.Key
	}
	for _, m := range ev.Modifiers { // each one of the table's (fieldRules)
		if !slices.Contains(rec.modifiers, m) {
			rec.modifiers = append(rec.modifiers, m)
		}
	}
	return rec, ""
}

func validateNav(ev *apitype.Event) (record, rejection) {
	return &navRec{typ: ev.Type, from: capText(ev.From, keepNavFrom), to: capText(ev.To, keepNavTo), lean: ev.Lean && ev.Type == "load"}, ""
}

func validateVital(ev *apitype.Event) (record, rejection) {
	v := ev.Value
	if !v.Set || v.IsStr || math.IsNaN(v.Num) || math.IsInf(v.Num, 0) || v.Num < 0 {
		return nil, reject("a vital's value must be a non-negative number")
	}
	return &vitalRec{name: ev.Name, value: v.Num, unit: ev.Unit}, ""
}

func validateTab(ev *apitype.Event) (*tabUpdate, rejection) {
	if ev.TabID < 0 {
		return nil, reject("a tab event needs the tab's tab_id")
	}
	u := &tabUpdate{typ: ev.Type, tab: ev.TabID, window: ev.WindowID, url: capText(ev.PageURL, keepPageURL),
		title: capText(ev.Title, keepTabTitle), active: ev.Active,
		owner: capOpt(ev.Owner, keepTabOwner), ownerName: capOpt(ev.OwnerName, keepTabOwnerName), group: capOpt(ev.Group, keepTabGroup)}
	if ev.Status.Set {
		if !ev.Status.IsStr || !slices.Contains(tabStatuses, ev.Status.Str) {
			return nil, reject("a tab's status must be %s", orList(quoted(tabStatuses)))
		}
		u.status = ev.Status.Str
	}
	return u, ""
}

// quoted returns each of s in double quotes.
func quoted(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// capOpt caps an optional string; nil stays nil.
func capOpt(s *string, max int) *string {
	if s == nil {
		return nil
	}
	c := capText(*s, max).s
	return &c
}

// kindOf names the kind of an event for counting, or "" when unknown.
func kindOf(name string) Kind {
	k := Kind(name)
	if k.index() < 0 {
		return ""
	}
	return k
}
