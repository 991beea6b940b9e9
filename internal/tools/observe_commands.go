package tools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// commandModes read the agent's commands: one result, or the lists.
func commandModes() []action {
	return []action{commandResult(), pendingCommands(), failedCommands(), completedCommands()}
}

func commandResult() action {
	a := handler("observe", "command_result",
		`status and result; wait_ms blocks until it ends. `+
			`A result over ~10k tokens is a handle: read it with mode "slice" or "extract" (verbatim snippets with offsets); `+
			`an image handle returns the image (region {x,y,width,height}, max_dim)`,
		(*Tools).commandResult)
	a.Idempotent, a.MaxWait, a.UserDrivenWait = true, MaxWait, UserDrivenWait
	return a
}

func pendingCommands() action {
	a := handler("observe", "pending_commands", "your running, completed and failed commands", (*Tools).pendingCommands)
	a.Idempotent = true
	return a
}

func failedCommands() action {
	a := handler("observe", "failed_commands", "recent failures with reason and hint", (*Tools).failedCommands)
	a.Idempotent = true
	return a
}

// completedCommands hands each finished command out once, so it is not
// idempotent: a replay would lose what the first call consumed.
func completedCommands() action {
	a := handler("observe", "completed_commands", "wait for any of yours to finish; lists the newly finished", (*Tools).completedCommands)
	a.MaxWait = MaxWait
	return a
}

// resultArgs are the arguments of command_result (and query_status).
type resultArgs struct {
	CorrelationID string `json:"correlation_id" required:"true" desc:"the id interact returned"`
	waitFor
	readArgs  `list:"mode?"`
	imageArgs `list:"-"`
	verbosity `list:"-"`
}

// verbosity asks command_result for the detail left out of results by
// default (interact's inline results are lean; read them again here for it).
type verbosity struct {
	Verbose bool `json:"verbose"` // self-explanatory: no description, for the tools/list budget
}

// waitFor is the wait of the modes that block for a finished command.
type waitFor struct {
	WaitMS *int64 `json:"wait_ms" min:"0" max:"55000" desc:"block up to this long for a result or new entry (default 0; 55000 for ann_ ids)"`
}

// noArgs are the arguments of a mode that takes none.
type noArgs struct{}

// commandResult returns one command's state, waiting up to wait_ms for it
// to finish; with a mode it reads the command's output instead. A command
// that waits for the user (draw mode) is waited for UserDrivenWait by
// default (seed 004).
func (t *Tools) commandResult(ctx context.Context, client string, a resultArgs) (any, error) {
	if a.Mode != "" && a.imageArgs.wanted() {
		return nil, mcp.Errorf("invalid_arguments", "drop mode to see an image, or region and max_dim to read text", "region and max_dim show a stored image; mode reads text")
	}
	if a.Mode != "" {
		return t.readOutput(ctx, client, a.CorrelationID, a.readArgs)
	}
	if a.imageArgs.wanted() || annotate.IsCropHandle(a.CorrelationID) {
		return t.storedImage(client, a.CorrelationID, a.imageArgs)
	}
	if strings.HasSuffix(a.CorrelationID, result.ChangedSuffix) {
		// The whole list of what an action changed is an output, not a
		// command: its handle says how to read it.
		h, err := t.d.Results.Handle(client, a.CorrelationID)
		if err != nil {
			return nil, outputError(a.CorrelationID, err)
		}
		return storedViewOf(a.CorrelationID, "what the action changed", &result.Stored{Handle: h}), nil
	}
	def := time.Duration(0)
	c, err := t.d.Tracker.Get(a.CorrelationID)
	switch {
	case err == nil && c.Client != tracker.ClientName(client):
		return nil, errUnknownID(a.CorrelationID)
	case err == nil && c.External:
		def = t.d.UserDrivenWait
	}
	wait, err := waitArg(a.WaitMS, def, MaxWait)
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		stop := t.reportProgress(ctx, t.commandProgress(a.CorrelationID))
		c, err = t.d.Tracker.Wait(wctx, client, a.CorrelationID)
		stop()
		cancel()
		if err != nil && !errors.Is(err, tracker.ErrUnknownCommand) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			err = nil // the wait ended; report the command as it stands
		}
	} else {
		c, err = t.d.Tracker.Result(client, a.CorrelationID)
	}
	if errors.Is(err, tracker.ErrUnknownCommand) {
		return nil, errUnknownID(a.CorrelationID)
	}
	if err != nil {
		return nil, err
	}
	if c.External && c.State == tracker.StateComplete {
		t.d.Annotations.MarkRead(c.ID)
	}
	return t.commandView(c, time.Now(), a.Verbose), nil
}

// pendingView is pending_commands' answer.
type pendingView struct {
	Completed []listEntry `json:"completed"`
	Failed    []listEntry `json:"failed"`
	Pending   []listEntry `json:"pending"`
}

func (t *Tools) pendingCommands(_ context.Context, client string, _ noArgs) (*pendingView, error) {
	l, now := t.d.Tracker.List(client), time.Now()
	return &pendingView{Pending: listView(l.Pending, now), Completed: listView(l.Completed, now), Failed: listView(l.Failed, now)}, nil
}

// failedView is failed_commands' answer.
type failedView struct {
	Count  int         `json:"count"`
	Failed []listEntry `json:"failed"`
}

func (t *Tools) failedCommands(_ context.Context, client string, _ noArgs) (*failedView, error) {
	l := t.d.Tracker.List(client)
	return &failedView{Failed: listView(l.Failed, time.Now()), Count: len(l.Failed)}, nil
}

// completedView is completed_commands' answer.
type completedView struct {
	Completed []listEntry `json:"completed"`
	Running   int         `json:"running"`
}

// completedCommands is "wait for any" (seed 001's wait_for_tool_output).
func (t *Tools) completedCommands(ctx context.Context, client string, a waitFor) (*completedView, error) {
	wait, err := waitArg(a.WaitMS, 0, MaxWait)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	stop := t.reportProgress(ctx, t.anyProgress(client))
	done, err := t.d.Tracker.WaitAny(wctx, client)
	stop()
	cancel()
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	running, _ := t.d.Tracker.Unread(client)
	return &completedView{Completed: listView(done, time.Now()), Running: len(running)}, nil
}
