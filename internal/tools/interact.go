package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// browserAction describes one browser-bound interact action: its
// correlation id prefix and how its arguments become extension params.
type browserAction struct {
	prefix string
	params func(a args) (map[string]any, error)
}

var browserActions = map[string]browserAction{
	"execute_js": {"exec", func(a args) (map[string]any, error) {
		if a.Script == "" {
			return nil, mcp.Errorf("invalid_arguments", "pass the JavaScript to run, e.g. {action:\"execute_js\", script:\"document.title\"}", "\"script\" is required for execute_js")
		}
		p := map[string]any{"script": a.Script}
		addTab(p, a.TabID)
		return p, nil
	}},
	"navigate": {"nav", func(a args) (map[string]any, error) {
		if err := checkURL(a.URL, true); err != nil {
			return nil, err
		}
		p := map[string]any{"url": a.URL}
		addTab(p, a.TabID)
		return p, nil
	}},
	"new_tab": {"tab", func(a args) (map[string]any, error) {
		p := map[string]any{}
		if a.URL != "" {
			if err := checkURL(a.URL, false); err != nil {
				return nil, err
			}
			p["url"] = a.URL
		}
		if a.Active != nil {
			p["active"] = *a.Active
		}
		return p, nil
	}},
	"switch_tab": {"tab", func(a args) (map[string]any, error) {
		if a.TabID == nil {
			return nil, mcp.Errorf("invalid_arguments", "list tabs with execute_js or use the tab_id new_tab returned", "\"tab_id\" is required for switch_tab")
		}
		return map[string]any{"tab_id": *a.TabID}, nil
	}},
	"close_tab": {"tab", func(a args) (map[string]any, error) {
		p := map[string]any{}
		addTab(p, a.TabID)
		return p, nil
	}},
}

var interactActions = []string{"execute_js", "navigate", "new_tab", "switch_tab", "close_tab", "cancel"}

func addTab(p map[string]any, tab *int64) {
	if tab != nil {
		p["tab_id"] = *tab
	}
}

// checkURL accepts the URLs an agent may open: http(s), file and about:blank.
func checkURL(raw string, required bool) error {
	if raw == "" {
		if required {
			return mcp.Errorf("invalid_arguments", "pass the page to open, e.g. {action:\"navigate\", url:\"http://localhost:3000/\"}", "\"url\" is required")
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return mcp.Errorf("invalid_arguments", "pass an absolute URL such as http://localhost:3000/", "invalid url %q: %v", raw, err)
	}
	switch {
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
	case u.Scheme == "file", raw == "about:blank":
	default:
		return mcp.Errorf("invalid_arguments", "use an http(s) or file URL, or about:blank", "unsupported url %q", raw)
	}
	return nil
}

func (t *Tools) interact(ctx context.Context, client string, raw json.RawMessage) (any, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return nil, err
	}
	if a.Action == "cancel" {
		return t.cancel(client, a)
	}
	ba, ok := browserActions[a.Action]
	if !ok {
		return nil, unknownChoice("action", a.Action, interactActions)
	}
	params, err := ba.params(a)
	if err != nil {
		return nil, err
	}
	var timeout time.Duration
	if a.TimeoutMS != nil {
		if *a.TimeoutMS < 1 || time.Duration(*a.TimeoutMS)*time.Millisecond > MaxTimeout {
			return nil, mcp.Errorf("invalid_arguments", "use 1 to 600000 ms", "timeout_ms %d is out of range", *a.TimeoutMS)
		}
		timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
		params["timeout_ms"] = timeout.Milliseconds()
	}
	wait, err := waitArg(a.WaitMS, t.d.InlineWait, MaxWait)
	if err != nil {
		return nil, err
	}
	p, _ := json.Marshal(params)
	return t.submit(ctx, tracker.Spec{Client: client, Prefix: ba.prefix, Action: a.Action, Params: p, Timeout: timeout}, wait)
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
