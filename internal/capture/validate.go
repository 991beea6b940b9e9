package capture

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// Ingest caps, in bytes. A longer field is cut (on a character boundary)
// and remembers its full length; bodies are cut at the configured body cap.
const (
	capURL         = 8 << 10
	capMessage     = 16 << 10
	capStack       = 16 << 10
	capSource      = 2 << 10
	capSelector    = 1 << 10
	capName        = 512
	capVisible     = 200 // contract: visible text capped at 200
	capValue       = 1 << 10
	capTitle       = 1 << 10
	capShort       = 256 // ids, error strings, mime types, roles
	capHeaderName  = 256
	capHeaderValue = 8 << 10
	maxHeaders     = 100
	maxMethod      = 32
	// maxTS rejects timestamps past the year 5000: ts is ms since the epoch.
	maxTS = 95_000_000_000_000
)

// Redacted replaces the value of a redacted header.
const Redacted = "[redacted]"

var (
	logLevels     = []string{"debug", "info", "log", "warn", "error"}
	errorTypes    = []string{"uncaught", "unhandled_rejection", "resource"}
	netSources    = []string{"page", "browser"}
	resourceTypes = []string{"fetch", "xhr", "document", "script", "stylesheet", "image", "font", "media", "websocket", "other"}
	actionTypes   = []string{"click", "dblclick", "input", "change", "submit", "keydown", "appeared", "agent_appeared"}
	actionKeys    = []string{"Enter", "Escape", "Tab"}
	modifierKeys  = []string{"Alt", "Control", "Meta", "Shift"}
	navTypes      = []string{"pushState", "replaceState", "popstate", "hashchange", "load"}
	vitalNames    = []string{"LCP", "CLS", "INP", "FCP", "TTFB", "longtask"}
	vitalUnits    = []string{"ms", "score"}
	tabTypes      = []string{"updated", "removed", "activated"}
	tabStatuses   = []string{"loading", "complete"}
	wsTypes       = []string{"connect", "open", "message", "close", "error"}
	wsDirections  = []string{"sent", "received"}
)

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

func clipReason(s string) string {
	if len(s) > 40 {
		return capText(s, 40).s + "…"
	}
	return s
}

// validate checks and caps ev. nowMS stands in for a missing ts.
func validate(ev *apitype.Event, cfg settings, nowMS int64) (validated, rejection) {
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
		return validated{}, oneOf("kind", ev.Kind, []string{"log", "error", "network", "action", "nav", "vital", "websocket", "tab"})
	}
	if k == KindWebSocket {
		i = KindNetwork.index() // network's switch is the WebSockets'
	}
	// A switched-off kind is not validated, but for a record that may say
	// whether its tab's page is lean (leanSignOf).
	if cfg.off[i] && (ev.FrameID != 0 || !(k == KindNav && ev.Type == "load" || k == KindNetwork && ev.Source == "page")) {
		return validated{}, switchedOff(k, cfg)
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
	e := &entry{kind: k, ts: ts, tab: ev.TabID, frame: ev.FrameID, pageURL: capText(ev.PageURL, capURL), rec: rec}
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
	if r := oneOf("level", ev.Level, logLevels); r != "" {
		return nil, r
	}
	return &logRec{level: ev.Level, message: capText(ev.Message, capMessage),
		stack: capText(ev.Stack, capStack), source: capText(ev.Source, capSource)}, ""
}

func validateError(ev *apitype.Event) (record, rejection) {
	if r := oneOf("type", ev.Type, errorTypes); r != "" {
		return nil, r
	}
	if ev.Line < 0 || ev.Column < 0 {
		return nil, reject("line and column must not be negative")
	}
	rec := &errorRec{typ: ev.Type, message: capText(ev.Message, capMessage), stack: capText(ev.Stack, capStack),
		source: capText(ev.Source, capSource), line: ev.Line, col: ev.Column}
	if ev.Type == "resource" {
		if ev.Element == "" || ev.ResourceURL == "" {
			return nil, reject("a resource error needs element and resource_url")
		}
		rec.element = capText(ev.Element, capShort).s
		rec.resourceURL = capText(ev.ResourceURL, capURL)
	}
	return rec, ""
}

