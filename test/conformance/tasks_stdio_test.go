package conformance

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stdioLines runs gasoline-mcp and returns a function that writes one line
// to its stdin and a channel of the lines it writes to stdout.
func stdioLines(t *testing.T, e *env) (func(string), <-chan string) {
	t.Helper()
	cmd := e.bridgeCmd()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return func(s string) { io.WriteString(in, s+"\n") }, lines
}

// await reads lines until one contains every one of want, and returns it.
func await(t *testing.T, lines <-chan string, what string, want ...string) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("gasoline-mcp ended before %s", what)
			}
			ok = true
			for _, w := range want {
				ok = ok && strings.Contains(l, w)
			}
			if ok {
				return l
			}
			t.Logf("skipping %s", l)
		case <-deadline:
			t.Fatalf("no %s within 30s", what)
		}
	}
}

const stdioMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"stdio-agent","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// Over stdio, the bridge streams subscriptions/listen: the Tasks
// extension's notifications/tasks reach the agent as lines, then the
// response that ends the subscription.
func TestStdioTaskNotifications(t *testing.T) {
	e := newEnv(t)
	send, lines := stdioLines(t, e)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + stdioMeta + `,"name":"interact","arguments":{"action":"execute_js","script":"1"}}}`)
	created := await(t, lines, "the task", `"id":1`, `"resultType":"task"`)
	var r struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(created), &r)
	id := r.Result.TaskID
	send(`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{` + stdioMeta + `,"notifications":{"taskIds":["` + id + `"]}}}`)
	await(t, lines, "the acknowledgement", `"notifications/subscriptions/acknowledged"`, `"taskIds":["`+id+`"]`)
	await(t, lines, "the working task", `"method":"notifications/tasks"`, `"status":"working"`, `"io.modelcontextprotocol/subscriptionId":2`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{` + stdioMeta + `,"taskId":"` + id + `"}}`)
	await(t, lines, "the cancelled task", `"method":"notifications/tasks"`, `"status":"cancelled"`)
	await(t, lines, "the end of the subscription", `"id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}`)
}

// Over stdio, tasks/result (2025-11-25) brings notifications/tasks/status
// before the result: a command no extension takes expires while it waits,
// a failed task whose result is an error.
func TestStdioLegacyTaskStatus(t *testing.T) {
	e := newEnv(t)
	// The daemon started first, with a dispatch timeout short enough for
	// the test and long enough for tasks/result to be waiting by then.
	daemon := exec.Command(filepath.Join(filepath.Dir(bridgeBin), "gasoline"), "daemon", "start",
		"--port", strconv.Itoa(e.port), "--state-dir", e.dir, "--dispatch-timeout", "5s")
	daemon.Env = e.bridgeCmd().Env
	if out, err := daemon.CombinedOutput(); err != nil {
		t.Fatalf("starting the daemon: %v\n%s", err, out)
	}
	send, lines := stdioLines(t, e)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}}`)
	await(t, lines, "initialize", `"id":1`, `"list":{}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"interact","task":{},"arguments":{"action":"execute_js","script":"1"}}}`)
	created := await(t, lines, "the task", `"id":2`, `"task":{`)
	var r struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(created), &r)
	id := r.Result.Task.TaskID
	send(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
	await(t, lines, "the status notification", `"method":"notifications/tasks/status"`, `"taskId":"`+id+`"`, `"status":"failed"`)
	await(t, lines, "the result", `"id":3`, `"io.modelcontextprotocol/related-task"`, `"isError":true`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tasks/list","params":{}}`)
	await(t, lines, "tasks/list", `"id":4`, `"taskId":"`+id+`"`, `"status":"failed"`)
}
