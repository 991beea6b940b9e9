package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// streamEnv is the real handler with tools that report progress every
// 50 ms, so a test sees several reports in a short wait.
type streamEnv struct{ *env }

func newStreamEnv(t *testing.T) *streamEnv {
	return &streamEnv{newEnvWith(t, tools.Deps{ProgressEvery: 50 * time.Millisecond})}
}

// post sends body to /mcp with the token and headers; it returns the
// response with its body read.
func (e *streamEnv) post(t *testing.T, method string, headers map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	r, _ := http.NewRequest(method, e.url+"/mcp", strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func initialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// session initializes a URL-connected client and returns its session id.
func (e *streamEnv) session(t *testing.T, version string) string {
	t.Helper()
	resp, body := e.post(t, http.MethodPost, nil, initialize(version))
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || len(id) < 32 {
		t.Fatalf("initialize: HTTP %d, session %q, %s", resp.StatusCode, id, body)
	}
	return id
}

// errorCode is the stable name of a transport failure: data.code of its
// JSON-RPC error, else the JSON-RPC code itself.
func errorCode(b []byte) string {
	var eb struct {
		Error struct {
			Code json.RawMessage `json:"code"`
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal(b, &eb)
	if eb.Error.Data.Code != "" {
		return eb.Error.Data.Code
	}
	return string(eb.Error.Code)
}

func TestStreamableSessions(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-11-25")
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	for _, tc := range []struct {
		name    string
		method  string
		headers map[string]string
		body    string
		status  int
		code    string
	}{
		{"no session after initialize", "POST", nil, list, 400, "session_required"},
		{"with the session", "POST", map[string]string{"Mcp-Session-Id": id}, list, 200, ""},
		{"unknown session", "POST", map[string]string{"Mcp-Session-Id": "feedface"}, list, 404, "unknown_session"},
		{"the bridge needs none", "POST", map[string]string{apitype.HeaderClient: "bridge-1"}, list, 200, ""},
		{"GET is not offered", "GET", map[string]string{"Mcp-Session-Id": id}, "", 405, "method_not_allowed"},
		{"DELETE without a session", "DELETE", nil, "", 400, "session_required"},
		{"DELETE ends it", "DELETE", map[string]string{"Mcp-Session-Id": id}, "", 204, ""},
		{"ended", "POST", map[string]string{"Mcp-Session-Id": id}, list, 404, "unknown_session"},
		{"DELETE again", "DELETE", map[string]string{"Mcp-Session-Id": id}, "", 404, "unknown_session"},
	} {
		resp, body := e.post(t, tc.method, tc.headers, tc.body)
		if resp.StatusCode != tc.status || errorCode(body) != tc.code {
			t.Errorf("%s: got %d %s, want %d %q", tc.name, resp.StatusCode, body, tc.status, tc.code)
		}
		if tc.status == 405 && resp.Header.Get("Allow") != "POST, DELETE" {
			t.Errorf("%s: Allow %q, want \"POST, DELETE\"", tc.name, resp.Header.Get("Allow"))
		}
	}

	// A session's tool calls belong to the session's own client.
	id = e.session(t, "2025-06-18")
	e.post(t, "POST", map[string]string{"Mcp-Session-Id": id},
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"1"}}}`)
	if l := e.tracker.List("session-" + id); len(l.Pending) != 1 {
		t.Errorf("session client has %d pending commands, want 1", len(l.Pending))
	}
	// The bridge's initialize starts no session.
	resp, _ := e.post(t, "POST", map[string]string{apitype.HeaderClient: "bridge-1"}, initialize("2025-06-18"))
	if got := resp.Header.Get("Mcp-Session-Id"); got != "" {
		t.Errorf("bridge initialize got session %q, want none", got)
	}
}

func TestStreamableProtocolVersionHeader(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-06-18")
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp, body := e.post(t, "POST", map[string]string{"Mcp-Session-Id": id, "MCP-Protocol-Version": "1999-01-01"}, ping)
	if resp.StatusCode != 400 || errorCode(body) != "-32022" {
		t.Errorf("unsupported version: got %d %s, want 400", resp.StatusCode, body)
	}
	resp, body = e.post(t, "POST", map[string]string{"Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-06-18"}, ping)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"result":{}`) {
		t.Errorf("supported version: got %d %s", resp.StatusCode, body)
	}
}

// TestStreamableUnacceptable: notifications and responses are accepted
// with 202; those that cannot be get an HTTP error, not 200.
func TestStreamableUnacceptable(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-11-25")
	h := map[string]string{"Mcp-Session-Id": id}
	for _, tc := range []struct {
		body   string
		status int
	}{
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202},
		{`{"jsonrpc":"2.0","id":"srv-1","result":{}}`, 202},
		{`{"jsonrpc":"1.0","method":"notifications/initialized"}`, 400},
		{`{"jsonrpc":"2.0","id":5}`, 400},
		{`{not json`, 400},
		{`{"jsonrpc":"2.0","id":6,"method":"ping","params":5}`, 200}, // a request: answered with its error
	} {
		resp, body := e.post(t, "POST", h, tc.body)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: got %d %s, want %d", tc.body, resp.StatusCode, body, tc.status)
		}
		if tc.status != 202 {
			if _, err := protocol.DecodeMessage(body); err != nil {
				t.Errorf("%s: the body is not a JSON-RPC error response: %s", tc.body, body)
			}
		}
	}
	// The bridge relays whatever it is given and expects the JSON-RPC answer.
	resp, body := e.post(t, "POST", map[string]string{apitype.HeaderClient: "b"}, `{not json`)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "-32700") {
		t.Errorf("bridge garbage: got %d %s, want 200 and a parse error", resp.StatusCode, body)
	}
}

