package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// interact acts in the browser. Its actions, in tools/list order, are
// declared by family: interact_script.go, interact_tabs.go, interact_dom.go, interact_moves.go,
// interact_dialog.go, interact_upload.go, interact_screenshot.go, interact_commands.go.
var interact = tool{
	name:  "interact",
	key:   "action",
	title: "Act in the browser",
	preamble: `Act in the user's browser. Async: returns {status:"queued", correlation_id};
wait with observe({what:"command_result", correlation_id, wait_ms:10000}), or pass wait_ms for the result inline.
Actions on a page take tab_id? (default: the last tab you used; navigate, close_tab: a tab you opened); another agent's tab needs force:true.
A missing or disabled target is awaited up to timeout_ms-1.5s (8.5 s), only 1 s once the page is idle unless timeout_ms>10000.`,
	label:       "Actions",
	annotations: protocol.ToolAnnotations{ReadOnlyHint: boolp(false), DestructiveHint: boolp(true), IdempotentHint: boolp(false), OpenWorldHint: boolp(true)},
	tasks:       true,
	families:    []func() []action{scriptActions, tabActions, domActions, moveActions, dialogActions, uploadActions, screenshotActions, drawActions, commandActions},
}

// browserArgs are the arguments every browser action takes besides its own.
type browserArgs struct {
	TimeoutMS *int64 `json:"timeout_ms" min:"1" max:"600000" desc:"browser deadline (default 10000)"`
	WaitMS    *int64 `json:"wait_ms" min:"0" max:"55000" desc:"inline result if done within this (default 0)"`
}

// browserArgsOf reads the browserArgs of a call from its arguments' members,
// which decodeArgs has checked (bounds; no name but the ones declared). A
// wrong type is worded as decoding the object words it: the first wrong
// argument, by name.
func browserArgsOf(in *arguments) (browserArgs, error) {
	var b browserArgs
	if in.member("timeout_ms", &b.TimeoutMS) != nil || in.member("wait_ms", &b.WaitMS) != nil {
		return decode[browserArgs](in.raw)
	}
	return b, nil
}

// browser declares a browser action of interact: A is its argument struct
// (a checker when it checks itself) and also the params the extension gets,
// unless A has a params method. The command is queued with the given id
// prefix; the call returns the queued handle, or the result inline when it
// finishes within wait_ms.
func browser[A any](name, prefix, summary string) action {
	fields := append(fieldsOf[A](), fieldsOf[struct {
		browserArgs `list:"-"`
	}]()...)
	return action{
		Action:  toolpolicy.Action{Tool: "interact", Name: name, Prefix: prefix, BrowserBound: true, MaxWait: MaxWait},
		summary: summary,
		fields:  fields,
		args:    slices.Clone(fields),
		sent:    reflect.TypeFor[A](),
		parse:   parseAs[A],
		run: func(t *Tools, ctx context.Context, act *action, client string, in *arguments) (any, error) {
			p, err := act.parse(act, in)
			if err != nil {
				return nil, err
			}
			return t.submitBrowser(ctx, act, client, in, p)
		},
	}
}

// submitBrowser is the one path of every browser action once its
// arguments are checked (decodeArgs) and turned into the extension's params
// p, of type act.sent: read the common arguments, queue the command, wait
// as asked.
func (t *Tools) submitBrowser(ctx context.Context, act *action, client string, in *arguments, p any) (any, error) {
	b, err := browserArgsOf(in)
	if err != nil {
		return nil, err
	}
	var timeout time.Duration
	if b.TimeoutMS != nil {
		timeout = time.Duration(*b.TimeoutMS) * time.Millisecond
	}
	wait, err := waitArg(b.WaitMS, t.d.InlineWait, MaxWait)
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return t.submit(ctx, tracker.Spec{Client: client, Prefix: act.Prefix, Action: act.Name, Params: enc, Timeout: timeout, External: act.UserDriven}, wait, false)
}

// submit queues spec and, with a wait, returns its result inline when it
// finishes in time (seed 001's time-triggered async); otherwise the handle.
func (t *Tools) submit(ctx context.Context, spec tracker.Spec, wait time.Duration, verbose bool) (any, error) {
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
	t.agent.note(spec, c)
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		stop := t.reportProgress(ctx, t.commandProgress(c.ID))
		done, werr := t.d.Tracker.Wait(wctx, spec.Client, c.ID)
		stop()
		cancel()
		if werr == nil {
			return t.commandView(done, time.Now(), verbose), nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if done.ID != "" {
			c = done
		}
	}
	v := queuedViewOf(c, t.d.Tracker.Presence().Connected)
	if v.Warning == "" {
		v.Warning = t.extensionSkew() // an argument it does not know is ignored, not refused
	}
	return v, nil
}
