package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// Tasks: a tool call that starts a long-running command (a browser command
// answered with a correlation id) becomes a task for a client that can
// follow one: a client of 2026-07-28 that declares the Tasks extension, or
// a 2025-11-25 client that augments the call with a task. The task's id is
// the command's id; its result is the result of the tool call TaskSource
// names (gasoline's observe command_result), so that a task and the observe
// path read one result one way.

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
	// Wait blocks until command id of client has ended, or ctx ends.
	Wait(ctx context.Context, client, id string) error
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
	// Failed is set on a completed task whose command did not complete (an
	// error, a timeout, expiry): 2025-11-25 calls such a task failed and
	// marks its result isError; the Tasks extension calls it completed,
	// the failure in its result.
	Failed bool
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
	h, ok := handleOf(out)
	if !ok || !h.running() {
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

// handleOf reads what the tool result out says about a command.
func handleOf(out any) (taskHandle, bool) {
	var h taskHandle
	body, err := marshal(out)
	if err != nil || json.Unmarshal(body, &h) != nil || h.CorrelationID == "" {
		return h, false
	}
	return h, true
}

// legacyTask answers a 2025-11-25 tools/call augmented with a task, which
// must be answered with a task: the command the call started, or, for a
// call that needs none or ended at once, a task that holds its result.
func (s *Server) legacyTask(client, tool string, out any, err error) json.RawMessage {
	var id string
	var st TaskState
	if h, ok := handleOf(out); ok && err == nil {
		if state, serr := s.tasks.State(client, h.CorrelationID); serr == nil {
			id, st = h.CorrelationID, state
		}
	}
	if id == "" {
		res := s.toolResult(client, tool, out, err)
		id, st = s.done.add(client, res)
	}
	b, _ := json.Marshal(struct {
		Task protocol.LegacyTask `json:"task"`
	}{legacyTaskOf(id, st)})
	return b
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

// legacyTaskOf is st as 2025-11-25 has it: a command that did not complete
// is a failed task.
func legacyTaskOf(id string, st TaskState) protocol.LegacyTask {
	t := taskOf(id, st).Legacy()
	if st.Failed && t.Status == protocol.TaskCompleted {
		t.Status = protocol.TaskFailed
	}
	return t
}

// tasksMethod answers tasks/get and tasks/cancel (both eras) and
// tasks/result (2025-11-25), or reports false when method is not one of
// them or no TaskSource is installed.
func (s *Server) tasksMethod(ctx context.Context, client string, req *protocol.Request) (json.RawMessage, *protocol.WireError, bool) {
	switch req.Method {
	case protocol.MethodTasksGet, protocol.MethodTasksCancel, protocol.MethodTasksResult, protocol.MethodTasksUpdate:
	default:
		return nil, nil, false
	}
	if s.tasks == nil {
		return nil, nil, false
	}
	e, _ := ctx.Value(eraKey{}).(era)
	modern := e.modern
	switch {
	case modern && !e.tasks:
		return nil, missingTasksCapability(req.Method), true
	case !modern && req.Method == protocol.MethodTasksUpdate:
		return nil, nil, false // the Tasks extension's only
	}
	var p protocol.TaskParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid %s params: \"taskId\" (string) is required", req.Method), true
	}
	if res, st, ok := s.done.get(client, p.TaskID); ok {
		return s.doneTask(req.Method, p.TaskID, st, res)
	}
	st, err := s.tasks.State(client, p.TaskID)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err), true
	}
	switch {
	case req.Method == protocol.MethodTasksUpdate:
		// No gasoline task asks for input: responses to requests it never
		// made are ignored, as the extension says.
		return json.RawMessage(`{}`), nil, true
	case req.Method == protocol.MethodTasksCancel:
		if st.Status != protocol.TaskWorking {
			if modern {
				return json.RawMessage(`{}`), nil, true
			}
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "task %s is %s already; only a working task can be cancelled", p.TaskID, st.Status), true
		}
		tool, args := s.tasks.CancelCall(p.TaskID)
		s.callTool(ctx, client, tool, args)
		if modern {
			return json.RawMessage(`{}`), nil, true
		}
		if st, err = s.tasks.State(client, p.TaskID); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err), true
		}
		b, _ := json.Marshal(legacyTaskOf(p.TaskID, st))
		return b, nil, true
	case req.Method == protocol.MethodTasksResult:
		wctx, cancel := context.WithTimeout(ctx, MaxTaskResultWait)
		err := s.tasks.Wait(wctx, client, p.TaskID)
		cancel()
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInternalError, "task %s is still working after %s (%v); call tasks/result again, or poll tasks/get", p.TaskID, MaxTaskResultWait, err), true
		}
		end, endErr := s.tasks.State(client, p.TaskID)
		if st.Status == protocol.TaskWorking && endErr == nil {
			// The status notification, where the transport carries one
			// (an SSE stream): the task ended during this request.
			Notify(ctx, protocol.MethodTasksStatusNotice, legacyTaskOf(p.TaskID, end))
		}
		tool, args := s.tasks.ResultCall(p.TaskID)
		result := s.callTool(ctx, client, tool, args)
		if endErr == nil && end.Failed {
			// A failed task's result is an error (2025-11-25).
			result = AppendField(result, "isError", json.RawMessage("true"))
		}
		return relatedTask(result, p.TaskID), nil, true
	case !modern:
		b, _ := json.Marshal(legacyTaskOf(p.TaskID, st))
		return b, nil, true
	}
	var result json.RawMessage
	if st.Status == protocol.TaskCompleted {
		tool, args := s.tasks.ResultCall(p.TaskID)
		result = withResultType(s.callTool(ctx, client, tool, args), protocol.ResultComplete)
	}
	b, _ := json.Marshal(struct {
		protocol.Task
		Result json.RawMessage `json:"result,omitempty"`
	}{taskOf(p.TaskID, st), result})
	return b, nil, true
}

