package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

var observeModes = []string{"command_result", "pending_commands", "failed_commands", "completed_commands"}

func (t *Tools) observe(ctx context.Context, client string, raw json.RawMessage) (any, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	switch a.What {
	case "command_result":
		if a.Mode != "" {
			return t.readOutput(ctx, a.CorrelationID, a.Raw)
		}
		return t.commandResult(ctx, a)
	case "pending_commands":
		l := t.d.Tracker.List(client)
		return map[string]any{
			"pending":   listView(l.Pending, now),
			"completed": listView(l.Completed, now),
			"failed":    listView(l.Failed, now),
		}, nil
	case "failed_commands":
		l := t.d.Tracker.List(client)
		return map[string]any{"failed": listView(l.Failed, now), "count": len(l.Failed)}, nil
	case "completed_commands":
		return t.completedCommands(ctx, client, a)
	}
	return nil, unknownChoice("what", a.What, observeModes)
}

// commandResult returns one command's state, waiting up to wait_ms for it to
// finish. ann_ (user-driven) commands wait 55 s by default (seed 004).
func (t *Tools) commandResult(ctx context.Context, a args) (any, error) {
	if a.CorrelationID == "" {
		return nil, mcp.Errorf("invalid_arguments", "pass the correlation_id that interact returned", "\"correlation_id\" is required for command_result")
	}
	def := time.Duration(0)
	if strings.HasPrefix(a.CorrelationID, "ann_") {
		def = AnnotationWait
	}
	wait, err := waitArg(a.WaitMS, def, MaxWait)
	if err != nil {
		return nil, err
	}
	var c tracker.Command
	if wait > 0 {
		wctx, cancel := withWait(ctx, wait)
		c, err = t.d.Tracker.Wait(wctx, a.CorrelationID)
		cancel()
		if err != nil && !errors.Is(err, tracker.ErrUnknownCommand) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			err = nil // the wait ended; report the command as it stands
		}
	} else {
		c, err = t.d.Tracker.Result(a.CorrelationID)
	}
	if errors.Is(err, tracker.ErrUnknownCommand) {
		return nil, mcp.Errorf("unknown_correlation_id",
			"check the id; finished results are kept for a limited time, and observe({what:\"failed_commands\"}) lists expired ones",
			"%v", err)
	}
	if err != nil {
		return nil, err
	}
	return resultView(c, time.Now()), nil
}

// completedCommands is "wait for any" (seed 001's wait_for_tool_output).
func (t *Tools) completedCommands(ctx context.Context, client string, a args) (any, error) {
	wait, err := waitArg(a.WaitMS, 0, MaxWait)
	if err != nil {
		return nil, err
	}
	wctx, cancel := withWait(ctx, wait)
	done, err := t.d.Tracker.WaitAny(wctx, client)
	cancel()
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	running, _ := t.d.Tracker.Unread(client)
	return map[string]any{
		"completed": listView(done, time.Now()),
		"running":   len(running),
	}, nil
}
