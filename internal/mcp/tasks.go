package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	// List returns the ids of client's commands still kept, oldest first:
	// every id State knows for client, and no other client's.
	List(client string) []string
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
	return createdTask(false, id, st)
}

// createdTask is the answer to a tools/call that became task id: the
// Tasks extension's CreateTaskResult (modern), or 2025-11-25's.
func createdTask(modern bool, id string, st TaskState) json.RawMessage {
	if modern {
		b, _ := json.Marshal(struct {
			ResultType string `json:"resultType"`
			protocol.Task
		}{protocol.ResultTask, taskOf(id, st)})
		return b
	}
	b, _ := json.Marshal(struct {
		Task protocol.LegacyTask `json:"task"`
	}{legacyTaskOf(id, st)})
	return b
}

// runAsTask starts the call of t with args as a local task of client and
// answers with it at once. The run outlives the request: it keeps the
// request's values but not its cancellation, nor its way to send
// notifications (the request is answered).
func (s *Server) runAsTask(ctx context.Context, client string, t Tool, args json.RawMessage, modern bool) json.RawMessage {
	ctx = context.WithValue(context.WithoutCancel(ctx), senderKey{}, Sender(nil))
	ctx = context.WithValue(ctx, progressKey{}, json.RawMessage(nil))
	id, st := s.done.start(ctx, client, t.Def.Name, func(ctx context.Context) json.RawMessage {
		out, err := t.Handler(ctx, client, args)
		return s.toolResult(client, t.Def.Name, out, err)
	})
	return createdTask(modern, id, st)
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

// tasksMethod answers tasks/get and tasks/cancel (both eras), tasks/result
// and tasks/list (2025-11-25) and tasks/update (the Tasks extension), or
// reports false when method is not one of them or no TaskSource is
// installed.
func (s *Server) tasksMethod(ctx context.Context, client string, req *protocol.Request) (json.RawMessage, *protocol.WireError, bool) {
	switch req.Method {
	case protocol.MethodTasksGet, protocol.MethodTasksCancel, protocol.MethodTasksResult, protocol.MethodTasksUpdate, protocol.MethodTasksList:
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
	case req.Method == protocol.MethodTasksList:
		res, werr := s.tasksList(client, req.Params)
		return res, werr, true
	}
	var p protocol.TaskParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid %s params: \"taskId\" (string) is required", req.Method), true
	}
	r, err := s.lookup(client, p.TaskID)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err), true
	}
	st := r.st
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
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "task %s is %s already; only a working task can be cancelled", p.TaskID, legacyTaskOf(p.TaskID, st).Status), true
		}
		s.cancelTask(ctx, client, r)
		if modern {
			return json.RawMessage(`{}`), nil, true
		}
		if st, err = s.stateOf(client, r); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err), true
		}
		b, _ := json.Marshal(legacyTaskOf(p.TaskID, st))
		return b, nil, true
	case req.Method == protocol.MethodTasksResult:
		wctx, cancel := context.WithTimeout(ctx, MaxTaskResultWait)
		// Each change of status or message while it waits is a status
		// notification, where the transport carries one (an SSE stream, or
		// stdio through the bridge).
		err := s.watch(wctx, client, r, st, func(st TaskState) {
			Notify(ctx, protocol.MethodTasksStatusNotice, legacyTaskOf(p.TaskID, st))
		})
		cancel()
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInternalError, "task %s is still working after %s (%v); call tasks/result again, or poll tasks/get", p.TaskID, MaxTaskResultWait, err), true
		}
		end, endErr := s.stateOf(client, r)
		result := s.resultOf(ctx, client, r)
		if endErr == nil && end.Failed && !bytes.Contains(result, []byte(`"isError":true`)) {
			// A failed task's result is an error (2025-11-25).
			result = AppendField(result, "isError", json.RawMessage("true"))
		}
		return relatedTask(result, p.TaskID), nil, true
	case !modern:
		b, _ := json.Marshal(legacyTaskOf(p.TaskID, st))
		return b, nil, true
	}
	b, _ := json.Marshal(s.detailed(ctx, client, r, st))
	return b, nil, true
}

// detailedTask is the Tasks extension's DetailedTask: the task, and the
// result of a completed one.
type detailedTask struct {
	protocol.Task
	Result json.RawMessage `json:"result,omitempty"`
}

// detailed is task r in state st as tasks/get and notifications/tasks of
// the Tasks extension give it.
func (s *Server) detailed(ctx context.Context, client string, r taskRef, st TaskState) detailedTask {
	d := detailedTask{Task: taskOf(r.id, st)}
	if st.Status == protocol.TaskCompleted {
		d.Result = withResultType(s.resultOf(ctx, client, r), protocol.ResultComplete)
	}
	return d
}

