package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// Local tasks are tool calls the server runs as tasks itself, not through a
// TaskSource's commands: a 2025-11-25 task-augmented call that needed no
// command (it holds its result from the start), and a call its tool says
// runs long (Tool.Long: analyze test with verify) from a client that can
// follow a task, which runs on while the client polls.

// doneTTL is how long a local task is kept after it ends, and maxDone how
// many are kept.
const (
	doneTTL = time.Minute
	maxDone = 100
)

// longTTL bounds a local task still running: the tools that run long bound
// their own runs well within it.
const longTTL = 2 * time.Minute

// localPoll is the polling interval suggested for a local task.
const localPoll = time.Second

// doneTasks holds the local tasks. It is safe for concurrent use; its zero
// value is ready.
type doneTasks struct {
	mu    sync.Mutex
	tasks map[string]*doneTask // guarded by mu
	order []string             // guarded by mu; ids oldest first
}

type doneTask struct {
	client string
	done   chan struct{}      // closed when the run ends (at once for a task born with its result)
	cancel context.CancelFunc // ends the run; nil for a task born with its result
	// result and state are guarded by doneTasks.mu; result is set before
	// done is closed.
	result json.RawMessage
	state  TaskState
}

// newTaskID returns an unguessable local task id.
func newTaskID() string {
	var b [12]byte
	rand.Read(b[:])
	return "res_" + hex.EncodeToString(b[:])
}

// ended is the state of a local task whose run gave result at now.
func ended(st TaskState, result json.RawMessage, now time.Time) TaskState {
	st.Status, st.Message, st.UpdatedAt = protocol.TaskCompleted, "finished", now
	st.TTL = now.Sub(st.CreatedAt) + doneTTL
	if bytes.HasSuffix(result, []byte(`"isError":true}`)) {
		st.Failed, st.Message = true, "the tool call failed; its result has the error"
	}
	return st
}

// add keeps result for client and returns its new task.
func (d *doneTasks) add(client string, result json.RawMessage) (string, TaskState) {
	now := time.Now()
	st := ended(TaskState{CreatedAt: now}, result, now)
	st.Message = "finished at once"
	if st.Failed {
		st.Message = "the tool call failed; tasks/result has its error"
	}
	t := &doneTask{client: client, done: closedChan, result: result, state: st}
	return d.keep(t), st
}

// start runs run for client as a new task and returns it at once: run gets
// a context that tasks/cancel ends, and that ends after longTTL (the
// goroutine's bound: no run outlives it by more than its own cleanup), and
// its result ends the task.
func (d *doneTasks) start(ctx context.Context, client, what string, run func(context.Context) json.RawMessage) (string, TaskState) {
	now := time.Now()
	ctx, cancel := context.WithTimeout(ctx, longTTL)
	st := TaskState{Status: protocol.TaskWorking, Message: "running " + what, CreatedAt: now, UpdatedAt: now,
		TTL: longTTL + doneTTL, PollInterval: localPoll}
	t := &doneTask{client: client, done: make(chan struct{}), cancel: cancel, state: st}
	id := d.keep(t)
	go func() {
		defer cancel()
		res := run(ctx)
		d.mu.Lock()
		if t.state.Status == protocol.TaskWorking {
			t.result, t.state = res, ended(t.state, res, time.Now())
		}
		d.mu.Unlock()
		close(t.done)
	}()
	return id, st
}

// keep stores t under a new id, forgetting tasks that ended more than
// doneTTL ago and, beyond maxDone, the oldest ended ones.
func (d *doneTasks) keep(t *doneTask) string {
	id := newTaskID()
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tasks == nil {
		d.tasks = map[string]*doneTask{}
	}
	kept := d.order[:0]
	for _, old := range d.order {
		if o := d.tasks[old]; o.state.Status != protocol.TaskWorking && now.Sub(o.state.UpdatedAt) > doneTTL {
			delete(d.tasks, old)
			continue
		}
		kept = append(kept, old)
	}
	for i := 0; len(kept) >= maxDone && i < len(kept); {
		if d.tasks[kept[i]].state.Status == protocol.TaskWorking {
			i++ // a run ends on its own, within longTTL
			continue
		}
		delete(d.tasks, kept[i])
		kept = append(kept[:i], kept[i+1:]...)
	}
	d.order = append(kept, id)
	d.tasks[id] = t
	return id
}

// get returns client's task id, if it is kept.
func (d *doneTasks) get(client, id string) (*doneTask, TaskState, json.RawMessage, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.tasks[id]
	if !ok || t.client != client || (t.state.Status != protocol.TaskWorking && time.Since(t.state.UpdatedAt) > doneTTL) {
		return nil, TaskState{}, nil, false
	}
	return t, t.state, t.result, true
}

// cancelTask ends the run of t and marks it cancelled, for good (a run
// that finishes after is not recorded); false when t is not running.
func (d *doneTasks) cancelTask(t *doneTask) bool {
	d.mu.Lock()
	if t.cancel == nil || t.state.Status != protocol.TaskWorking {
		d.mu.Unlock()
		return false
	}
	now := time.Now()
	t.state.Status, t.state.Message, t.state.UpdatedAt = protocol.TaskCancelled, "cancelled by the client", now
	t.state.TTL = now.Sub(t.state.CreatedAt) + doneTTL
	d.mu.Unlock()
	t.cancel()
	return true
}

// list returns the ids of client's kept tasks, oldest first.
func (d *doneTasks) list(client string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var ids []string
	for _, id := range d.order {
		if t := d.tasks[id]; t.client == client {
			ids = append(ids, id)
		}
	}
	return ids
}
