package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/task"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// fuzzHandler is the real handler with a command delivered and waiting for
// its result, so fuzzed bodies can hit every branch of /query-result.
func fuzzHandler(f *testing.F) (http.Handler, *tracker.Tracker) {
	trk := tracker.New(tracker.Options{})
	f.Cleanup(trk.Close)
	pair, _ := pairing.New("", nil)
	m := mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "fuzz"}, "", zerolog.Nop())
	health := func() apitype.Health { return apitype.Health{Service: apitype.ServiceName} }
	tools.New(tools.Deps{Tracker: trk, Health: health, Log: zerolog.Nop()}).Register(m)
	m.SetTasks(task.New(trk))
	srv := server.New(server.Config{Port: 7890, Token: token, Tracker: trk, MCP: m, Pairing: pair, Health: health, Log: zerolog.Nop()})
	return srv.Handler(), trk
}

func serve(h http.Handler, method, path, body string) int {
	code, _ := serveBody(h, method, path, body)
	return code
}

// serveBody is serve that also returns the response body.
func serveBody(h http.Handler, method, path, body string) (int, []byte) {
	// Bounded, so a fuzzed wait_ms cannot hold an iteration for long.
	ctx, cancel := contextWithTimeout(200 * time.Millisecond)
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	r.Host = "127.0.0.1:7890"
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set(apitype.HeaderClient, "fuzz") // a bridge's request: no session
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

func FuzzQueryResult(f *testing.F) {
	h, trk := fuzzHandler(f)
	for _, s := range []string{
		`{"correlation_id":"exec_1","status":"complete","result":{"value":1}}`,
		`{"correlation_id":"exec_1","status":"pending"}`,
		`{"correlation_id":"exec_1","status":"error","error":"TypeError: x"}`,
		`{"correlation_id":"","status":""}`,
		`{"correlation_id":1,"status":[]}`,
		`{"result":` + strings.Repeat("[", 10000) + `}`,
		`null`, ``, `"x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		// A fresh delivered command each round, so "complete" can succeed.
		if _, err := trk.Submit(tracker.Spec{Client: "fuzz", Prefix: "exec", Action: "execute_js"}); err == nil {
			ctx, cancel := contextWithTimeout(50 * time.Millisecond)
			trk.Poll(ctx, "fuzz", 1)
			cancel()
		}
		code := serve(h, http.MethodPost, "/query-result", body)
		switch code {
		case 200, 400, 404, 409, 413:
		default:
			t.Fatalf("got status %d for %q, want 200/400/404/409/413", code, body)
		}
		// The daemon still answers.
		if code := serve(h, http.MethodGet, "/health", ""); code != 200 {
			t.Fatalf("health after fuzz input: got %d", code)
		}
	})
}

func FuzzMCP(f *testing.F) {
	h, _ := fuzzHandler(f)
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"pending_commands"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"cancel","correlation_id":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"exec_x","wait_ms":-1}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":7}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"configure","arguments":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"observe","arguments":{"what":"pending_commands"},"_meta":{"progressToken":"p"}}}`,
		// 2026-07-28 and tasks.
		`{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"exec_x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":[]}}}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"interact","task":{"ttl":1},"arguments":{"action":"cancel","correlation_id":"x"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tasks/result","params":{"taskId":"res_00"}}`,
		`{"jsonrpc":"2.0","id":10,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientInfo":"x"}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		code, out := serveBody(h, http.MethodPost, "/mcp", body)
		switch code {
		case 200:
			// Every answer is one valid JSON-RPC response.
			msg, err := protocol.DecodeMessage(out)
			if err != nil {
				t.Fatalf("answer to %q is not valid JSON-RPC (%v): %s", body, err, out)
			}
			if r, ok := msg.(*protocol.Response); !ok || (r.Result == nil) == (r.Error == nil) {
				t.Fatalf("answer to %q is not a response with a result or an error: %s", body, out)
			}
		case 202, 413:
		default:
			t.Fatalf("got status %d for %q, want 200/202/413", code, body)
		}
	})
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
