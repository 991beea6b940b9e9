package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/rs/zerolog"
)

func testServer(t *testing.T) *Server {
	s := NewServer(protocol.Implementation{Name: "gasoline", Version: "t"}, "hi", zerolog.New(zerolog.NewTestWriter(t)))
	s.AddTool(Tool{Def: protocol.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(_ context.Context, client string, args json.RawMessage) (any, error) {
			var a struct{ Fail, Crash bool }
			json.Unmarshal(args, &a)
			switch {
			case a.Fail:
				return nil, Errorf("bad_thing", "do the other thing", "it failed for %s", client)
			case a.Crash:
				return nil, errors.New("boom")
			}
			return map[string]any{"html": "<div class=\"x\">a & b</div>", "client": client}, nil
		}})
	s.SetDecorator(func(client string, _ any, body []byte) []byte {
		return AppendField(body, "async", []byte(`"for `+client+`"`))
	})
	return s
}

type callResult struct {
	Result struct {
		Content           []protocol.Content `json:"content"`
		StructuredContent json.RawMessage    `json:"structuredContent"`
		IsError           bool               `json:"isError"`
	} `json:"result"`
	Error *protocol.WireError `json:"error"`
}

func call(t *testing.T, s *Server, args string) callResult {
	t.Helper()
	out := s.Handle(context.Background(), "c1", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":`+args+`}}`))
	if !json.Valid(out) {
		t.Fatalf("response is not valid JSON: %s", out)
	}
	var r callResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		t.Fatalf("got JSON-RPC error %v", r.Error)
	}
	return r
}

func TestToolResultEnvelope(t *testing.T) {
	s := testServer(t)
	tests := []struct {
		name      string
		args      string
		wantError bool
		wantIn    string
	}{
		{"ok", `{}`, false, `"html":"<div class=\"x\">a & b</div>"`},
		{"tool error", `{"fail":true}`, true, `"code":"bad_thing"`},
		{"internal error", `{"crash":true}`, true, `"code":"internal_error"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, s, tt.args)
			if r.Result.IsError != tt.wantError {
				t.Errorf("got isError %v, want %v", r.Result.IsError, tt.wantError)
			}
			if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" {
				t.Fatalf("got content %v, want one text block", r.Result.Content)
			}
			if got, want := r.Result.Content[0].Text, string(r.Result.StructuredContent); got != want {
				t.Errorf("text and structuredContent differ: got %s, want %s", got, want)
			}
			if !strings.Contains(r.Result.Content[0].Text, tt.wantIn) {
				t.Errorf("got %s, want it to contain %s", r.Result.Content[0].Text, tt.wantIn)
			}
			if !strings.Contains(r.Result.Content[0].Text, `"async":"for c1"`) {
				t.Errorf("got %s, want the decorator's field", r.Result.Content[0].Text)
			}
		})
	}
}

func TestHandleProtocol(t *testing.T) {
	s := testServer(t)
	tests := []struct {
		name, in string
		want     string // substring of the response; "" means no response
	}{
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"cancel notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, ""},
		{"client response", `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"prompts/get"}`, `"code":-32601`},
		{"unknown method as notification", `{"jsonrpc":"2.0","method":"prompts/get"}`, ""},
		{"initialize without version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `"code":-32602`},
		{"initialize newer version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}`, `"protocolVersion":"` + protocol.LatestVersion + `"`},
		{"tools/call no name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, `"code":-32602`},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, `available tools: echo`},
		{"parse error", `{`, `"id":null,"error":{"code":-32700`},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"notification method with an id", `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`, `"id":1,"error":{"code":-32600`},
		{"unknown notification with an id", `{"jsonrpc":"2.0","id":"n","method":"notifications/whatever","params":{}}`, `"id":"n","error":{"code":-32600`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := s.Handle(context.Background(), "c", []byte(tt.in))
			if tt.want == "" {
				if out != nil {
					t.Fatalf("got %s, want no response", out)
				}
				return
			}
			if !json.Valid(out) || !strings.Contains(string(out), tt.want) {
				t.Fatalf("got %s, want it to contain %s", out, tt.want)
			}
		})
	}
}