func TestStreamableBatch(t *testing.T) {
	e := newStreamEnv(t)
	old := map[string]string{"Mcp-Session-Id": e.session(t, "2025-03-26")}
	resp, body := e.post(t, "POST", old,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}]`)
	var out []map[string]any
	if resp.StatusCode != 200 || json.Unmarshal(body, &out) != nil || len(out) != 3 {
		t.Fatalf("2025-03-26 batch: got %d %s, want 3 responses", resp.StatusCode, body)
	}
	if out[0]["result"] == nil || out[1]["result"] == nil || out[2]["error"] == nil {
		t.Errorf("batch answers %v: want ping and tools/list results, and an error for initialize", out)
	}
	if resp, _ := e.post(t, "POST", old, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`); resp.StatusCode != 202 {
		t.Errorf("batch of notifications: got %d, want 202", resp.StatusCode)
	}
	if resp, body := e.post(t, "POST", old, `[]`); resp.StatusCode != 400 {
		t.Errorf("empty batch: got %d %s, want 400", resp.StatusCode, body)
	}
	resp, body = e.post(t, "POST", map[string]string{"Mcp-Session-Id": e.session(t, "2025-06-18")}, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if resp.StatusCode != 400 || errorCode(body) != "batch_not_supported" {
		t.Errorf("2025-06-18 batch: got %d %s, want 400 batch_not_supported", resp.StatusCode, body)
	}
}

// sseEvents reads an SSE body into its events' data.
func sseEvents(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event data %q: %v", data, err)
			}
			events = append(events, m)
		}
	}
	return events
}

// TestStreamableProgress waits on a command no extension takes: a client
// that accepts SSE and gives a progress token gets progress notifications
// and then the response on one stream; any other gets plain JSON.
func TestStreamableProgress(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-11-25")
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"1","wait_ms":600}` + meta + `}}`
	}
	withToken := `,"_meta":{"progressToken":"tok-1"}`
	sse := "application/json, text/event-stream"

	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{"session", map[string]string{"Mcp-Session-Id": id, "Accept": sse}},
		{"bridge", map[string]string{apitype.HeaderClient: "b", "Accept": sse}},
	} {
		resp, body := e.post(t, "POST", tc.headers, call(withToken))
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("%s: got %d %q, want 200 text/event-stream", tc.name, resp.StatusCode, ct)
		}
		events := sseEvents(t, body)
		if len(events) < 2 {
			t.Fatalf("%s: %d events, want progress then the response:\n%s", tc.name, len(events), body)
		}
		for i, ev := range events[:len(events)-1] {
			p, _ := ev["params"].(map[string]any)
			msg, _ := p["message"].(string)
			if ev["method"] != "notifications/progress" || p["progressToken"] != "tok-1" || p["progress"] != float64(i+1) ||
				!strings.Contains(msg, "execute_js queued") {
				t.Errorf("%s: event %d = %v, want progress %d for tok-1 saying the command is queued", tc.name, i, ev, i+1)
			}
		}
		last := events[len(events)-1]
		if last["id"] != float64(7) || last["result"] == nil {
			t.Errorf("%s: last event %v, want the response to id 7", tc.name, last)
		}
	}

	for _, tc := range []struct {
		name, accept, meta string
	}{
		{"JSON only", "application/json", withToken},
		{"no progress token", sse, ""},
	} {
		resp, body := e.post(t, "POST", map[string]string{"Mcp-Session-Id": id, "Accept": tc.accept}, call(tc.meta))
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: got %d %q %s, want a JSON response", tc.name, resp.StatusCode, ct, body)
		}
	}
}

// TestStreamableCaptureProgress: a capture wait (observe logs with wait_ms)
// reports progress too while nothing arrives.
func TestStreamableCaptureProgress(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-11-25")
	resp, body := e.post(t, "POST", map[string]string{"Mcp-Session-Id": id, "Accept": "application/json, text/event-stream"},
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","wait_ms":400},"_meta":{"progressToken":7}}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("got %d %s, want an SSE stream", resp.StatusCode, body)
	}
	events := sseEvents(t, body)
	p, _ := events[0]["params"].(map[string]any)
	if msg, _ := p["message"].(string); p["progressToken"] != float64(7) || !strings.Contains(msg, "waiting for new") {
		t.Errorf("first event %v, want progress for token 7 saying what it waits for", events[0])
	}
	if last := events[len(events)-1]; last["id"] != float64(8) {
		t.Errorf("last event %v, want the response", last)
	}
}
