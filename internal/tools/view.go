package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// The results agents get are typed views of the tracker's commands. Their
// JSON keys are in alphabetical order, which is the order agents have always
// seen them in; the async status is added after encoding (async.go).

// aboutCommand is a view about one command: the async status leaves that
// command out, since the view says all there is about it.
type aboutCommand interface{ command() string }

// hints say what to do next about each failure reason; hintFor picks one.
var hints = map[string]string{
	tracker.ReasonExtensionNoResponse:   "No browser extension answered. Check that the gasoline extension is installed, paired ('gasoline pair') and shows connected in its popup; configure({action:\"health\"}) shows extension presence. Then run the command again.",
	tracker.ReasonExecutionTimeout:      "The command ran past its deadline. If it needs more time, pass a larger timeout_ms (up to 600000); for execute_js, make the script finish sooner (do not await what may never come). Then run it again.",
	tracker.ReasonExtensionDisconnected: "The extension went away while running the command; it may or may not have run. Check the page state (e.g. with a read-only execute_js) before retrying.",
	tracker.ReasonResultExpired:         "Finished results are kept for a limited time (the error says how long). Run the command again and read it sooner, e.g. with observe wait_ms.",
	tracker.ReasonCommandError:          "The command could not be done; the error says why and what to change. Fix the arguments (or the page state it names) and retry.",
	tracker.ReasonNavigated:             "The page navigated away while the command ran, so its result is lost. Check where the tab is now and run the command again if it is still needed.",
	tracker.ReasonCancelled:             "The command was cancelled by its client.",
	tracker.ReasonWaitExpired:           "Nobody completed this wait in time; start it again if it is still needed.",
	tracker.ReasonTabUnresponsive:       "The tab's page is frozen (its main thread does not answer: a script in an endless loop, or a native dialog only the user can answer); commands to it fail at once until it answers. If a dialog may show, ask the user to answer it; else recover it with interact({action:\"refresh\"}) (which discards the page) or interact({action:\"close_tab\"}), then run the command again.",
	tracker.ReasonOriginNotAllowed:      `The user has not allowed agents on this site (only local origins such as localhost and 127.0.0.1 are free). Ask the user to allow it in the gasoline popup, or to answer the extension's prompt (it waits ` + userWindow + ` for them); no tool call can allow it. Do not retry without asking.`,
	tracker.ReasonNotFound:              "No element matched the target. Take a fresh snapshot with analyze({what:\"dom\"}) or query, and retry with a ref or selector from it (wait_for first if the element appears later).",
	tracker.ReasonAmbiguous:             "More than one element matched (the error lists candidates). Retry with one candidate's ref, or a more specific selector, or role with name and exact:true.",
	tracker.ReasonNotVisible:            "The element exists but is hidden or has no size. Make it visible first (open its menu, scroll_to it, or wait_for it with state:\"visible\"), then retry.",
	tracker.ReasonDisabled:              "The element is disabled. Do what enables it first (fill the required fields, pick an option), or wait_for it to become enabled, then retry.",
	tracker.ReasonCovered:               "Another element (a dialog, banner or overlay; the error names it) is on top of the target. Close or dismiss that element first, then retry.",
	tracker.ReasonStaleRef:              "The ref is from an older snapshot or page. Take a new snapshot with analyze({what:\"dom\"}) or query and use its refs.",
	tracker.ReasonDetached:              "The element left the page during the action (the page re-rendered). Take a new snapshot and retry with a fresh ref.",
	tracker.ReasonNotEditable:           "The target takes no text, or not in the form sent (the error says which). Point fill or type at an input, textarea or contenteditable element (query with role textbox finds them), or send the text in the field's own format (a date as yyyy-mm-dd).",
	tracker.ReasonBadTarget:             "The target is malformed (e.g. a CSS selector that does not parse). Fix it and retry.",
	tracker.ReasonBadOption:             "The select has no such option; the error lists the ones it has. Retry with one of them.",
}

// scriptHint is the command_error hint of execute_js, where a script ran.
const scriptHint = "The script threw or could not run in the page; read the error, fix the script, and retry."

