package apitype

// The capture event table: the one declaration of what each kind of Event
// carries. The extension's check of a page's records
// (extension/capture/fields.js, used by events.js), the daemon's validator
// and its fast decoder (internal/capture) are generated from it or read it;
// TestEventFiles and TestEventSpecsMatchEvent fail on drift.

// FieldType is how a field of a capture event is checked.
type FieldType string

// The field types.
const (
	FieldStr     FieldType = "str"     // a string, cut at Clip characters (worker) and Keep bytes (daemon)
	FieldBody    FieldType = "body"    // a body, cut at the configured body cap
	FieldEnum    FieldType = "enum"    // one of Enum
	FieldInt     FieldType = "int"     // an integer
	FieldNum     FieldType = "num"     // a finite number
	FieldBool    FieldType = "bool"    // true or false
	FieldHeaders FieldType = "headers" // an object of header names and string values (HeaderLimits)
	FieldMods    FieldType = "mods"    // a list of modifier keys, each one of Enum
	FieldLocator FieldType = "locator" // a Locator (LocatorKinds, LocatorFields)
)

// Need says when an event must carry a field.
type Need uint8

// The needs.
const (
	// Optional fields may be absent.
	Optional Need = iota
	// Required fields must be there: the worker drops a record without
	// one, and the daemon refuses an event whose field is empty.
	Required
	// Present fields must be there for the worker; the daemon takes the
	// zero value (an empty message, status 0) for an absent one.
	Present
)

// EventField is one field of a kind of capture event.
type EventField struct {
	Name string // the JSON key, as Event's tag spells it
	Type FieldType
	Enum []string // the values of an enum, or of each of a mods field's items
	Clip int      // str: the worker cuts a longer string to Clip characters, the last one "…"
	Keep int      // str: the daemon cuts a longer string to Keep bytes (ids longer than Keep are refused)
	Need Need
	// Default is the value the worker gives an absent field.
	Default string
	// For is the type of event (Event.Type) in which the daemon needs the
	// field, as a Required one; in events of other types it is optional.
	For string
}

// EventSpec is one kind of capture event and its fields, in the order the
// worker checks them.
type EventSpec struct {
	Kind string
	// BrowserOnly kinds come from the worker's own listeners; a page's
	// record of one is refused.
	BrowserOnly bool
	// SwitchedBy is the kind whose capture switch (CaptureConfig.Kinds)
	// turns this kind on and off; empty: its own (none for a BrowserOnly
	// kind).
	SwitchedBy string
	Fields     []EventField
}

// Caps shared by several fields: Clip in characters (the worker's, so that
// a batch fits MaxEventsBody), Keep in bytes (the daemon's).
const (
	clipShort    = 64
	clipName     = 200
	clipText     = 200
	clipValue    = 500
	clipURL      = 2048
	clipSelector = 400
	clipMessage  = 8000
	clipStack    = 4000

	keepURL      = 8 << 10
	keepMessage  = 16 << 10
	keepStack    = 16 << 10
	keepSource   = 2 << 10
	keepSelector = 1 << 10
	keepName     = 512
	keepVisible  = 200 // contract: visible text capped at 200
	keepValue    = 1 << 10
	keepTitle    = 1 << 10
	keepShort    = 256 // ids, error strings, mime types, roles
)

// MaxBodyChars bounds each of an event's bodies in the worker whatever the
// configured body cap, so that one event always fits MaxEventsBody.
const MaxBodyChars = 400000

// HeaderLimits bound a headers field: at most Count headers, names cut at
// Name and values at Value (characters in the worker, bytes in the daemon).
type HeaderLimits struct{ Count, Name, Value int }

// Header limits of the worker and of the daemon.
var (
	WorkerHeaders = HeaderLimits{Count: 64, Name: clipName, Value: 2000}
	DaemonHeaders = HeaderLimits{Count: 100, Name: 256, Value: 8 << 10}
)

