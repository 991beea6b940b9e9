package tools

import (
	"context"
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// statusActions report the daemon's state.
func statusActions() []action {
	health := handler("configure", "health", "version, uptime, extension connected, queue depth", (*Tools).health)
	health.Idempotent = true
	return []action{health, queryStatus()}
}

// queryStatus is seed 002's poll: observe command_result under another name.
// It accepts every argument command_result does (mode, slice, extract), but
// its schema shows only the two a poll needs: the rest are described once,
// on observe, and repeating them here would cost every agent ~80 tokens of
// tools/list.
func queryStatus() action {
	a := commandResult()
	a.Tool, a.Name = "configure", "query_status"
	a.summary = `= observe command_result`
	a.fields = slices.DeleteFunc(bare(a.fields), func(f field) bool {
		return f.name != "correlation_id" && f.name != "wait_ms"
	})
	return a
}

// healthView is health's answer.
type healthView struct {
	Extension     apitype.Extension `json:"extension"`
	Hint          string            `json:"hint,omitempty"`
	Queue         apitype.Queue     `json:"queue"`
	Status        string            `json:"status"`
	UptimeSeconds float64           `json:"uptime_seconds"`
	Version       string            `json:"version"`
}

func (t *Tools) health(context.Context, string, noArgs) (*healthView, error) {
	h := t.d.Health()
	v := &healthView{Status: "ok", Version: h.Version, UptimeSeconds: h.UptimeSeconds, Extension: h.Extension, Queue: h.Queue}
	if !h.Extension.Connected {
		v.Hint = "No browser extension is connected. Load the gasoline extension in Chrome, run 'gasoline pair' and type the code in its popup; commands queue until it connects."
	}
	return v, nil
}
