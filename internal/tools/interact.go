package tools

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

var interactActions = []string{"execute_js", "cancel"}

func (t *Tools) interact(ctx context.Context, client string, raw json.RawMessage) (any, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "execute_js":
		return t.executeJS(ctx, client, a)
	case "cancel":
		return t.cancel(client, a)
	}
	return nil, unknownChoice("action", a.Action, interactActions)
}

func (t *Tools) executeJS(ctx context.Context, client string, a args) (any, error) {
	if a.Script == "" {
		return nil, mcp.Errorf("invalid_arguments", "pass the JavaScript to run, e.g. {action:\"execute_js\", script:\"document.title\"}", "\"script\" is required for execute_js")
	}
	var timeout time.Duration
	if a.TimeoutMS != nil {
		if *a.TimeoutMS < 1 || time.Duration(*a.TimeoutMS)*time.Millisecond > MaxTimeout {
			return nil, mcp.Errorf("invalid_arguments", "use 1 to 600000 ms", "timeout_ms %d is out of range", *a.TimeoutMS)
		}
		timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
	}
	wait, err := waitArg(a.WaitMS, t.d.InlineWait, MaxWait)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"script": a.Script}
	if a.TabID != nil {
		params["tab_id"] = *a.TabID
	}
	if timeout > 0 {
		params["timeout_ms"] = timeout.Milliseconds()
	}
	p, _ := json.Marshal(params)
	return t.submit(ctx, tracker.Spec{Client: client, Prefix: "exec", Action: "execute_js", Params: p, Timeout: timeout}, wait)
}

// submit queues spec and, with a wait, returns its result inline when it
// finishes in time (seed 001's time-triggered async); otherwise the handle.
func (t *Tools) submit(ctx context.Context, spec tracker.Spec, wait time.Duration) (any, error) {
	c, err := t.d.Tracker.Submit(spec)
	if errors.Is(err, tracker.ErrQueueFull) {
		return nil, mcp.Errorf("queue_full",
			"wait for running commands with observe({what:\"completed_commands\", wait_ms:10000}) or cancel some with interact({action:\"cancel\", correlation_id}), then retry",
			"%v", err)
	}
	if err != nil {
		return nil, err
	}
	t.d.Log.Debug().Str("correlation_id", c.ID).Str("client", spec.Client).Str("action", spec.Action).Msg("command queued")
	if wait > 0 {
		wctx, cancel := withWait(ctx, wait)
		done, werr := t.d.Tracker.Wait(wctx, c.ID)
		cancel()
		if werr == nil {
			return resultView(done, time.Now()), nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if done.ID != "" {
			c = done
		}
	}
	return queuedView(c, t.d.Tracker.Presence().Connected), nil
}

func (t *Tools) cancel(client string, a args) (any, error) {
	if a.CorrelationID == "" {
		return nil, mcp.Errorf("invalid_arguments", "pass the correlation_id that interact returned", "\"correlation_id\" is required for cancel")
	}
	c, err := t.d.Tracker.Cancel(client, a.CorrelationID)
	switch {
	case errors.Is(err, tracker.ErrFinal):
		return nil, mcp.Errorf("already_finished", "read its result with observe({what:\"command_result\", correlation_id})", "%v", err)
	case errors.Is(err, tracker.ErrUnknownCommand):
		return nil, mcp.Errorf("unknown_correlation_id", "list your commands with observe({what:\"pending_commands\"})", "%v", err)
	case err != nil:
		return nil, err
	}
	v := map[string]any{"status": "cancelled", "correlation_id": c.ID}
	if c.Delivered {
		v["message"] = "Cancelled. The extension had already received it, so the browser may still finish running it; its result will be ignored."
	} else {
		v["message"] = "Cancelled before any extension received it; it will not run."
	}
	return v, nil
}