// doneTask answers the 2025-11-25 task methods for a task that held its
// result from the start.
func (s *Server) doneTask(method, id string, st TaskState, res json.RawMessage) (json.RawMessage, *protocol.WireError, bool) {
	switch method {
	case protocol.MethodTasksCancel:
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "task %s is %s already; only a working task can be cancelled", id, st.Status), true
	case protocol.MethodTasksResult:
		return relatedTask(res, id), nil, true
	}
	b, _ := json.Marshal(legacyTaskOf(id, st))
	return b, nil, true
}

// relatedTask adds 2025-11-25's related-task _meta to the result of task id.
func relatedTask(result json.RawMessage, id string) json.RawMessage {
	meta, _ := json.Marshal(map[string]any{protocol.MetaRelatedTask: map[string]string{"taskId": id}})
	return AppendField(result, "_meta", meta)
}

// MaxTaskResultWait bounds how long tasks/result holds a request for a task
// still working: below the bridge's ceiling for one call, so the client
// hears why rather than a timeout.
const MaxTaskResultWait = 55 * time.Second

// doneTTL is how long a task that held its result from the start is kept,
// and maxDone how many are.
const (
	doneTTL = time.Minute
	maxDone = 100
)

// doneTasks holds the results of 2025-11-25 task-augmented calls that ended
// at once. It is safe for concurrent use; its zero value is ready.
type doneTasks struct {
	mu    sync.Mutex
	tasks map[string]doneTask // guarded by mu
	order []string            // guarded by mu; ids oldest first
}

type doneTask struct {
	client string
	result json.RawMessage
	state  TaskState
}

// add keeps result for client and returns its new task.
func (d *doneTasks) add(client string, result json.RawMessage) (string, TaskState) {
	var b [12]byte
	rand.Read(b[:])
	id := "res_" + hex.EncodeToString(b[:])
	now := time.Now()
	st := TaskState{Status: protocol.TaskCompleted, Message: "finished at once", CreatedAt: now, UpdatedAt: now, TTL: doneTTL}
	if bytes.HasSuffix(result, []byte(`"isError":true}`)) {
		st.Status, st.Message = protocol.TaskFailed, "the tool call failed; tasks/result has its error"
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tasks == nil {
		d.tasks = map[string]doneTask{}
	}
	for len(d.order) > 0 && (len(d.order) >= maxDone || now.Sub(d.tasks[d.order[0]].state.CreatedAt) > doneTTL) {
		delete(d.tasks, d.order[0])
		d.order = d.order[1:]
	}
	d.tasks[id] = doneTask{client: client, result: result, state: st}
	d.order = append(d.order, id)
	return id, st
}

// get returns client's task id, if it is kept.
func (d *doneTasks) get(client, id string) (json.RawMessage, TaskState, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.tasks[id]
	if !ok || t.client != client || time.Since(t.state.CreatedAt) > doneTTL {
		return nil, TaskState{}, false
	}
	return t.result, t.state, true
}
