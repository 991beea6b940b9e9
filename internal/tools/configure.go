package tools

import (
	"context"
	"encoding/json"
)

var configureActions = []string{"query_status", "health"}

func (t *Tools) configure(ctx context.Context, client string, raw json.RawMessage) (any, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "query_status":
		// Seed 002's poll: the same as observe({what:"command_result"}).
		if a.Mode != "" {
			return t.readOutput(ctx, a.CorrelationID, a.Raw)
		}
		return t.commandResult(ctx, a)
	case "health":
		return t.health(), nil
	}
	return nil, unknownChoice("action", a.Action, configureActions)
}

func (t *Tools) health() map[string]any {
	h := t.d.Health()
	v := map[string]any{
		"status":         "ok",
		"version":        h.Version,
		"uptime_seconds": h.UptimeSeconds,
		"extension":      h.Extension,
		"queue":          h.Queue,
	}
	if !h.Extension.Connected {
		v["hint"] = "No browser extension is connected. Load the gasoline extension in Chrome, run 'gasoline pair' and type the code in its popup; commands queue until it connects."
	}
	return v
}