// CommonFields are the fields every event has; the worker stamps tab_id,
// frame_id and page_url from Chrome's sender.
var CommonFields = []EventField{
	{Name: "kind", Type: FieldEnum, Need: Required},
	{Name: "ts", Type: FieldNum},
	{Name: "tab_id", Type: FieldInt},
	{Name: "frame_id", Type: FieldInt},
	{Name: "page_url", Type: FieldStr, Clip: clipURL, Keep: keepURL},
}

// LocatorKind is a kind of locator (Locator.By) and the fields it must have.
type LocatorKind struct {
	By     string
	Fields []string
}

// LocatorKinds are the kinds of locator, the most stable first.
var LocatorKinds = []LocatorKind{{"testid", []string{"attr", "value"}}, {"role", []string{"role", "name"}}, {"label", []string{"name"}}, {"css", []string{"selector"}}}

// LocatorFields are a locator's string fields and their caps.
var LocatorFields = []EventField{
	{Name: "attr", Type: FieldStr, Clip: clipName, Keep: keepShort},
	{Name: "value", Type: FieldStr, Clip: clipName, Keep: keepName},
	{Name: "role", Type: FieldStr, Clip: clipName, Keep: keepShort},
	{Name: "name", Type: FieldStr, Clip: clipName, Keep: keepName},
	{Name: "selector", Type: FieldStr, Clip: clipSelector, Keep: keepSelector},
}

