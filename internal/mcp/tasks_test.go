package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// listTasks is a TaskSource whose commands belong to clients by the prefix
// of their ids ("a-1" is client a's), each working with a message until
// end is called.
type listTasks struct {
	mu    sync.Mutex
	ids   []string
	waits chan struct{}            // signalled on each Wait, when not nil
	msg   map[string]string        // guarded by mu
	ended map[string]chan struct{} // guarded by mu
}

func newListTasks(ids ...string) *listTasks {
	l := &listTasks{ids: ids, msg: map[string]string{}, ended: map[string]chan struct{}{}}
	for _, id := range ids {
		l.msg[id] = "queued"
		l.ended[id] = make(chan struct{})
	}
	return l
}

func (l *listTasks) owns(client, id string) bool { return strings.HasPrefix(id, client+"-") }

func (l *listTasks) State(client, id string) (TaskState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch, ok := l.ended[id]
	if !ok || !l.owns(client, id) {
		return TaskState{}, fmt.Errorf("%w %q", ErrUnknownTask, id)
	}
	select {
	case <-ch:
		return TaskState{Status: protocol.TaskCompleted, Message: "finished: complete"}, nil
	default:
		return TaskState{Status: protocol.TaskWorking, Message: l.msg[id]}, nil
	}
}
func (l *listTasks) ResultCall(id string) (string, json.RawMessage) {
	return "echo", json.RawMessage(`{}`)
}
func (l *listTasks) CancelCall(id string) (string, json.RawMessage) {
	return "echo", json.RawMessage(`{}`)
}
func (l *listTasks) Wait(ctx context.Context, client, id string) error {
	l.mu.Lock()
	ch := l.ended[id]
	l.mu.Unlock()
	if l.waits != nil {
		select {
		case l.waits <- struct{}{}:
		default:
		}
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (l *listTasks) List(client string) []string {
	var out []string
	for _, id := range l.ids {
		if l.owns(client, id) {
			out = append(out, id)
		}
	}
	return out
}
func (l *listTasks) say(id, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msg[id] = msg
}
func (l *listTasks) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.ended[id])
}

