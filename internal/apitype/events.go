package apitype

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// Capture wire types: the extension worker posts batches of captured page
// events to POST /events and reads its capture settings from GET
// /capture/config. These types are the Go side of issue 9's capture wire
// contract.

// Limits of POST /events.
const (
	// MaxEventsBody is the largest batch body the daemon reads; a larger one
	// gets 413 and the worker splits it.
	MaxEventsBody = 1 << 20
	// MaxEventsPerBatch is the most events one batch may carry (the worker
	// sends at most 200); more get 413 like an oversize body.
	MaxEventsPerBatch = 2000
	// MaxBatchIDLen bounds EventBatch.BatchID.
	MaxBatchIDLen = 64

	// MaxRejectionsListed bounds EventsAck.Rejected; the rest of the
	// rejections are only counted (events minus Accepted).
	MaxRejectionsListed = 100
)

// EventBatch is the body of POST /events.
type EventBatch struct {
	// BatchID names the batch, the same on every retry of it: the worker's
	// random epoch (new whenever the service worker starts) and its
	// sequence number, "<epoch>.<seq>". The daemon stores a batch whose id
	// it has seen recently only once: a retry after a lost answer is
	// answered with Duplicate and changes nothing. A retry carries the same
	// events and drop counts as the first post (or fewer events, never
	// others). Empty: no deduplication. At most MaxBatchIDLen bytes.
	BatchID string `json:"batch_id,omitempty"`
	// Dropped counts, per kind, events lost before they reached the daemon
	// since the previous accepted batch whose tab the extension cannot name.
	Dropped map[string]int64 `json:"dropped,omitempty"`
	// DroppedByTab counts the same per tab, then per kind: {"12": {"log":
	// 3}}. A read of some tabs reports only their losses, and Dropped's as
	// of no known tab.
	DroppedByTab map[int64]map[string]int64 `json:"dropped_by_tab,omitempty"`
	Events       []Event                    `json:"events"`
}