// EventSpecs are the kinds of capture events and their fields.
var EventSpecs = []EventSpec{
	{Kind: "log", Fields: []EventField{
		{Name: "level", Type: FieldEnum, Enum: []string{"debug", "info", "log", "warn", "error"}, Need: Required},
		{Name: "message", Type: FieldStr, Clip: clipMessage, Keep: keepMessage, Need: Present},
		{Name: "stack", Type: FieldStr, Clip: clipStack, Keep: keepStack},
		{Name: "source", Type: FieldStr, Clip: clipURL, Keep: keepSource},
	}},
	{Kind: "error", Fields: []EventField{
		{Name: "type", Type: FieldEnum, Enum: []string{"uncaught", "unhandled_rejection", "resource"}, Need: Required},
		{Name: "message", Type: FieldStr, Clip: clipMessage, Keep: keepMessage, Need: Present},
		{Name: "stack", Type: FieldStr, Clip: clipStack, Keep: keepStack},
		{Name: "source", Type: FieldStr, Clip: clipURL, Keep: keepSource},
		{Name: "line", Type: FieldInt},
		{Name: "column", Type: FieldInt},
		{Name: "element", Type: FieldStr, Clip: clipShort, Keep: keepShort, For: "resource"},
		{Name: "resource_url", Type: FieldStr, Clip: clipURL, Keep: keepURL, For: "resource"},
	}},
	{Kind: "network", Fields: []EventField{
		{Name: "request_id", Type: FieldStr, Clip: 128, Keep: keepShort, Need: Required},
		{Name: "source", Type: FieldEnum, Enum: []string{"page", "browser"}, Need: Required, Default: "page"},
		{Name: "method", Type: FieldStr, Clip: 16, Keep: 32, Need: Required},
		{Name: "url", Type: FieldStr, Clip: clipURL, Keep: keepURL, Need: Required},
		{Name: "status", Type: FieldInt, Need: Present},
		{Name: "error", Type: FieldStr, Clip: 128, Keep: keepShort},
		{Name: "resource_type", Type: FieldEnum, Enum: []string{"fetch", "xhr", "document", "script", "stylesheet", "image", "font", "media", "websocket", "other"}, Need: Required},
		{Name: "duration_ms", Type: FieldNum},
		{Name: "mime_type", Type: FieldStr, Clip: clipName, Keep: keepShort},
		{Name: "request_headers", Type: FieldHeaders},
		{Name: "response_headers", Type: FieldHeaders},
		{Name: "request_body", Type: FieldBody},
		{Name: "response_body", Type: FieldBody},
		{Name: "request_body_size", Type: FieldInt},
		{Name: "response_body_size", Type: FieldInt},
		{Name: "body_truncated", Type: FieldBool},
		{Name: "body_pending", Type: FieldBool},
		{Name: "body_update", Type: FieldBool},
		{Name: "lean", Type: FieldBool},
	}},
	{Kind: "action", Fields: []EventField{
		{Name: "type", Type: FieldEnum, Enum: []string{"click", "dblclick", "input", "change", "submit", "keydown", "appeared", "agent_appeared"}, Need: Required},
		{Name: "selector", Type: FieldStr, Clip: clipSelector, Keep: keepSelector, Need: Required},
		{Name: "role", Type: FieldStr, Clip: clipShort, Keep: keepShort},
		{Name: "name", Type: FieldStr, Clip: clipName, Keep: keepName},
		{Name: "text", Type: FieldStr, Clip: clipText, Keep: keepVisible},
		{Name: "value", Type: FieldStr, Clip: clipValue, Keep: keepValue},
		{Name: "key", Type: FieldEnum, Enum: []string{"Enter", "Escape", "Tab"}, For: "keydown"},
		{Name: "modifiers", Type: FieldMods, Enum: []string{"Alt", "Control", "Meta", "Shift"}},
		{Name: "locator", Type: FieldLocator},
	}},
	{Kind: "nav", Fields: []EventField{
		{Name: "type", Type: FieldEnum, Enum: []string{"pushState", "replaceState", "popstate", "hashchange", "load"}, Need: Required},
		{Name: "from", Type: FieldStr, Clip: clipURL, Keep: keepURL},
		{Name: "to", Type: FieldStr, Clip: clipURL, Keep: keepURL, Need: Required},
		{Name: "lean", Type: FieldBool},
	}},
	{Kind: "vital", Fields: []EventField{
		{Name: "name", Type: FieldEnum, Enum: []string{"LCP", "CLS", "INP", "FCP", "TTFB", "longtask"}, Need: Required},
		{Name: "value", Type: FieldNum, Need: Required},
		{Name: "unit", Type: FieldEnum, Enum: []string{"ms", "score"}, Need: Required},
	}},
	{Kind: "websocket", SwitchedBy: "network", Fields: []EventField{
		{Name: "conn_id", Type: FieldStr, Clip: 128, Keep: keepShort, Need: Required},
		{Name: "type", Type: FieldEnum, Enum: []string{"connect", "open", "message", "close", "error"}, Need: Required},
		{Name: "url", Type: FieldStr, Clip: clipURL, Keep: keepURL, For: "connect"},
		{Name: "direction", Type: FieldEnum, Enum: []string{"sent", "received"}, For: "message"},
		{Name: "size", Type: FieldInt},
		{Name: "text", Type: FieldBody},
		{Name: "binary", Type: FieldBool},
		{Name: "body_truncated", Type: FieldBool},
		{Name: "code", Type: FieldInt},
		{Name: "reason", Type: FieldStr, Clip: clipName, Keep: keepShort},
		{Name: "frames_dropped", Type: FieldInt},
	}},
	{Kind: "tab", BrowserOnly: true, Fields: []EventField{
		{Name: "type", Type: FieldEnum, Enum: []string{"updated", "removed", "activated"}, Need: Required},
		{Name: "title", Type: FieldStr, Clip: 2 * clipName, Keep: keepTitle},
		{Name: "status", Type: FieldEnum, Enum: []string{"loading", "complete"}},
		{Name: "active", Type: FieldBool},
		{Name: "window_id", Type: FieldInt},
		{Name: "owner", Type: FieldStr, Clip: clipShort, Keep: keepShort},
		{Name: "owner_name", Type: FieldStr, Clip: clipShort, Keep: keepShort},
		{Name: "group", Type: FieldStr, Clip: clipName, Keep: keepName},
	}},
}

// EventKinds returns the kinds of EventSpecs, in order.
func EventKinds() []string {
	out := make([]string, len(EventSpecs))
	for i, s := range EventSpecs {
		out[i] = s.Kind
	}
	return out
}