// rpc sends one request of client to s and decodes its response.
func rpc(t *testing.T, ctx context.Context, s *Server, client, method, params string) (json.RawMessage, *protocol.WireError) {
	t.Helper()
	out := s.Handle(ctx, client, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	var r struct {
		Result json.RawMessage     `json:"result"`
		Error  *protocol.WireError `json:"error"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v in %s", method, err, out)
	}
	return r.Result, r.Error
}

// modernParams are params of the stateless revision, declaring the Tasks
// extension, with fields added.
func modernParams(fields string) string {
	p := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	if fields != "" {
		p += "," + fields
	}
	return p + "}"
}

// tasks/list (2025-11-25) lists the calling client's tasks only, a page at
// a time, and refuses a cursor it did not give.
func TestTasksListScoped(t *testing.T) {
	s := testServer(t)
	var ids []string
	for i := range listPage + 3 {
		ids = append(ids, fmt.Sprintf("a-%d", i))
	}
	ids = append(ids, "b-1", "b-2")
	s.SetTasks(newListTasks(ids...))
	ctx := context.Background()
	type page struct {
		Tasks      []protocol.LegacyTask `json:"tasks"`
		NextCursor string                `json:"nextCursor"`
	}
	list := func(client, params string) page {
		t.Helper()
		res, werr := rpc(t, ctx, s, client, "tasks/list", params)
		if werr != nil {
			t.Fatalf("tasks/list of %s: %v", client, werr)
		}
		var p page
		json.Unmarshal(res, &p)
		return p
	}
	b := list("b", `{}`)
	if len(b.Tasks) != 2 || b.Tasks[0].TaskID != "b-1" || b.Tasks[1].TaskID != "b-2" || b.NextCursor != "" {
		t.Errorf("client b's list: got %+v, want b-1 and b-2 only", b)
	}
	first := list("a", `{}`)
	if len(first.Tasks) != listPage || first.NextCursor == "" {
		t.Fatalf("client a's first page: got %d tasks, cursor %q; want %d and a cursor", len(first.Tasks), first.NextCursor, listPage)
	}
	second := list("a", `{"cursor":"`+first.NextCursor+`"}`)
	if len(second.Tasks) != 3 || second.NextCursor != "" {
		t.Errorf("client a's second page: got %+v, want 3 tasks and no cursor", second)
	}
	for _, tk := range append(first.Tasks, second.Tasks...) {
		if !strings.HasPrefix(tk.TaskID, "a-") || tk.Status != protocol.TaskWorking {
			t.Errorf("client a's list holds %+v", tk)
		}
	}
	if _, werr := rpc(t, ctx, s, "a", "tasks/list", `{"cursor":"nope"}`); werr == nil || werr.Code != protocol.CodeInvalidParams {
		t.Errorf("invalid cursor: got %v, want -32602", werr)
	}
	if _, werr := rpc(t, ctx, s, "a", "tasks/list", modernParams("")); werr == nil || werr.Code != protocol.CodeMethodNotFound {
		t.Errorf("tasks/list at 2026-07-28 (the extension has none): got %v, want -32601", werr)
	}
	init := s.Handle(ctx, "a", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if !strings.Contains(string(init), `"tasks":{"list":{},"cancel":{}`) {
		t.Errorf("initialize at 2025-11-25: got %s, want tasks.list declared", init)
	}
}

// sent collects the notifications a request sends.
type sent struct {
	mu   sync.Mutex
	msgs []string
	more chan struct{} // signalled on each message
}

func newSent() *sent { return &sent{more: make(chan struct{}, 100)} }

func (s *sent) send(_ context.Context, msg []byte) error {
	s.mu.Lock()
	s.msgs = append(s.msgs, string(msg))
	s.mu.Unlock()
	s.more <- struct{}{}
	return nil
}

// await waits for the nth message (1-based) and returns it.
func (s *sent) await(t *testing.T, n int) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		if len(s.msgs) >= n {
			m := s.msgs[n-1]
			s.mu.Unlock()
			return m
		}
		s.mu.Unlock()
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("no notification %d within 10s; got %v", n, s.msgs)
		}
	}
}

// subscriptions/listen (2026-07-28) acknowledges the client's own tasks,
// sends notifications/tasks with the full task on every change, the
// completed one with its result, then ends the subscription gracefully.
func TestListenTaskNotifications(t *testing.T) {
	s := testServer(t)
	src := newListTasks("agent-t-1", "other-1")
	s.SetTasks(src)
	out := newSent()
	ctx := WithSender(context.Background(), out.send)
	done := make(chan []byte)
	go func() {
		done <- s.Handle(ctx, "agent-t", []byte(`{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":`+
			modernParams(`"notifications":{"taskIds":["agent-t-1","other-1"],"toolsListChanged":true}`)+`}`))
	}()
	ack := out.await(t, 1)
	if !strings.Contains(ack, `"method":"notifications/subscriptions/acknowledged"`) || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":"sub-1"`) ||
		!strings.Contains(ack, `"notifications":{"taskIds":["agent-t-1"]}`) {
		t.Fatalf("acknowledgement: got %s, want the client's own task only, nothing else", ack)
	}
	if n := out.await(t, 2); !strings.Contains(n, `"method":"notifications/tasks"`) || !strings.Contains(n, `"status":"working","statusMessage":"queued"`) ||
		!strings.Contains(n, `"io.modelcontextprotocol/subscriptionId":"sub-1"`) {
		t.Errorf("first notification: got %s, want the task as it is", n)
	}
	src.say("agent-t-1", "waiting for the user")
	if n := out.await(t, 3); !strings.Contains(n, `"statusMessage":"waiting for the user"`) {
		t.Errorf("second notification: got %s, want the new message", n)
	}
	src.end("agent-t-1")
	if n := out.await(t, 4); !strings.Contains(n, `"status":"completed"`) || !strings.Contains(n, `"result":{"resultType":"complete","content":`) {
		t.Errorf("last notification: got %s, want the completed task with its result", n)
	}
	select {
	case resp := <-done:
		if !strings.Contains(string(resp), `"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}`) {
			t.Errorf("subscription end: got %s", resp)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the subscription did not end after its task did")
	}
	// Without the Tasks extension, asking for task notifications is -32021.
	p := strings.Replace(modernParams(`"notifications":{"taskIds":["agent-t-1"]}`), `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, `{}`, 1)
	if _, werr := rpc(t, ctx, s, "agent-t", "subscriptions/listen", p); werr == nil || werr.Code != protocol.CodeMissingRequiredClientCapability {
		t.Errorf("listen without the extension: got %v, want -32021", werr)
	}
	// A transport without a stream cannot carry a subscription.
	if _, werr := rpc(t, context.Background(), s, "agent-t", "subscriptions/listen", modernParams(`"notifications":{"taskIds":[]}`)); werr == nil {
		t.Error("listen without a Sender: got a result, want an error")
	}
}

// tasks/result (2025-11-25) sends notifications/tasks/status on every
// change while it waits.
func TestTasksResultStatusChanges(t *testing.T) {
	s := testServer(t)
	src := newListTasks("c-1")
	src.waits = make(chan struct{}, 1)
	s.SetTasks(src)
	out := newSent()
	ctx := WithSender(context.Background(), out.send)
	done := make(chan []byte)
	go func() {
		done <- s.Handle(ctx, "c", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"c-1"}}`))
	}()
	<-src.waits // it is waiting
	src.say("c-1", "running in tab 3")
	if n := out.await(t, 1); !strings.Contains(n, `"method":"notifications/tasks/status"`) || !strings.Contains(n, `"statusMessage":"running in tab 3"`) {
		t.Errorf("first notification: got %s", n)
	}
	src.end("c-1")
	if n := out.await(t, 2); !strings.Contains(n, `"status":"completed"`) {
		t.Errorf("second notification: got %s", n)
	}
	if r := <-done; !strings.Contains(string(r), `"io.modelcontextprotocol/related-task":{"taskId":"c-1"}`) {
		t.Errorf("tasks/result: got %s", r)
	}
}