// Event is one captured event: the common fields, then the fields of its
// kind (log, error, network, action, nav, vital, websocket, tab). Fields of other kinds
// are ignored. Two JSON keys change type with the kind: "status" (network: a
// number; tab: a string) and "value" (vital: a number; action: a string),
// hence Scalar. EventSpecs declares each kind's fields, their caps and
// values.
type Event struct {
	Kind    string  `json:"kind"`
	TS      float64 `json:"ts"` // ms since the epoch
	TabID   int64   `json:"tab_id"`
	FrameID int64   `json:"frame_id"`
	PageURL string  `json:"page_url"`

	Type string `json:"type,omitempty"` // error, action, nav and tab subtypes

	// log and error
	Level       string `json:"level,omitempty"`
	Message     string `json:"message,omitempty"`
	Stack       string `json:"stack,omitempty"`
	Source      string `json:"source,omitempty"` // log/error: where; network: "page" or "browser"
	Line        int64  `json:"line,omitempty"`
	Column      int64  `json:"column,omitempty"`
	Element     string `json:"element,omitempty"`
	ResourceURL string `json:"resource_url,omitempty"`

	// network
	RequestID        string            `json:"request_id,omitempty"`
	Method           string            `json:"method,omitempty"`
	URL              string            `json:"url,omitempty"`
	Status           Scalar            `json:"status,omitzero"`
	Error            string            `json:"error,omitempty"`
	ResourceType     string            `json:"resource_type,omitempty"`
	DurationMS       float64           `json:"duration_ms,omitempty"`
	MimeType         string            `json:"mime_type,omitempty"`
	RequestHeaders   map[string]string `json:"request_headers,omitempty"`
	ResponseHeaders  map[string]string `json:"response_headers,omitempty"`
	RequestBody      string            `json:"request_body,omitempty"`
	ResponseBody     string            `json:"response_body,omitempty"`
	RequestBodySize  int64             `json:"request_body_size,omitempty"`
	ResponseBodySize int64             `json:"response_body_size,omitempty"`
	BodyTruncated    bool              `json:"body_truncated,omitempty"`
	// BodyPending says the page is still reading the bodies: a later event
	// with BodyUpdate and the same RequestID carries them.
	BodyPending bool `json:"body_pending,omitempty"`
	// BodyUpdate marks the event that carries the bodies of an earlier
	// BodyPending event of the same tab and RequestID.
	BodyUpdate bool `json:"body_update,omitempty"`
	// Lean marks a record of a page (top document) loaded while no agent
	// was at work: its network records (sent with bodies only when the
	// request failed: status 400 or more, or an error) and its load nav
	// record. Such a page's capture keeps no other bodies, no WebSocket
	// traffic and no web vitals until it is reloaded while an agent works.
	Lean bool `json:"lean,omitempty"`

	// action
	Selector  string   `json:"selector,omitempty"`
	Role      string   `json:"role,omitempty"`
	Name      string   `json:"name,omitempty"` // action: accessible name; vital: metric name
	Text      string   `json:"text,omitempty"`
	Value     Scalar   `json:"value,omitzero"`
	Key       string   `json:"key,omitempty"`
	Modifiers []string `json:"modifiers,omitempty"`
	Locator   *Locator `json:"locator,omitempty"`

	// nav
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`

	// vital
	Unit string `json:"unit,omitempty"`

	// websocket: one connection's life and frames. Type is connect (URL),
	// open, message, close or error; ConnID names the connection within its
	// tab. A message has Direction ("sent" or "received") and Size in bytes,
	// and Text (cut at the body cap: BodyTruncated) or Binary. A close has
	// Code, Reason and FramesDropped, the frames the page left out past its
	// bounds.
	ConnID        string `json:"conn_id,omitempty"`
	Direction     string `json:"direction,omitempty"`
	Size          int64  `json:"size,omitempty"`
	Binary        bool   `json:"binary,omitempty"`
	Code          int64  `json:"code,omitempty"`
	Reason        string `json:"reason,omitempty"`
	FramesDropped int64  `json:"frames_dropped,omitempty"`

	// tab
	Title    string `json:"title,omitempty"`
	Active   *bool  `json:"active,omitempty"`
	WindowID int64  `json:"window_id,omitempty"`
	// Owner is the MCP client that owns the tab (it opened it), OwnerName
	// that client's name, Group the title of the tab's tab group. Each is
	// absent when the extension does not say; "" means none.
	Owner     *string `json:"owner,omitempty"`
	OwnerName *string `json:"owner_name,omitempty"`
	Group     *string `json:"group,omitempty"`
}

// Locator is the most stable way the extension's DOM engine
// (extension/dom/engine/locators.js) found to name an action's element again, by
// kind: "testid" (Attr, a test id attribute such as data-testid, and its
// Value), "role" (Role and accessible Name), "label" (the Name of its
// label) or "css" (Selector). interact takes it as a target: a selector
// [Attr="Value"], {role, name, exact: true}, {text: Name, exact: true} or
// the Selector.
type Locator struct {
	By       string `json:"by"`
	Attr     string `json:"attr,omitempty"`
	Value    string `json:"value,omitempty"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// Scalar is a JSON number or string. Its zero value is "absent" (or null).
type Scalar struct {
	Num   float64
	Str   string
	IsStr bool // the JSON value was a string
	Set   bool // a number or string was given
}

// Num returns the Scalar for a JSON number.
func Num(n float64) Scalar { return Scalar{Num: n, Set: true} }

// Str returns the Scalar for a JSON string.
func Str(s string) Scalar { return Scalar{Str: s, IsStr: true, Set: true} }

// IsZero reports whether s is absent, for omitzero.
func (s Scalar) IsZero() bool { return !s.Set }

// UnmarshalJSON accepts a number, a string or null.
func (s *Scalar) UnmarshalJSON(b []byte) error {
	*s = Scalar{}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s.Str); err != nil {
			return err
		}
		s.IsStr, s.Set = true, true
		return nil
	}
	bad := &json.UnmarshalTypeError{Value: "number", Type: reflect.TypeFor[Scalar]()}
	switch b[0] {
	case 't', 'f':
		bad.Value = "bool"
	case '{':
		bad.Value = "object"
	case '[':
		bad.Value = "array"
	}
	if c := b[0]; c != '-' && (c < '0' || c > '9') {
		return bad
	}
	n, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return bad
	}
	s.Num, s.Set = n, true
	return nil
}

// MarshalJSON writes the number, the string, or null when absent.
func (s Scalar) MarshalJSON() ([]byte, error) {
	switch {
	case !s.Set:
		return []byte("null"), nil
	case s.IsStr:
		return json.Marshal(s.Str)
	}
	return json.Marshal(s.Num)
}

// EventRejection says why the event at Index of a batch was not stored.
type EventRejection struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

// EventsAck is the 200 answer of POST /events. The good events of a batch
// are stored even when others are rejected. Rejected lists at most
// MaxRejectionsListed rejections; len(events) - Accepted of them happened.
type EventsAck struct {
	Accepted int              `json:"accepted"`
	Rejected []EventRejection `json:"rejected"`
	// DroppedByDaemon counts, per kind, the oldest buffered entries the
	// daemon evicted to make room for this batch.
	DroppedByDaemon map[string]int64 `json:"dropped_by_daemon"`
	// ConfigVersion is CaptureConfig.Version; the worker re-reads GET
	// /capture/config when it changes.
	ConfigVersion int64 `json:"config_version"`
	// Duplicate says the daemon had already stored the batch with this
	// BatchID (the answer to an earlier post was lost): nothing was stored
	// again, Accepted is 0, and the batch needs no further post.
	Duplicate bool `json:"duplicate,omitempty"`
}

// CaptureConfig is the body of GET /capture/config: the capture settings the
// extension applies. Version grows with every change.
type CaptureConfig struct {
	Version       int64           `json:"version"`
	RedactHeaders bool            `json:"redact_headers"`
	RedactNames   []string        `json:"redact_names,omitempty"` // header names redacted besides the built-in list
	BodyCap       int             `json:"body_cap"`               // bytes per request or response body
	Kinds         map[string]bool `json:"kinds"`                  // log, error, network, action, nav, vital
}
