// Package tracker is the CommandTracker: it owns every browser command from
// submission to its terminal state, hands commands to extensions exactly once,
// runs every timer of the command lifecycle and wakes waiters the moment a
// command finishes.
package tracker

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/rs/zerolog"
)

// State is a command's lifecycle state. Transitions only move forward:
// queued → pending → one terminal state; a terminal state never changes.
type State string

// The states of a command.
const (
	StateQueued    State = "queued"    // created, not yet delivered to an extension
	StatePending   State = "pending"   // delivered to an extension, running
	StateComplete  State = "complete"  // finished with a result
	StateError     State = "error"     // the command itself failed (e.g. JS threw)
	StateTimeout   State = "timeout"   // exceeded its execution deadline
	StateExpired   State = "expired"   // never answered, or its result was never read in time
	StateCancelled State = "cancelled" // cancelled by its client
)

// Terminal reports whether s is a terminal state.
func (s State) Terminal() bool {
	switch s {
	case StateComplete, StateError, StateTimeout, StateExpired, StateCancelled:
		return true
	}
	return false
}

// Reason codes carried by failed commands.
const (
	ReasonExtensionNoResponse   = "extension_no_response"
	ReasonExecutionTimeout      = "execution_timeout"
	ReasonExtensionDisconnected = "extension_disconnected"
	ReasonResultExpired         = "result_expired"
	ReasonCancelled             = "cancelled"
	ReasonCommandError          = "command_error"
	// ReasonNavigated marks a command that failed because its page
	// navigated away (a new document) while it ran; the extension reports it.
	ReasonNavigated = "navigated"
	// ReasonWaitExpired marks an External command that nothing completed
	// within Options.ExternalTTL.
	ReasonWaitExpired = "wait_expired"
	// ReasonTabUnresponsive marks a command whose tab's main thread did not
	// answer a trivial probe (a script in an endless loop, a frozen page);
	// the extension reports it, and fails later commands to that tab with it
	// until the tab answers again (a refresh, or close_tab).
	ReasonTabUnresponsive = "tab_unresponsive"
	// ReasonOriginNotAllowed marks a command on a page of an origin the
	// user did not allow agents on (not a local development origin): the
	// user denied it in the extension's prompt or did not answer in time.
	ReasonOriginNotAllowed = "origin_not_allowed"
)

// Reasons an element action fails with in the page; the extension reports
// them. Each says what was wrong with the target.
const (
	ReasonNotFound    = "not_found"    // nothing matched the target within the wait
	ReasonAmbiguous   = "ambiguous"    // more than one element matched
	ReasonNotVisible  = "not_visible"  // it matched, but is hidden or has no size
	ReasonDisabled    = "disabled"     // it is disabled
	ReasonCovered     = "covered"      // another element is on top of it
	ReasonStaleRef    = "stale_ref"    // the ref is from an older snapshot or document
	ReasonDetached    = "detached"     // it left the document during the action
	ReasonNotEditable = "not_editable" // fill or type on an element that takes no text
	ReasonBadTarget   = "bad_target"   // the target is malformed (a selector that does not parse)
	ReasonBadOption   = "bad_option"   // select named an option the element does not have
)

// extensionReasons are the failure reasons an extension may report with
// status error, besides the default ReasonCommandError.
var extensionReasons = map[string]bool{
	ReasonNavigated: true, ReasonTabUnresponsive: true, ReasonOriginNotAllowed: true,
	ReasonNotFound: true, ReasonAmbiguous: true, ReasonNotVisible: true, ReasonDisabled: true, ReasonCovered: true,
	ReasonStaleRef: true, ReasonDetached: true, ReasonNotEditable: true, ReasonBadTarget: true, ReasonBadOption: true,
}

// Errors callers branch on.
var (
	ErrUnknownCommand = errors.New("unknown correlation id")
	ErrQueueFull      = errors.New("queue full")
	ErrFinal          = errors.New("command already finished")
	ErrNotDelivered   = errors.New("command not delivered to an extension")
	ErrClosed         = errors.New("tracker closed")
	ErrBadStatus      = errors.New("invalid result status")
)

