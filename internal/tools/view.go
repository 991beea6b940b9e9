package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// hints say what to do next about each failure reason.
var hints = map[string]string{
	tracker.ReasonExtensionNoResponse:   "No browser extension answered. Check that the gasoline extension is installed, paired ('gasoline pair') and shows connected in its popup; configure({action:\"health\"}) shows extension presence. Then run the command again.",
	tracker.ReasonExecutionTimeout:      "The command ran past its deadline. Make the script faster, or pass a larger timeout_ms (up to 600000), and run it again.",
	tracker.ReasonExtensionDisconnected: "The extension went away while running the command; it may or may not have run. Check the page state (e.g. with a read-only execute_js) before retrying.",
	tracker.ReasonResultExpired:         "Finished results are kept for a limited time (the error says how long). Run the command again and read it sooner, e.g. with observe wait_ms.",
	tracker.ReasonCommandError:          "The command failed in the page; read the error, fix the script or the page, and retry.",
	tracker.ReasonCancelled:             "The command was cancelled by its client.",
	tracker.ReasonWaitExpired:           "Nobody completed this wait in time; start it again if it is still needed.",
}

// hintFor returns the hint for a failure reason, if any.
func hintFor(reason string) string { return hints[reason] }

// phase says where a non-terminal command is.
func phase(c tracker.Command) string {
	switch {
	case !c.Delivered:
		return "queued"
	case !c.Acked:
		return "delivered"
	default:
		return "running"
	}
}

// publicStatus is the status agents see: queued and pending both read
// "pending", with phase telling them apart (SPEC section 3).
func publicStatus(c tracker.Command) string {
	if c.State.Terminal() {
		return string(c.State)
	}
	return "pending"
}

// resultView is the full view of one command for command_result.
func resultView(c tracker.Command, now time.Time) map[string]any {
	v := map[string]any{
		"correlation_id": c.ID,
		"status":         publicStatus(c),
		"action":         c.Action,
		"created_at":     c.CreatedAt,
	}
	if !c.State.Terminal() {
		v["phase"] = phase(c)
		v["elapsed_ms"] = now.Sub(c.CreatedAt).Milliseconds()
		if c.Delivered {
			v["message"] = "Still running in the browser. Call observe({what:\"command_result\", correlation_id, wait_ms:10000}) to wait for it."
		} else {
			v["message"] = "Queued; no extension has taken it yet. Call observe({what:\"command_result\", correlation_id, wait_ms:10000}) to wait for it."
		}
		return v
	}
	if c.FinishedAt != nil {
		v["finished_at"] = *c.FinishedAt
		v["duration_ms"] = c.FinishedAt.Sub(c.CreatedAt).Milliseconds()
	}
	if len(c.Result) > 0 {
		v["result"] = json.RawMessage(c.Result)
		if s, ok := stored(c.Result); ok {
			v["message"] = fmt.Sprintf("The result is large (%d chars, ~%d tokens), so it is stored, not inlined. %s",
				s.Output.Chars, s.Output.EstimatedTokens, s.Output.Hint)
		}
	}
	if c.State != tracker.StateComplete {
		if c.Error != "" {
			v["error"] = c.Error
		}
		if c.Reason != "" {
			v["reason"] = c.Reason
			if h := hintFor(c.Reason); h != "" {
				v["hint"] = h
			}
		}
	}
	return v
}

// listEntry is the compact view used in lists.
func listEntry(c tracker.Command, now time.Time) map[string]any {
	v := map[string]any{
		"correlation_id": c.ID,
		"action":         c.Action,
		"status":         publicStatus(c),
		"created_at":     c.CreatedAt,
	}
	if !c.State.Terminal() {
		v["phase"] = phase(c)
		v["elapsed_ms"] = now.Sub(c.CreatedAt).Milliseconds()
		return v
	}
	if c.FinishedAt != nil {
		v["finished_at"] = *c.FinishedAt
		v["duration_ms"] = c.FinishedAt.Sub(c.CreatedAt).Milliseconds()
	}
	if c.State == tracker.StateComplete {
		v["read"] = c.Read
		v["result_chars"] = resultChars(c)
		if _, ok := stored(c.Result); ok {
			v["stored"] = true
		}
	} else {
		if c.Reason != "" {
			v["reason"] = c.Reason
			v["hint"] = hintFor(c.Reason)
		}
		if c.Error != "" {
			v["error"] = c.Error
		}
	}
	return v
}

func listView(cs []tracker.Command, now time.Time) []map[string]any {
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, listEntry(c, now))
	}
	return out
}

// queuedView is interact's immediate answer (seed 000).
func queuedView(c tracker.Command, extConnected bool) map[string]any {
	v := map[string]any{
		"status":         "queued",
		"correlation_id": c.ID,
		"message":        fmt.Sprintf("Queued for the browser. Get the result with observe({what:\"command_result\", correlation_id:%q, wait_ms:10000}).", c.ID),
	}
	if !c.State.Terminal() && c.Delivered {
		v["status"] = "pending"
		v["phase"] = phase(c)
		v["message"] = fmt.Sprintf("Running in the browser. Get the result with observe({what:\"command_result\", correlation_id:%q, wait_ms:10000}).", c.ID)
	}
	if !extConnected {
		v["extension_connected"] = false
		v["warning"] = "No browser extension is connected right now, so the command waits in the queue (up to 30 s). Open Chrome with the gasoline extension loaded and paired ('gasoline pair'), or check configure({action:\"health\"})."
	}
	return v
}
