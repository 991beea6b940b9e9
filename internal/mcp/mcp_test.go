package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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
	s.SetDecorator(func(client string, m map[string]any) { m["async"] = "for " + client })
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
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, `"code":-32601`},
		{"unknown method as notification", `{"jsonrpc":"2.0","method":"server/discover"}`, ""},
		{"initialize without version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `"code":-32602`},
		{"initialize newer version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}`, `"protocolVersion":"` + protocol.LatestVersion + `"`},
		{"tools/call no name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, `"code":-32602`},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, `available tools: echo`},
		{"parse error", `{`, `"id":null,"error":{"code":-32700`},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
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