// taskRef is a task a client asked about: a local task or a command.
type taskRef struct {
	id    string
	local *doneTask // nil for a command of the TaskSource
	st    TaskState // its state when looked up
}

// lookup finds client's task id.
func (s *Server) lookup(client, id string) (taskRef, error) {
	if t, st, _, ok := s.done.get(client, id); ok {
		return taskRef{id: id, local: t, st: st}, nil
	}
	st, err := s.tasks.State(client, id)
	if err != nil {
		return taskRef{}, err
	}
	return taskRef{id: id, st: st}, nil
}

// stateOf reads r's state again.
func (s *Server) stateOf(client string, r taskRef) (TaskState, error) {
	if r.local != nil {
		if _, st, _, ok := s.done.get(client, r.id); ok {
			return st, nil
		}
		return TaskState{}, fmt.Errorf("%w %q: it ended more than %s ago and was forgotten; call the tool again", ErrUnknownTask, r.id, doneTTL)
	}
	return s.tasks.State(client, r.id)
}

// waitTask blocks until r has ended, or ctx ends.
func (s *Server) waitTask(ctx context.Context, client string, r taskRef) error {
	if r.local == nil {
		return s.tasks.Wait(ctx, client, r.id)
	}
	select {
	case <-r.local.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// resultOf is the CallToolResult of r, which has ended.
func (s *Server) resultOf(ctx context.Context, client string, r taskRef) json.RawMessage {
	if r.local == nil {
		tool, args := s.tasks.ResultCall(r.id)
		return s.callTool(ctx, client, tool, args)
	}
	_, st, res, _ := s.done.get(client, r.id)
	if res == nil {
		return s.toolResult(client, "", nil, Errorf(st.Status, "call the tool again to run it anew", "the task is %s: %s", st.Status, st.Message))
	}
	return res
}

// cancelTask cancels r, which is working.
func (s *Server) cancelTask(ctx context.Context, client string, r taskRef) {
	if r.local != nil {
		s.done.cancelTask(r.local)
		return
	}
	tool, args := s.tasks.CancelCall(r.id)
	s.callTool(ctx, client, tool, args)
}

// watchTick is how often watch reads a working task again: a command's
// status message changes (delivered, running, waiting for the user)
// without a signal, its end is waited for.
const watchTick = 250 * time.Millisecond

// watch calls emit with every state of r that differs from last in status
// or message, until r has ended (it returns nil) or ctx ends (its error).
func (s *Server) watch(ctx context.Context, client string, r taskRef, last TaskState, emit func(TaskState)) error {
	for {
		st, err := s.stateOf(client, r)
		if err != nil {
			return err
		}
		if st.Status != last.Status || st.Message != last.Message || st.Failed != last.Failed {
			emit(st)
			last = st
		}
		if st.Status != protocol.TaskWorking {
			return nil
		}
		wctx, cancel := context.WithTimeout(ctx, watchTick)
		s.waitTask(wctx, client, r)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// listPage is how many tasks one tasks/list page holds.
const listPage = 50

// tasksList answers 2025-11-25's tasks/list: the calling client's tasks
// only (local ones, then its commands), listPage a page; the cursor is
// opaque to the client.
func (s *Server) tasksList(client string, params json.RawMessage) (json.RawMessage, *protocol.WireError) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid tasks/list params: \"cursor\" is a string from an earlier nextCursor")
	}
	ids := append(s.done.list(client), s.tasks.List(client)...)
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(strings.TrimPrefix(*p.Cursor, "page-"))
		if err != nil || !strings.HasPrefix(*p.Cursor, "page-") || n < 0 {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid tasks/list cursor %q: pass a nextCursor an earlier tasks/list returned, or none for the first page", *p.Cursor)
		}
		start = min(n, len(ids))
	}
	end := min(start+listPage, len(ids))
	out := struct {
		Tasks      []protocol.LegacyTask `json:"tasks"`
		NextCursor string                `json:"nextCursor,omitempty"`
	}{Tasks: []protocol.LegacyTask{}}
	for _, id := range ids[start:end] {
		if r, err := s.lookup(client, id); err == nil {
			out.Tasks = append(out.Tasks, legacyTaskOf(id, r.st))
		}
	}
	if end < len(ids) {
		out.NextCursor = "page-" + strconv.Itoa(end)
	}
	b, _ := json.Marshal(out)
	return b, nil
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
