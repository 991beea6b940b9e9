// Package task presents the tracker's commands as MCP tasks: their state,
// a status message that says what each is waiting for, and a time to live
// and polling interval taken from the tracker's own timers.
package task

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Polling intervals suggested to clients: a browser command usually ends
// within a second; a draw-mode session waits for a person.
const (
	commandPoll = 500 * time.Millisecond
	userPoll    = 5 * time.Second
)

// Source is the mcp.TaskSource of a tracker: a task is a command, its id
// the correlation id. Its zero value is not usable; create it with New. It
// is safe for concurrent use.
type Source struct {
	trk  *tracker.Tracker
	opts tracker.Options
}

// New returns the tasks of trk's commands.
func New(trk *tracker.Tracker) *Source { return &Source{trk: trk, opts: trk.Options()} }

// ResultCall is observe command_result: a task's result is exactly what the
// observe path gives.
func (s *Source) ResultCall(id string) (string, json.RawMessage) {
	args, _ := json.Marshal(map[string]string{"what": "command_result", "correlation_id": id})
	return "observe", args
}

// CancelCall is interact cancel.
func (s *Source) CancelCall(id string) (string, json.RawMessage) {
	args, _ := json.Marshal(map[string]string{"action": "cancel", "correlation_id": id})
	return "interact", args
}

// State returns command id as a task of client. Another client's command is
// unknown to client, as it is to observe.
func (s *Source) State(client, id string) (mcp.TaskState, error) {
	c, err := s.trk.Get(id)
	if err != nil || c.Client != tracker.ClientName(client) {
		return mcp.TaskState{}, fmt.Errorf("%w %q: no command of yours has this id (results are kept %s after they finish); check the taskId, or call the tool again",
			mcp.ErrUnknownTask, id, s.opts.ResultTTL)
	}
	return s.stateOf(c), nil
}

// stateOf is c as a task.
func (s *Source) stateOf(c tracker.Command) mcp.TaskState {
	st := mcp.TaskState{Status: protocol.TaskWorking, CreatedAt: c.CreatedAt, UpdatedAt: c.CreatedAt, PollInterval: commandPoll}
	if c.DeliveredAt != nil {
		st.UpdatedAt = *c.DeliveredAt
	}
	o := s.opts
	exec := c.Timeout
	if exec <= 0 {
		exec = o.ExecTimeout
	}
	switch {
	case c.State.Terminal():
		st.UpdatedAt = *c.FinishedAt
		st.TTL = c.FinishedAt.Sub(c.CreatedAt) + o.ResultTTL
		st.Status, st.Message = protocol.TaskCompleted, "finished: "+string(c.State)
		switch c.State {
		case tracker.StateCancelled:
			st.Status = protocol.TaskCancelled
		case tracker.StateComplete:
		default: // error, timeout, expired
			st.Failed = true
		}
		if c.Reason != "" {
			st.Message += " (" + c.Reason + ")"
		}
		if c.Error != "" {
			// The error text may be the page's own (a thrown message): it
			// reaches the agent fenced through the result, never here.
			st.Message += ": the task's result has the error"
		}
	case c.External:
		st.PollInterval = userPoll
		st.TTL = o.ExternalTTL + o.ResultTTL
		st.Message = fmt.Sprintf("waiting for the user to mark the page and press Done (the session ends after %s)", o.ExternalTTL)
	case !c.Delivered:
		st.TTL = o.DispatchTimeout + o.AckTimeout + exec + o.ResultTTL
		st.Message = fmt.Sprintf("queued: waiting for the browser extension to take it (extension_no_response after %s)", o.DispatchTimeout)
	default:
		st.TTL = c.DeliveredAt.Sub(c.CreatedAt) + o.AckTimeout + exec + o.ResultTTL
		where := "in the browser"
		if tab := tabOf(c.Params); tab != 0 {
			where = fmt.Sprintf("in tab %d", tab)
		}
		if c.WaitingFor != "" {
			st.Message = fmt.Sprintf("waiting for the user to allow %s %s (origin_not_allowed if denied or unanswered within %s)", c.WaitingFor, where, tracker.UserAnswerWindow)
		} else if c.Acked {
			st.Message = fmt.Sprintf("running %s (execution_timeout after %s)", where, exec)
		} else {
			st.Message = fmt.Sprintf("delivered to the extension, starting %s", where)
		}
	}
	return st
}

// tabOf reads the tab a command targets from its parameters; 0 when it
// names none (the client's current tab).
func tabOf(params json.RawMessage) int64 {
	var p struct {
		TabID int64 `json:"tab_id"`
	}
	json.Unmarshal(params, &p)
	return p.TabID
}

// Wait blocks until client's command id has ended, or ctx ends.
func (s *Source) Wait(ctx context.Context, client, id string) error {
	_, err := s.trk.Wait(ctx, client, id)
	return err
}

// List returns the ids of client's commands the tracker keeps: running,
// complete, and failed (the failed ring), each group oldest first.
func (s *Source) List(client string) []string {
	l := s.trk.List(client)
	ids := make([]string, 0, len(l.Pending)+len(l.Completed)+len(l.Failed))
	seen := map[string]bool{}
	for _, g := range [][]tracker.Command{l.Pending, l.Completed, l.Failed} {
		for _, c := range g {
			if !seen[c.ID] {
				seen[c.ID] = true
				ids = append(ids, c.ID)
			}
		}
	}
	return ids
}