func validateNetwork(ev *apitype.Event, cfg settings) (record, rejection) {
	if ev.RequestID == "" || len(ev.RequestID) > capShort {
		return nil, reject("request_id is required (at most %d bytes)", capShort)
	}
	if r := oneOf("source", ev.Source, netSources); r != "" {
		return nil, r
	}
	method := strings.ToUpper(ev.Method)
	if method == "" || len(method) > maxMethod || strings.ContainsFunc(method, func(c rune) bool { return c <= ' ' || c > '~' }) {
		return nil, reject("method must be an HTTP method such as GET")
	}
	if ev.URL == "" {
		return nil, reject("url is required")
	}
	status := 0
	if ev.Status.Set {
		n := ev.Status.Num
		if ev.Status.IsStr || n != math.Trunc(n) || n < 0 || n > 999 {
			return nil, reject("status must be an integer HTTP status, or 0 when there was no response")
		}
		status = int(n)
	}
	if r := oneOf("resource_type", ev.ResourceType, resourceTypes); r != "" {
		return nil, r
	}
	if ev.DurationMS < 0 || math.IsInf(ev.DurationMS, 0) {
		return nil, reject("duration_ms must not be negative")
	}
	if ev.RequestBodySize < 0 || ev.ResponseBodySize < 0 {
		return nil, reject("body sizes must not be negative")
	}
	rec := &netRec{
		requestID: ev.RequestID, source: ev.Source, method: method, url: capText(ev.URL, capURL),
		status: status, err: capText(ev.Error, capShort).s, resourceType: ev.ResourceType,
		durationMS: ev.DurationMS, mimeType: capText(ev.MimeType, capShort).s,
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

// capHeaders returns h sorted by name, at most maxHeaders of them, with
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
	if len(names) > maxHeaders {
		names = names[:maxHeaders]
	}
	out := make([]header, 0, len(names))
	for _, k := range names {
		v := h[k]
		if cfg.redact && cfg.secrets.Redact(k, v) {
			v = Redacted
		}
		out = append(out, header{name: capText(k, capHeaderName).s, value: capText(v, capHeaderValue).s})
	}
	return out
}

// locatorFields are the fields each kind of locator must have.
var locatorFields = map[string][]string{"testid": {"attr", "value"}, "role": {"role", "name"}, "label": {"name"}, "css": {"selector"}}

// checkLocator returns a capped copy of an action's locator, or why it is refused.
func checkLocator(l *apitype.Locator) (*apitype.Locator, rejection) {
	need, ok := locatorFields[l.By]
	if !ok {
		return nil, reject("a locator is by testid, role, label or css, not %q", clipReason(l.By))
	}
	out := &apitype.Locator{By: l.By, Attr: capText(l.Attr, capShort).s, Value: capText(l.Value, capName).s,
		Role: capText(l.Role, capShort).s, Name: capText(l.Name, capName).s, Selector: capText(l.Selector, capSelector).s}
	have := map[string]string{"attr": out.Attr, "value": out.Value, "role": out.Role, "name": out.Name, "selector": out.Selector}
	for _, f := range need {
		if have[f] == "" {
			return nil, reject("a %s locator needs %s", l.By, f)
		}
	}
	return out, ""
}

func validateAction(ev *apitype.Event) (record, rejection) {
	if r := oneOf("type", ev.Type, actionTypes); r != "" {
		return nil, r
	}
	if ev.Selector == "" {
		return nil, reject("selector is required")
	}
	rec := &actionRec{typ: ev.Type, selector: capText(ev.Selector, capSelector), role: capText(ev.Role, capShort).s,
		name: capText(ev.Name, capName), text: capText(ev.Text, capVisible)}
	if ev.Value.Set {
		if !ev.Value.IsStr {
			return nil, reject("an action's value must be a string")
		}
		rec.value = capText(ev.Value.Str, capValue)
	}
	if ev.Locator != nil {
		l, r := checkLocator(ev.Locator)
		if r != "" {
			return nil, r
		}
		rec.locator = l
	}
	if ev.Type == "keydown" {
		if !slices.Contains(actionKeys, ev.Key) {
			return nil, reject("only Enter, Escape and Tab keydowns are recorded, not %q", clipReason(ev.Key))
		}
		rec.key = ev.Key
	}
	for _, m := range ev.Modifiers {
		if !slices.Contains(modifierKeys, m) {
			return nil, reject("modifier %q is not one of %s", clipReason(m), strings.Join(modifierKeys, ", "))
		}
		if !slices.Contains(rec.modifiers, m) {
			rec.modifiers = append(rec.modifiers, m)
		}
	}
	return rec, ""
}

func validateNav(ev *apitype.Event) (record, rejection) {
	if r := oneOf("type", ev.Type, navTypes); r != "" {
		return nil, r
	}
	if ev.To == "" {
		return nil, reject("to is required")
	}
	return &navRec{typ: ev.Type, from: capText(ev.From, capURL), to: capText(ev.To, capURL), lean: ev.Lean && ev.Type == "load"}, ""
}

func validateVital(ev *apitype.Event) (record, rejection) {
	if r := oneOf("name", ev.Name, vitalNames); r != "" {
		return nil, r
	}
	v := ev.Value
	if !v.Set || v.IsStr || math.IsNaN(v.Num) || math.IsInf(v.Num, 0) || v.Num < 0 {
		return nil, reject("a vital's value must be a non-negative number")
	}
	if r := oneOf("unit", ev.Unit, vitalUnits); r != "" {
		return nil, r
	}
	return &vitalRec{name: ev.Name, value: v.Num, unit: ev.Unit}, ""
}

func validateTab(ev *apitype.Event) (*tabUpdate, rejection) {
	if r := oneOf("type", ev.Type, tabTypes); r != "" {
		return nil, r
	}
	if ev.TabID < 0 {
		return nil, reject("a tab event needs the tab's tab_id")
	}
	u := &tabUpdate{typ: ev.Type, tab: ev.TabID, window: ev.WindowID, url: capText(ev.PageURL, capURL),
		title: capText(ev.Title, capTitle), active: ev.Active,
		owner: capOpt(ev.Owner, capShort), ownerName: capOpt(ev.OwnerName, capShort), group: capOpt(ev.Group, capName)}
	if ev.Status.Set {
		if !ev.Status.IsStr || !slices.Contains(tabStatuses, ev.Status.Str) {
			return nil, reject("a tab's status must be \"loading\" or \"complete\"")
		}
		u.status = ev.Status.Str
	}
	return u, ""
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
