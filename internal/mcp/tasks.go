package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// Tasks: a tool call that starts a long-running command (a browser command
// answered with a correlation id) becomes a task for a client that can
// follow one, the Tasks extension of 2026-07-28. The task's id is the
// command's id; its result is the result of the tool call TaskSource names
// (gasoline's observe command_result), so that a task and the observe path
// read one result one way.

// TaskSource tells the state of the commands tool calls start. It must be
// safe for concurrent use.
type TaskSource interface {
	// State returns the state of command id as client sees it. An id that
	// client does not own, or that is no longer kept, is ErrUnknownTask
	// (wrapped, with what to do next in the message).
	State(client, id string) (TaskState, error)
	// ResultCall is the tool call whose result is command id's result.
	ResultCall(id string) (tool string, args json.RawMessage)
	// CancelCall is the tool call that cancels command id.
	CancelCall(id string) (tool string, args json.RawMessage)
}

// TaskState is a command's state as a task.
type TaskState struct {
	Status    string // protocol.TaskWorking, TaskCompleted or TaskCancelled
	Message   string // what it is doing or waiting for, or how it ended
	CreatedAt time.Time
	UpdatedAt time.Time
	// TTL is how long after CreatedAt the task may be forgotten, as the
	// timers that apply to it now tell; 0 for no limit.
	TTL time.Duration
	// PollInterval is how often a client should ask.
	PollInterval time.Duration
}

// ErrUnknownTask is wrapped by TaskSource.State for an id it does not know.
var ErrUnknownTask = errors.New("unknown task")

// SetTasks installs src: tool calls of clients that declare the Tasks
// extension become tasks when they start a command, and tasks/get and
// tasks/cancel are served. Call it before the first Handle.
func (s *Server) SetTasks(src TaskSource) { s.tasks = src }

// taskHandle is what a tool result that started a command says about it.
type taskHandle struct {
	Status        string `json:"status"`
	CorrelationID string `json:"correlation_id"`
}

// running reports whether the handle is one of a command still running.
func (h taskHandle) running() bool {
	switch h.Status {
	case "queued", "pending", "waiting_for_user":
		return h.CorrelationID != ""
	}
	return false
}

// asTask turns the tool result out into a task when the request's client
// declared the Tasks extension and out is the handle of a command still
// running; otherwise it reports false and the result goes out as it is.
func (s *Server) asTask(ctx context.Context, client string, out any) (json.RawMessage, bool) {
	e, _ := ctx.Value(eraKey{}).(era)
	if !e.tasks || s.tasks == nil {
		return nil, false
	}
	body, err := marshal(out)
	var h taskHandle
	if err != nil || json.Unmarshal(body, &h) != nil || !h.running() {
		return nil, false
	}
	st, err := s.tasks.State(client, h.CorrelationID)
	if err != nil {
		return nil, false
	}
	b, _ := json.Marshal(struct {
		ResultType string `json:"resultType"`
		protocol.Task
	}{protocol.ResultTask, taskOf(h.CorrelationID, st)})
	return b, true
}

// taskOf is the wire form of a task.
func taskOf(id string, st TaskState) protocol.Task {
	t := protocol.Task{TaskID: id, Status: st.Status, StatusMessage: st.Message,
		CreatedAt: st.CreatedAt.UTC().Format(time.RFC3339Nano), LastUpdatedAt: st.UpdatedAt.UTC().Format(time.RFC3339Nano),
		PollIntervalMS: st.PollInterval.Milliseconds()}
	if st.TTL > 0 {
		ttl := st.TTL.Milliseconds()
		t.TTLMS = &ttl
	}
	return t
}

// tasksMethod answers tasks/get and tasks/cancel, or reports false when
// method is not one of them or no TaskSource is installed.
func (s *Server) tasksMethod(ctx context.Context, client string, req *protocol.Request) (json.RawMessage, *protocol.WireError, bool) {
	if s.tasks == nil || (req.Method != protocol.MethodTasksGet && req.Method != protocol.MethodTasksCancel) {
		return nil, nil, false
	}
	var p protocol.TaskParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid %s params: \"taskId\" (string) is required", req.Method), true
	}
	st, err := s.tasks.State(client, p.TaskID)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err), true
	}
	if req.Method == protocol.MethodTasksCancel {
		if st.Status == protocol.TaskWorking {
			tool, args := s.tasks.CancelCall(p.TaskID)
			s.callTool(ctx, client, tool, args)
		}
		return json.RawMessage(`{}`), nil, true
	}
	var result json.RawMessage
	if st.Status == protocol.TaskCompleted {
		tool, args := s.tasks.ResultCall(p.TaskID)
		result = s.callTool(ctx, client, tool, args)
		if isModern(ctx) {
			result = withResultType(result, protocol.ResultComplete)
		}
	}
	b, _ := json.Marshal(struct {
		protocol.Task
		Result json.RawMessage `json:"result,omitempty"`
	}{taskOf(p.TaskID, st), result})
	return b, nil, true
}
