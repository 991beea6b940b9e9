package bridge

import (
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
)

// message is what the bridge reads of a JSON-RPC message to route it: just
// enough to pick a timeout, decide whether it may be retried and address an
// error to it. Everything else is relayed unread.
type message struct {
	// ID is the raw id: nil when absent (a notification), "null" when null.
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		// RequestID is the request a notifications/cancelled names.
		RequestID json.RawMessage `json:"requestId"`
		Name      string          `json:"name"`
		Arguments struct {
			What          string   `json:"what"`
			Action        string   `json:"action"`
			WaitMS        *float64 `json:"wait_ms"`
			CorrelationID string   `json:"correlation_id"`
		} `json:"arguments"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	} `json:"params"`

	// parsed is false when the line was not a JSON object (a batch, or
	// garbage the daemon will answer with a parse error).
	parsed bool
	// pol is the policy of a tools/call (see policy).
	pol toolpolicy.Action
	// userDriven: the call's correlation_id names a user-driven command.
	userDriven bool
}

// peek decodes the routing fields of line and looks its policy up in tbl.
// It never fails: a line it cannot read is relayed all the same, and the
// daemon answers it. A field of an unexpected type (say, arguments that are
// not an object) is left empty without losing the others.
func peek(line []byte, tbl *toolpolicy.Table) message {
	var m message
	if i := firstNonSpace(line); i < 0 || line[i] != '{' {
		return m // batch or garbage
	}
	if err := json.Unmarshal(line, &m); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return message{}
		}
	}
	m.parsed = true
	if m.Method == "tools/call" {
		a := &m.Params.Arguments
		name := a.Action
		if tbl.Key(m.Params.Name) == "what" {
			name = a.What
		}
		m.pol, _ = tbl.Lookup(m.Params.Name, name)
		m.userDriven = tbl.UserDrivenID(a.CorrelationID)
	}
	return m
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return i
	}
	return -1
}

// answerable reports whether the bridge owes the message an answer if the
// daemon gives none: requests do, notifications and client responses never.
// An unreadable line is answered (with a null id), as the daemon would.
func (m *message) answerable() bool {
	if !m.parsed {
		return true
	}
	return m.ID != nil && m.Method != ""
}

// cancels returns the id of the request a notifications/cancelled names,
// or nil.
func (m *message) cancels() json.RawMessage {
	if m.Method != "notifications/cancelled" || m.ID != nil {
		return nil
	}
	return m.Params.RequestID
}

// replyID is the id to address a bridge-made error to.
func (m *message) replyID() json.RawMessage {
	if m.ID == nil {
		return json.RawMessage("null")
	}
	return m.ID
}

// label names the call in error messages: the method, and the tool for
// tools/call.
func (m *message) label() string {
	switch {
	case !m.parsed:
		return "the request"
	case m.Method == "tools/call" && m.Params.Name != "":
		return "tools/call " + m.Params.Name
	case m.Method != "":
		return m.Method
	}
	return "the request"
}

// policy returns the policy of a tools/call from the tools' table
// (internal/toolpolicy): for an unknown tool or action, the safest one.
// Other methods have none (ok is false).
func (m *message) policy() (p toolpolicy.Action, ok bool) {
	return m.pol, m.Method == "tools/call"
}

// browserBound reports whether the call is a tool action that needs the
// browser.
func (m *message) browserBound() bool {
	p, _ := m.policy()
	return p.BrowserBound
}

// wantsProgress reports whether the daemon may send notifications before
// the message's response, which the bridge relays as they come: a tool call
// whose client asked for progress (_meta.progressToken), tasks/result (task
// status notifications, 2025-11-25) and subscriptions/listen (the Tasks
// extension's notifications/tasks, 2026-07-28).
func (m *message) wantsProgress() bool {
	switch m.Method {
	case "tasks/result", "subscriptions/listen":
		return true
	}
	t := m.Params.Meta.ProgressToken
	return m.Method == "tools/call" && len(t) > 0 && string(t) != "null"
}

// idempotent reports whether running the message twice is harmless, so it
// may be replayed on a stale connection and retried after a daemon restart.
func (m *message) idempotent() bool {
	switch m.Method {
	case "initialize", "ping", "tools/list", "resources/list", "resources/templates/list", "prompts/list",
		"server/discover", "tasks/get":
		return true
	}
	p, _ := m.policy()
	return p.Idempotent
}

// Timeouts are the per-call HTTP timeouts of the bridge (its --timeout,
// --browser-timeout and --max-timeout flags: docs/configuration.md).
type Timeouts struct {
	Default time.Duration // any call (10s)
	Browser time.Duration // browser-bound tools: interact, analyze (35s)
	Max     time.Duration // ceiling of every timeout (65s)
}

// DefaultTimeouts are the flags' defaults.
var DefaultTimeouts = Timeouts{
	Default: 10 * time.Second,
	Browser: 35 * time.Second,
	Max:     65 * time.Second,
}

// For returns the HTTP timeout for m: the base for its kind of call, or for
// a blocking wait the requested wait plus Default, never less than the base
// and never above Max.
func (t Timeouts) For(m *message) time.Duration {
	base := t.Default
	if m.browserBound() {
		base = t.Browser
	}
	d := base
	if m.Method == "tasks/result" || m.Method == "subscriptions/listen" {
		d = t.Max // the daemon holds it until the task ends, within its own cap
	}
	if wait, ok := t.blockingWait(m); ok {
		d = max(base, wait+t.Default)
	}
	return min(d, t.Max)
}

// blockingWait returns how long the daemon may hold m before answering,
// for the calls the table says block: with wait_ms, that wait (clamped to
// the call's maximum); without, the call's default wait, or its user-driven
// default when correlation_id names a user-driven command (command_result on
// a draw-mode session waits 55s by default).
func (t Timeouts) blockingWait(m *message) (time.Duration, bool) {
	p, ok := m.policy()
	if !ok || !p.Blocks() {
		return 0, false
	}
	a := &m.Params.Arguments
	switch {
	case a.WaitMS != nil:
		return waitDuration(*a.WaitMS, p.MaxWait), true
	case p.UserDrivenWait > 0 && m.userDriven:
		return p.UserDrivenWait, true
	case p.DefaultWait > 0:
		return p.DefaultWait, true
	}
	return 0, false
}

// waitDuration converts a requested wait_ms, clamped to [0, max].
func waitDuration(ms float64, max time.Duration) time.Duration {
	if math.IsNaN(ms) || ms <= 0 {
		return 0
	}
	if ms >= float64(max/time.Millisecond) {
		return max
	}
	return time.Duration(ms * float64(time.Millisecond))
}