// hintFor is the hint of failed command c: its reason's, and for a
// command_error of execute_js the script's.
func hintFor(c tracker.Command) string {
	if c.Reason == tracker.ReasonCommandError && c.Action == "execute_js" {
		return scriptHint
	}
	return hints[c.Reason]
}

// phase says where a non-terminal command is.
func phase(c tracker.Command) string {
	switch {
	case !c.Delivered:
		return "queued"
	case !c.Acked:
		return "delivered"
	case c.WaitingFor != "":
		return "waiting_for_user"
	default:
		return "running"
	}
}

// publicStatus is the status agents see: queued and pending both read
// "pending", with phase telling them apart (tracker.State is the full set).
func publicStatus(c tracker.Command) string {
	if c.State.Terminal() {
		return string(c.State)
	}
	return "pending"
}

// commandView is one command as command_result shows it, and interact's
// result when it finished within wait_ms. It is lean by default (every
// response costs the agent context): the action and the timestamps come
// only with verbose:true, and a message only where the agent must act.
type commandView struct {
	Action        string     `json:"action,omitempty"`
	CorrelationID string     `json:"correlation_id"`
	CreatedAt     *time.Time `json:"created_at,omitempty"`
	DurationMS    *int64     `json:"duration_ms,omitempty"`
	ElapsedMS     *int64     `json:"elapsed_ms,omitempty"`
	Error         string     `json:"error,omitempty"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
	Hint          string     `json:"hint,omitempty"`
	Message       string     `json:"message,omitempty"`
	Phase         string     `json:"phase,omitempty"`
	Reason        string     `json:"reason,omitempty"`
	// Waiting is, while the command runs, what its action waits for in
	// the page before it can act ("disabled: button 'Save' is disabled").
	Waiting string `json:"waiting,omitempty"`
	// Result is the extension's result as it reported it, or the stored
	// output's handle (storedView).
	Result json.RawMessage `json:"result,omitempty"`
	Status string          `json:"status"`
	// Extension says the extension was not built with the daemon's
	// contract, on a browser command that did not complete: the likely
	// cause, with its fix.
	Extension string      `json:"extension,omitempty"`
	images    []mcp.Image // content blocks beside the object (a screenshot)
}

func (v *commandView) command() string { return v.CorrelationID }

// Images returns the images the result carries (mcp.Imager).
func (v *commandView) Images() []mcp.Image { return v.images }

// userWindow is tracker.UserAnswerWindow as agents read it.
var userWindow = fmt.Sprintf("%d s", int(tracker.UserAnswerWindow/time.Second))

// waitingMessage is what an agent reads of a command waiting for the
// user's answer (c.WaitingFor set).
func waitingMessage(c tracker.Command) string {
	return "The browser asks the user to allow agents on " + c.WaitingFor + "; the command runs if they allow it, and fails with origin_not_allowed if they deny or do not answer within " +
		userWindow + ". To wait, " + waitHint
}

// waitHint is the one instruction an unfinished command needs.
const waitHint = `wait with observe({what:"command_result", correlation_id, wait_ms:10000})`

func (t *Tools) commandView(c tracker.Command, now time.Time, verbose bool) *commandView {
	v := &commandView{CorrelationID: c.ID, Status: publicStatus(c)}
	if verbose {
		v.Action, v.CreatedAt = c.Action, ptr(c.CreatedAt)
	}
	if !c.State.Terminal() {
		v.Phase = phase(c)
		if verbose {
			v.ElapsedMS = ptr(now.Sub(c.CreatedAt).Milliseconds())
		}
		if c.External {
			v.Phase = "waiting_for_user"
			v.Message = "The user has not pressed Done yet. Call the same observe again to wait longer (the session lasts 10 minutes)."
			return v
		}
		v.Message = waitHint
		if c.WaitingFor != "" {
			v.Message = waitingMessage(c)
		}
		v.Waiting = c.WaitingOn
		return v
	}
	if c.FinishedAt != nil && verbose {
		v.FinishedAt = c.FinishedAt
		v.DurationMS = ptr(c.FinishedAt.Sub(c.CreatedAt).Milliseconds())
	}
	if s, ok := result.StoredOf(c); ok {
		v.Result, _ = json.Marshal(storedViewOf(c.ID, c.Action+" output", s))
		v.Message = fmt.Sprintf("The result is large (%d chars, ~%d tokens), so it is stored, not inlined. %s",
			s.Handle.Chars, s.Handle.EstimatedTokens, readHint(c.ID, s))
	} else if len(c.Result) > 0 {
		v.Result = c.Result
	}
	if p := t.presenters[c.Action]; p != nil && c.State == tracker.StateComplete {
		p(t, c, v)
	}
	if c.State != tracker.StateComplete {
		v.Error = c.Error
		if !c.External {
			v.Extension = t.extensionSkew()
		}
		if c.Reason != "" {
			v.Reason = c.Reason
			v.Hint = hintFor(c)
			if c.External && c.Reason == tracker.ReasonCancelled {
				v.Hint = "The draw-mode session ended without annotations (the error says why). Ask the user, or start again with analyze({what:\"annotations\", wait:true})."
			}
		}
	}
	return v
}

// listEntry is the compact view of a command in lists.
type listEntry struct {
	Action        string     `json:"action"`
	CorrelationID string     `json:"correlation_id"`
	CreatedAt     time.Time  `json:"created_at"`
	DurationMS    *int64     `json:"duration_ms,omitempty"`
	ElapsedMS     *int64     `json:"elapsed_ms,omitempty"`
	Error         string     `json:"error,omitempty"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
	Hint          *string    `json:"hint,omitempty"`
	Phase         string     `json:"phase,omitempty"`
	Read          *bool      `json:"read,omitempty"`
	Reason        string     `json:"reason,omitempty"`
	ResultChars   *int       `json:"result_chars,omitempty"`
	Status        string     `json:"status"`
	Stored        bool       `json:"stored,omitempty"`
}