// A call its tool says runs long becomes a task of its own for a client
// that can follow one, in both eras: answered at once, working until the
// run ends, then completed with the run's result; tasks/cancel ends the
// run.
func TestLongCallRunsAsTask(t *testing.T) {
	s := testServer(t)
	s.SetTasks(newListTasks())
	release := make(chan struct{})
	runs := make(chan context.Context, 4)
	s.AddTool(Tool{Def: protocol.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`),
		Execution: &protocol.ToolExecution{TaskSupport: "optional"}},
		Handler: func(ctx context.Context, _ string, args json.RawMessage) (any, error) {
			runs <- ctx
			select {
			case <-release:
				return map[string]any{"verified": "passed"}, nil
			case <-ctx.Done():
				return nil, Errorf("cancelled", "", "stopped")
			}
		},
		Long: func(args json.RawMessage) bool { return strings.Contains(string(args), `"verify":true`) },
	})
	ctx := context.Background()
	type task struct {
		ResultType string          `json:"resultType"`
		TaskID     string          `json:"taskId"`
		Status     string          `json:"status"`
		Result     json.RawMessage `json:"result"`
		Task       *task           `json:"task"`
	}
	decode := func(res json.RawMessage) task {
		var tk task
		json.Unmarshal(res, &tk)
		if tk.Task != nil {
			return *tk.Task
		}
		return tk
	}
	// The Tasks extension.
	res, werr := rpc(t, ctx, s, "agent-t", "tools/call", modernParams(`"name":"slow","arguments":{"verify":true}`))
	created := decode(res)
	if werr != nil || created.ResultType != "task" || created.Status != "working" || created.TaskID == "" {
		t.Fatalf("long call: got %s %v, want a working task", res, werr)
	}
	<-runs
	res, _ = rpc(t, ctx, s, "agent-t", "tasks/get", modernParams(`"taskId":"`+created.TaskID+`"`))
	if got := decode(res); got.Status != "working" {
		t.Errorf("tasks/get while running: got %s", res)
	}
	if _, werr := rpc(t, ctx, s, "someone-else", "tasks/get", modernParams(`"taskId":"`+created.TaskID+`"`)); werr == nil {
		t.Error("another client's tasks/get: got the task, want -32602")
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, _ = rpc(t, ctx, s, "agent-t", "tasks/get", modernParams(`"taskId":"`+created.TaskID+`"`))
		if got := decode(res); got.Status == "completed" {
			if !strings.Contains(string(got.Result), `"verified":"passed"`) {
				t.Errorf("completed task: got %s, want the run's result", res)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task still %s after 10s", res)
		}
		<-time.After(10 * time.Millisecond)
	}
	// Not asked for a task: the call runs inline, as always.
	if r := call(t, s, `{}`); r.Result.IsError {
		t.Errorf("plain call: got an error")
	}
	res, _ = rpc(t, ctx, s, "c1", "tools/call", `{"name":"slow","arguments":{"verify":true}}`)
	if !strings.Contains(string(res), `"verified":"passed"`) {
		t.Errorf("long call without a task: got %s, want its result inline", res)
	}
	<-runs

	// 2025-11-25: task-augmented, then cancelled.
	release = make(chan struct{}) // never closed: this run is cancelled
	res, _ = rpc(t, ctx, s, "c1", "tools/call", `{"name":"slow","task":{},"arguments":{"verify":true}}`)
	legacy := decode(res)
	if legacy.Status != "working" {
		t.Fatalf("legacy long call: got %s, want a working task", res)
	}
	run := <-runs
	res, werr = rpc(t, ctx, s, "c1", "tasks/cancel", `{"taskId":"`+legacy.TaskID+`"}`)
	if werr != nil || !strings.Contains(string(res), `"status":"cancelled"`) {
		t.Errorf("tasks/cancel: got %s %v, want cancelled", res, werr)
	}
	select {
	case <-run.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("tasks/cancel did not end the run")
	}
	res, _ = rpc(t, ctx, s, "c1", "tasks/list", `{}`)
	if !strings.Contains(string(res), legacy.TaskID) {
		t.Errorf("tasks/list: got %s, want the local task", res)
	}
	res, _ = rpc(t, ctx, s, "c1", "tasks/result", `{"taskId":"`+legacy.TaskID+`"}`)
	if !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), `cancelled`) {
		t.Errorf("tasks/result of the cancelled task: got %s", res)
	}
}
