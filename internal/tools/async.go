package tools

import (
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// maxAsyncListed bounds each list of the async status: an agent that fans
// out 32 commands and leaves 100 results unread must not pay for 130 entries
// in every response. The totals are always given.
const maxAsyncListed = 8

// decorate adds the client's compact async status to every tool result, so
// an agent is reminded of commands still running and of results it has not
// read (seed 001's XML-NEXT notice, as data). Each list shows the oldest
// maxAsyncListed entries (the ones most at risk of expiring) and its total.
func (t *Tools) decorate(client string, result map[string]any) {
	running, ready := t.d.Tracker.Unread(client)
	// The command this result is about is not news.
	if self, ok := result["correlation_id"].(string); ok {
		running, ready = without(running, self), without(ready, self)
	}
	if len(running) == 0 && len(ready) == 0 {
		return
	}
	now := time.Now()
	status := map[string]any{"running_count": len(running), "ready_count": len(ready)}
	if len(running) > maxAsyncListed || len(ready) > maxAsyncListed {
		status["more"] = "the lists show the oldest entries; observe({what:\"pending_commands\"}) lists them all"
	}
	if len(running) > 0 {
		rs := make([]map[string]any, 0, min(len(running), maxAsyncListed))
		for _, c := range running[:min(len(running), maxAsyncListed)] {
			rs = append(rs, map[string]any{
				"correlation_id":  c.ID,
				"action":          c.Action,
				"phase":           phase(c),
				"running_seconds": roundSeconds(now.Sub(c.CreatedAt)),
			})
		}
		status["running"] = rs
	}
	if len(ready) > 0 {
		rs := make([]map[string]any, 0, min(len(ready), maxAsyncListed))
		for _, c := range ready[:min(len(ready), maxAsyncListed)] {
			e := map[string]any{"correlation_id": c.ID, "action": c.Action, "status": string(c.State)}
			if c.State == tracker.StateComplete {
				e["result_chars"] = resultChars(c)
			}
			rs = append(rs, e)
		}
		status["ready"] = rs
		status["hint"] = "read ready results with observe({what:\"command_result\", correlation_id})"
	}
	result["async"] = status
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(100*time.Millisecond).Milliseconds()) / 1000
}

func without(cs []tracker.Command, id string) []tracker.Command {
	for i, c := range cs {
		if c.ID == id {
			return append(cs[:i:i], cs[i+1:]...)
		}
	}
	return cs
}