func listEntryOf(c tracker.Command, now time.Time) listEntry {
	v := listEntry{CorrelationID: c.ID, Action: c.Action, Status: publicStatus(c), CreatedAt: c.CreatedAt}
	if !c.State.Terminal() {
		v.Phase = phase(c)
		v.ElapsedMS = ptr(now.Sub(c.CreatedAt).Milliseconds())
		return v
	}
	if c.FinishedAt != nil {
		v.FinishedAt = c.FinishedAt
		v.DurationMS = ptr(c.FinishedAt.Sub(c.CreatedAt).Milliseconds())
	}
	if c.State == tracker.StateComplete {
		v.Read = ptr(c.Read)
		v.ResultChars = ptr(result.Chars(c))
		_, v.Stored = result.StoredOf(c)
		return v
	}
	if c.Reason != "" {
		v.Reason = c.Reason
		v.Hint = ptr(hintFor(c))
	}
	v.Error = c.Error
	return v
}

func listView(cs []tracker.Command, now time.Time) []listEntry {
	out := make([]listEntry, 0, len(cs))
	for _, c := range cs {
		out = append(out, listEntryOf(c, now))
	}
	return out
}

// queuedView is interact's immediate answer (seed 000).
type queuedView struct {
	CorrelationID      string `json:"correlation_id"`
	ExtensionConnected *bool  `json:"extension_connected,omitempty"`
	Message            string `json:"message"`
	Phase              string `json:"phase,omitempty"`
	Status             string `json:"status"`
	Warning            string `json:"warning,omitempty"`
}

func (v *queuedView) command() string { return v.CorrelationID }

func queuedViewOf(c tracker.Command, extConnected bool) *queuedView {
	v := &queuedView{Status: "queued", CorrelationID: c.ID, Message: waitHint}
	if !c.State.Terminal() && c.Delivered {
		v.Status = "pending"
		v.Phase = phase(c)
		if c.WaitingFor != "" {
			v.Message = waitingMessage(c)
		}
	}
	if !extConnected {
		v.ExtensionConnected = ptr(false)
		v.Warning = "No browser extension is connected right now, so the command waits in the queue (up to 30 s). Open Chrome with the gasoline extension loaded and paired ('gasoline pair'), or check configure({action:\"health\"})."
	}
	return v
}

func ptr[T any](v T) *T { return &v }