// Options configure a Tracker. Zero fields take the defaults in parentheses.
type Options struct {
	Clock Clock // (real time)
	// OnWait, if set, is called each time a Wait or WaitAny is about to
	// block, without the tracker's lock: a test hook, so that a test can
	// finish a command once a waiter waits rather than after a sleep.
	OnWait func()

	DispatchTimeout time.Duration // queued, no extension took it (30s) → expired extension_no_response
	AckTimeout      time.Duration // delivered, no pending/final post (3s) → expired extension_no_response
	ExecTimeout     time.Duration // default execution deadline after delivery (10s) → timeout execution_timeout
	MaxExecTimeout  time.Duration // largest per-command Timeout accepted (10m)
	DisconnectGrace time.Duration // extension gone this long (3s) → its delivered commands error extension_disconnected
	ResultTTL       time.Duration // retention after a terminal state (60s)
	ExternalTTL     time.Duration // lifetime of External (ann_) commands (10m) → expired
	FailedRingSize  int           // failed buffer capacity (100)
	MaxActive       int           // non-terminal commands per client (32) → ErrQueueFull
	MaxRetained     int           // retained terminal commands per client (100), oldest evicted first
	MaxActiveTotal  int           // non-terminal commands across all clients (1000) → ErrQueueFull
	MaxParamBytes   int64         // bytes of Params of non-terminal commands across all clients (64 MB) → ErrQueueFull

	// Logger receives one structured line per failure the tracker decides on
	// its own (timers, disconnects, unread results). The zero Logger logs
	// nothing.
	Logger zerolog.Logger
}

// Spec describes a command to submit.
type Spec struct {
	Client string          // owning client (one bridge session); "" means "direct"
	Prefix string          // correlation id prefix, e.g. "exec", "nav", "ann"
	Action string          // e.g. "execute_js"
	Params json.RawMessage // passed verbatim to the extension
	// Timeout is the execution deadline after delivery; 0 means
	// Options.ExecTimeout. Values above Options.MaxExecTimeout are clamped.
	Timeout time.Duration
	// External commands are never delivered to an extension: something else in
	// the daemon completes them (draw-mode annotations). They live
	// Options.ExternalTTL and then expire.
	External bool
}

// Command is a snapshot of one command. Snapshots are values: later changes to
// the command do not show in them, and changing a snapshot does not change the
// command. Params and Result share their bytes with the tracker and must not
// be modified.
type Command struct {
	ID        string          `json:"correlation_id"`
	Client    string          `json:"client"`
	Action    string          `json:"action"`
	Params    json.RawMessage `json:"-"`
	State     State           `json:"state"`
	Delivered bool            `json:"delivered"`           // handed to an extension
	Acked     bool            `json:"acked"`               // the extension posted pending or a final status
	Extension string          `json:"extension,omitempty"` // instance it was delivered to
	Timeout   time.Duration   `json:"-"`
	Result    json.RawMessage `json:"result,omitempty"`
	// Attachment is what the reporter attached to the result (the daemon
	// attaches the handle of a result it keeps in its output store); the
	// tracker keeps it as given and never looks at it. Like Result, it is
	// shared, not copied, and must not be modified.
	Attachment any    `json:"-"`
	Error      string `json:"error,omitempty"`  // message from the extension or the tracker
	Reason     string `json:"reason,omitempty"` // one of the Reason codes, for failures
	// WaitingFor is, while the command is pending, the origin whose use the
	// extension asks the user to allow before running it (the origin rule,
	// extension/origins/); "" once answered, or never asked.
	WaitingFor string `json:"waiting_for,omitempty"`
	// WaitingOn is, while the command is pending, what its action waits
	// for in the page, in the extension's words ("disabled: button
	// 'Save' is disabled"); "" when it waits for nothing there.
	WaitingOn string `json:"waiting_on,omitempty"`
	// External is Spec.External: something in the daemon, not an
	// extension, completes the command (a user-driven draw-mode session).
	External    bool       `json:"external,omitempty"`
	Read        bool       `json:"read"` // its owner read a terminal snapshot through Result or Wait
	CreatedAt   time.Time  `json:"created_at"`
	DeliveredAt *time.Time `json:"delivered_at,omitempty"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

// Lists is a client's view of its commands.
type Lists struct {
	Pending   []Command `json:"pending"`   // queued and pending, oldest first
	Completed []Command `json:"completed"` // retained terminal commands in state complete, oldest first
	Failed    []Command `json:"failed"`    // this client's entries of the failed ring, oldest first
}

// Stats are tracker-wide counts.
type Stats struct {
	Queued   int // waiting for an extension to take them
	Pending  int // delivered, not finished
	External int // External commands waiting to be completed
	// ParamBytes is the size of the parameters unfinished commands hold.
	ParamBytes int64
	Completed  int // retained terminal commands
	Failed     int // failed ring entries
}

// Presence is what the tracker knows of extensions.
type Presence struct {
	Connected bool
	LastSeen  time.Time // zero if never seen
	Instance  string    // most recently seen instance
}

// Clock is the tracker's source of time; tests inject a fake.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed, unless the
	// returned Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a stoppable pending call of Clock.AfterFunc.
type Timer interface {
	// Stop prevents the call if it has not happened; it reports whether it did.
	Stop() bool
}