func TestConcurrentToolsList(t *testing.T) {
	s := testServer(t)
	done := make(chan []byte, 8)
	for range 8 {
		go func() {
			done <- s.Handle(context.Background(), "c", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		}()
	}
	for range 8 {
		if out := <-done; !strings.Contains(string(out), `"name":"echo"`) {
			t.Fatalf("got %s, want the echo tool", out)
		}
	}
}

func TestAppendField(t *testing.T) {
	tests := []struct{ obj, want string }{
		{`{}`, `{"async":1}`},
		{`{ }`, `{ "async":1}`},
		{`{"a":"}"}`, `{"a":"}","async":1}`},
		{`{"a":{"b":2}}`, `{"a":{"b":2},"async":1}`},
	}
	for _, tt := range tests {
		got := AppendField([]byte(tt.obj), "async", []byte(`1`))
		if string(got) != tt.want {
			t.Errorf("AppendField(%s): got %s, want %s", tt.obj, got, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("AppendField(%s): %s is not valid JSON", tt.obj, got)
		}
	}
}

// TestNotifyBeforeResponse checks the outbound path of a request: a tool
// reports progress through the request's Sender, which gets it before Handle
// returns the response, addressed with the request's progress token; without
// a token or a Sender nothing is sent and the call still succeeds.
func TestNotifyBeforeResponse(t *testing.T) {
	s := NewServer(protocol.Implementation{Name: "gasoline", Version: "t"}, "", zerolog.New(zerolog.NewTestWriter(t)))
	s.AddTool(Tool{Def: protocol.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
			if err := Progress(ctx, 1, 2, "waiting for the browser"); err != nil {
				return nil, err
			}
			return struct {
				Done bool `json:"done"`
			}{true}, nil
		}})
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait","arguments":{}` + meta + `}}`
	}
	tests := []struct {
		name   string
		msg    string
		sender bool
		want   []string // the notifications sent, in order
	}{
		{"progress token and sender", call(`,"_meta":{"progressToken":"tok-1"}`), true,
			[]string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":1,"total":2,"message":"waiting for the browser"}}`}},
		{"numeric token", call(`,"_meta":{"progressToken":42}`), true,
			[]string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":42,"progress":1,"total":2,"message":"waiting for the browser"}}`}},
		{"no token", call(``), true, nil},
		{"no sender", call(`,"_meta":{"progressToken":"tok-1"}`), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent []string
			ctx := context.Background()
			if tt.sender {
				ctx = WithSender(ctx, func(_ context.Context, msg []byte) error {
					sent = append(sent, string(msg))
					return nil
				})
			}
			out := s.Handle(ctx, "c", []byte(tt.msg))
			if !strings.Contains(string(out), `"structuredContent":{"done":true}`) {
				t.Fatalf("got %s, want the tool's result", out)
			}
			if strings.Join(sent, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("sent before the response:\n%s\nwant:\n%s", strings.Join(sent, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	if err := Notify(context.Background(), "notifications/message", nil); !errors.Is(err, ErrNoSender) {
		t.Errorf("Notify without a sender: got %v, want ErrNoSender", err)
	}
}

// pictured is a tool result with an image beside its object.
type pictured struct {
	Width int `json:"width"`
}

func (pictured) Images() []Image { return []Image{{Data: "QUJD", MIMEType: "image/jpeg"}} }

// TestImageContent puts an Imager's images after the text block, outside
// the structured object.
func TestImageContent(t *testing.T) {
	s := NewServer(protocol.Implementation{Name: "gasoline", Version: "t"}, "", zerolog.New(zerolog.NewTestWriter(t)))
	s.AddTool(Tool{Def: protocol.Tool{Name: "shot", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(context.Context, string, json.RawMessage) (any, error) { return pictured{Width: 2}, nil }})
	out := s.Handle(context.Background(), "c", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot"}}`))
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"width\":2}"},{"type":"image","data":"QUJD","mimeType":"image/jpeg"}],"structuredContent":{"width":2}}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// fakeTasks is a TaskSource of one command that is working until Wait,
// which ends it.
type fakeTasks struct {
	once   sync.Once
	ended  chan struct{}
	failed bool // the command ends without completing
}

func (f *fakeTasks) State(client, id string) (TaskState, error) {
	if id != "exec_1" || client != "c1" {
		return TaskState{}, ErrUnknownTask
	}
	select {
	case <-f.ended:
		return TaskState{Status: protocol.TaskCompleted, Message: "finished: complete", Failed: f.failed}, nil
	default:
		return TaskState{Status: protocol.TaskWorking, Message: "running"}, nil
	}
}
func (f *fakeTasks) ResultCall(id string) (string, json.RawMessage) {
	return "echo", json.RawMessage(`{}`)
}
func (f *fakeTasks) CancelCall(id string) (string, json.RawMessage) {
	return "echo", json.RawMessage(`{}`)
}
func (f *fakeTasks) Wait(context.Context, string, string) error {
	f.once.Do(func() { close(f.ended) })
	return nil
}
func (f *fakeTasks) List(client string) []string {
	if client != "c1" {
		return nil
	}
	return []string{"exec_1"}
}

// A command that ended without completing is a failed task in 2025-11-25,
// and its result an error; the Tasks extension calls it completed.
func TestLegacyTaskFailed(t *testing.T) {
	s := testServer(t)
	f := &fakeTasks{ended: make(chan struct{}), failed: true}
	s.SetTasks(f)
	var sent []string
	ctx := WithSender(context.Background(), func(_ context.Context, msg []byte) error {
		sent = append(sent, string(msg))
		return nil
	})
	out := s.Handle(ctx, "c1", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"exec_1"}}`))
	if !strings.Contains(string(out), `"isError":true`) {
		t.Errorf("tasks/result of a failed task: got %s, want isError", out)
	}
	if len(sent) != 1 || !strings.Contains(sent[0], `"status":"failed"`) {
		t.Errorf("notifications: got %v, want the failed task", sent)
	}
	get := s.Handle(ctx, "c1", []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"exec_1"}}`))
	if !strings.Contains(string(get), `"status":"failed"`) {
		t.Errorf("tasks/get: got %s, want failed", get)
	}
	if modern := taskOf("exec_1", TaskState{Status: protocol.TaskCompleted, Failed: true}); modern.Status != protocol.TaskCompleted {
		t.Errorf("the Tasks extension's status: got %s, want completed", modern.Status)
	}
}

// tasks/result (2025-11-25) waits for the task, sends the status
// notification where the transport carries one, then the result with the
// related-task _meta.
func TestTasksResultNotifies(t *testing.T) {
	s := testServer(t)
	f := &fakeTasks{ended: make(chan struct{})}
	s.SetTasks(f)
	var sent []string
	ctx := WithSender(context.Background(), func(_ context.Context, msg []byte) error {
		sent = append(sent, string(msg))
		return nil
	})
	out := s.Handle(ctx, "c1", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"exec_1"}}`))
	if !strings.Contains(string(out), `"io.modelcontextprotocol/related-task":{"taskId":"exec_1"}`) {
		t.Errorf("tasks/result: got %s", out)
	}
	if len(sent) != 1 || !strings.Contains(sent[0], `"method":"notifications/tasks/status"`) || !strings.Contains(sent[0], `"status":"completed"`) {
		t.Errorf("notifications: got %v, want one notifications/tasks/status with the completed task", sent)
	}
}
