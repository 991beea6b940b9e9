package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// modernReq is a request of the stateless revision: its _meta names the
// version, the client and (with tasks) the Tasks extension.
func modernReq(id int, method, params string, tasks bool) string {
	caps := `{}`
	if tasks {
		caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"agent one","version":"1"},"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params == "" {
		params = "{" + meta + "}"
	} else {
		params = "{" + meta + "," + params + "}"
	}
	b, _ := json.Marshal(id)
	return `{"jsonrpc":"2.0","id":` + string(b) + `,"method":"` + method + `","params":` + params + `}`
}

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return m
}

func TestModernDiscoverAndList(t *testing.T) {
	e := newStreamEnv(t)
	resp, body := e.post(t, "POST", modernHeaders("server/discover", ""), modernReq(1, "server/discover", "", false))
	m := decode(t, body)
	res, _ := m["result"].(map[string]any)
	if resp.StatusCode != 200 || res["resultType"] != "complete" || res["cacheScope"] != "private" || res["ttlMs"] != float64(0) ||
		!strings.Contains(string(body), `"supportedVersions":["2026-07-28","2025-11-25"`) ||
		!strings.Contains(string(body), `"io.modelcontextprotocol/tasks":{}`) || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("discover: got %d %s", resp.StatusCode, body)
	}
	// No session, and one that is sent is ignored.
	h := modernHeaders("tools/list", "")
	h["Mcp-Session-Id"] = "feedface"
	resp, body = e.post(t, "POST", h, modernReq(2, "tools/list", "", false))
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[`) ||
		!strings.Contains(string(body), `"ttlMs":300000,"cacheScope":"public"}`) {
		t.Fatalf("tools/list: got %d %.300s", resp.StatusCode, body)
	}
}

func TestModernErrors(t *testing.T) {
	e := newStreamEnv(t)
	ping := modernReq(3, "ping", "", false)
	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		code    string
	}{
		{"version header differs from _meta", map[string]string{"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "ping"}, ping, 400, "header_mismatch"},
		{"no Mcp-Method", map[string]string{"MCP-Protocol-Version": "2026-07-28"}, ping, 400, "header_mismatch"},
		{"Mcp-Method differs", modernHeaders("tools/list", ""), ping, 400, "header_mismatch"},
		{"tools/call without Mcp-Name", modernHeaders("tools/call", ""), modernReq(4, "tools/call", `"name":"observe","arguments":{"what":"tabs"}`, false), 400, "header_mismatch"},
		{"Mcp-Name differs", modernHeaders("tools/call", "interact"), modernReq(4, "tools/call", `"name":"observe","arguments":{"what":"tabs"}`, false), 400, "header_mismatch"},
		{"base64 Mcp-Name", modernHeaders("tools/call", "=?base64?b2JzZXJ2ZQ==?="), modernReq(4, "tools/call", `"name":"observe","arguments":{"what":"pending_commands"}`, false), 200, ""},
		{"unsupported version", map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "ping"},
			strings.ReplaceAll(ping, "2026-07-28", "2099-01-01"), 400, "-32022"},
		{"unknown method", modernHeaders("prompts/get", ""), modernReq(5, "prompts/get", "", false), 404, "-32601"},
	} {
		resp, body := e.post(t, "POST", tc.headers, tc.body)
		if resp.StatusCode != tc.status || errorCode(body) != tc.code {
			t.Errorf("%s: got %d %s, want %d %q", tc.name, resp.StatusCode, body, tc.status, tc.code)
		}
	}
}

// A browser command is a task for a client that declares the extension:
// tasks/get says what it waits for, then gives command_result's result.
func TestModernTask(t *testing.T) {
	e := newStreamEnv(t)
	call := modernReq(1, "tools/call", `"name":"interact","arguments":{"action":"execute_js","script":"1+1","tab_id":7}`, true)
	_, body := e.post(t, "POST", modernHeaders("tools/call", "interact"), call)
	var created struct {
		Result struct {
			ResultType     string `json:"resultType"`
			TaskID         string `json:"taskId"`
			Status         string `json:"status"`
			StatusMessage  string `json:"statusMessage"`
			TTLMS          int64  `json:"ttlMs"`
			PollIntervalMS int64  `json:"pollIntervalMs"`
		} `json:"result"`
	}
	json.Unmarshal(body, &created)
	r := created.Result
	if r.ResultType != "task" || !strings.HasPrefix(r.TaskID, "exec_") || r.Status != "working" ||
		!strings.Contains(r.StatusMessage, "queued") || r.TTLMS <= 0 || r.PollIntervalMS <= 0 {
		t.Fatalf("tools/call: got %s, want a working task", body)
	}
	// The same client without the extension gets today's handle.
	_, body = e.post(t, "POST", modernHeaders("tools/call", "interact"), modernReq(2, "tools/call", `"name":"interact","arguments":{"action":"execute_js","script":"2"}`, false))
	if !strings.Contains(string(body), `"resultType":"complete"`) || !strings.Contains(string(body), `\"status\":\"queued\"`) {
		t.Errorf("tools/call without tasks: got %s, want the queued handle", body)
	}

	get := func(id int) map[string]any {
		_, body := e.post(t, "POST", modernHeaders("tasks/get", r.TaskID), modernReq(id, "tasks/get", `"taskId":"`+r.TaskID+`"`, true))
		res, _ := decode(t, body)["result"].(map[string]any)
		if res == nil || res["resultType"] != "complete" || res["taskId"] != r.TaskID {
			t.Fatalf("tasks/get: got %s", body)
		}
		return res
	}
	cmds, err := e.tracker.Poll(t.Context(), "ext-1", 10)
	if err != nil || len(cmds) != 2 {
		t.Fatalf("poll: %d commands, %v", len(cmds), err)
	}
	e.tracker.Report("ext-1", r.TaskID, tracker.StatePending, nil, "")
	if res := get(3); res["status"] != "working" || !strings.Contains(res["statusMessage"].(string), "running in tab 7") {
		t.Errorf("running task: got %v", res)
	}
	e.tracker.Report("ext-1", r.TaskID, tracker.StateComplete, json.RawMessage(`{"value":2}`), "")
	res := get(4)
	inner, _ := res["result"].(map[string]any)
	sc, _ := inner["structuredContent"].(map[string]any)
	if res["status"] != "completed" || inner["resultType"] != "complete" || sc["status"] != "complete" || sc["correlation_id"] != r.TaskID {
		t.Errorf("completed task: got %v", res)
	}

	// Another agent does not see it.
	other := strings.ReplaceAll(modernReq(5, "tasks/get", `"taskId":"`+r.TaskID+`"`, true), "agent one", "agent two")
	_, body = e.post(t, "POST", modernHeaders("tasks/get", r.TaskID), other)
	if errorCode(body) != "-32602" {
		t.Errorf("another agent's tasks/get: got %s, want -32602", body)
	}
}

func TestModernTaskCancel(t *testing.T) {
	e := newStreamEnv(t)
	_, body := e.post(t, "POST", modernHeaders("tools/call", "interact"),
		modernReq(1, "tools/call", `"name":"interact","arguments":{"action":"execute_js","script":"1"}`, true))
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	json.Unmarshal(body, &created)
	id := created.Result.TaskID
	_, body = e.post(t, "POST", modernHeaders("tasks/cancel", id), modernReq(2, "tasks/cancel", `"taskId":"`+id+`"`, true))
	if !strings.Contains(string(body), `"result":{"resultType":"complete"}`) {
		t.Fatalf("tasks/cancel: got %s", body)
	}
	c, err := e.tracker.Get(id)
	if err != nil || c.State != tracker.StateCancelled {
		t.Fatalf("command after tasks/cancel: %v %v, want cancelled", c.State, err)
	}
	_, body = e.post(t, "POST", modernHeaders("tasks/get", id), modernReq(3, "tasks/get", `"taskId":"`+id+`"`, true))
	if !strings.Contains(string(body), `"status":"cancelled"`) || strings.Contains(string(body), `"result":{"content"`) {
		t.Errorf("cancelled task: got %s", body)
	}
}

// Legacy sessions: a second initialize is refused; a version header that
// differs from the session's is served at the session's version when the
// server supports it, and refused with 400 when it does not (2025-11-25
// transports, "Protocol Version Header").
func TestSessionAgreement(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-06-18")
	resp, body := e.post(t, "POST", map[string]string{"Mcp-Session-Id": id}, initialize("2025-06-18"))
	if resp.StatusCode != 400 || errorCode(body) != "already_initialized" {
		t.Errorf("second initialize: got %d %s", resp.StatusCode, body)
	}
	for _, tt := range []struct {
		version string
		status  int
		code    string
	}{
		{"2025-03-26", 200, ""}, // what conformance 0.1.16's server-sse-multiple-streams sends
		{"2025-11-25", 200, ""},
		{"", 200, ""},
		{"2024-01-01", 400, "-32022"}, // UnsupportedProtocolVersion
		{"banana", 400, "-32022"},
		{"2026-07-28", 400, ""}, // the stateless revision: its _meta is missing
	} {
		h := map[string]string{"Mcp-Session-Id": id}
		if tt.version != "" {
			h["MCP-Protocol-Version"] = tt.version
		}
		resp, body = e.post(t, "POST", h, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if resp.StatusCode != tt.status || (tt.code != "" && errorCode(body) != tt.code) {
			t.Errorf("header %q: got %d %s, want %d %s", tt.version, resp.StatusCode, body, tt.status, tt.code)
		}
		if tt.status == 200 && !strings.Contains(string(body), `"tools":[`) {
			t.Errorf("header %q: got %s, want the tool list", tt.version, body)
		}
		if tt.status != 200 && !strings.Contains(string(body), `"id":2`) {
			t.Errorf("header %q: the error %s does not answer the request's id 2", tt.version, body)
		}
	}
	// The same for the other transport failures found before the request
	// is handled: an unknown session.
	resp, body = e.post(t, "POST", map[string]string{"Mcp-Session-Id": "nope"}, `{"jsonrpc":"2.0","id":"q7","method":"tools/list"}`)
	if resp.StatusCode != 404 || !strings.Contains(string(body), `"id":"q7"`) {
		t.Errorf("unknown session: got %d %s, want 404 answering id q7", resp.StatusCode, body)
	}
}

// 2025-11-25's task-augmented calls: a call that ends at once is a task
// holding its result; a tool that runs no commands refuses the task.
func TestLegacyTaskAtOnce(t *testing.T) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-11-25")
	h := map[string]string{"Mcp-Session-Id": id}
	_, body := e.post(t, "POST", h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"interact","task":{},"arguments":{"action":"cancel","correlation_id":"exec_nope"}}}`)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
				TTL    int64  `json:"ttl"`
			} `json:"task"`
		} `json:"result"`
	}
	json.Unmarshal(body, &created)
	task := created.Result.Task
	if !strings.HasPrefix(task.TaskID, "res_") || task.Status != "failed" || task.TTL <= 0 {
		t.Fatalf("task-augmented call that failed at once: got %s", body)
	}
	_, body = e.post(t, "POST", h, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+task.TaskID+`"}}`)
	if !strings.Contains(string(body), `"isError":true`) || !strings.Contains(string(body), `"io.modelcontextprotocol/related-task":{"taskId":"`+task.TaskID+`"}`) {
		t.Errorf("tasks/result: got %s", body)
	}
	_, body = e.post(t, "POST", h, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"observe","task":{},"arguments":{"what":"tabs"}}}`)
	if errorCode(body) != "-32601" {
		t.Errorf("observe as a task: got %s, want -32601", body)
	}
}

// notifications/cancelled on a session ends the wait of the request it
// names, which then gets no JSON-RPC response, as on stdio: the POST ends
// with an event stream that carries no event, or for a client that takes
// only JSON, the id with a cancellation error (never 204 with no content
// type, which the transport does not allow for a request).
func TestSessionCancellation(t *testing.T) {
	for _, accept := range []string{"application/json, text/event-stream", "application/json"} {
		t.Run(accept, func(t *testing.T) { testSessionCancellation(t, accept) })
	}
}

func testSessionCancellation(t *testing.T, accept string) {
	e := newStreamEnv(t)
	id := e.session(t, "2025-11-25")
	h := map[string]string{"Mcp-Session-Id": id}
	_, body := e.post(t, "POST", h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"1"}}}`)
	var q struct {
		Result struct {
			StructuredContent struct {
				CorrelationID string `json:"correlation_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	json.Unmarshal(body, &q)
	type answer struct {
		status      int
		contentType string
		body        string
		took        time.Duration
	}
	done := make(chan answer, 1)
	go func() {
		start := time.Now()
		req, _ := http.NewRequest("POST", e.url+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":"w-1","method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"`+q.Result.StructuredContent.CorrelationID+`","wait_ms":30000}}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b), time.Since(start)}
	}()
	// Cancel until the wait has begun and ended: the notification may come
	// before the request is in flight, and is then simply ignored.
	deadline := time.After(20 * time.Second)
	for {
		e.post(t, "POST", h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w-1","reason":"user"}}`)
		select {
		case a := <-done:
			if a.took > 15*time.Second {
				t.Errorf("cancelled wait answered after %v, want long before 30 s", a.took)
			}
			if accept == "application/json, text/event-stream" {
				// An event stream that ends without the response.
				if a.status != http.StatusOK || a.contentType != "text/event-stream" || a.body != "" {
					t.Errorf("cancelled wait: got %d %q %q, want 200, an event stream and no event", a.status, a.contentType, a.body)
				}
			} else if a.status != http.StatusOK || !strings.HasPrefix(a.contentType, "application/json") ||
				!strings.Contains(a.body, `"id":"w-1"`) || !strings.Contains(a.body, "-32800") {
				// A JSON-only client gets the id and a cancellation error.
				t.Errorf("cancelled wait: got %d %q %q, want 200 JSON with id w-1 and -32800", a.status, a.contentType, a.body)
			}
			return
		case <-deadline:
			t.Fatal("the wait did not end after notifications/cancelled")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// A refused MCP client gets a JSON-RPC error, and 401 names the scheme.
func TestMCPUnauthorized(t *testing.T) {
	e := newStreamEnv(t)
	r, _ := http.NewRequest("POST", e.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	r.Header.Set("Authorization", "Bearer wrong")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") ||
		errorCode(b) != "unauthorized" || !strings.Contains(string(b), `"jsonrpc":"2.0"`) {
		t.Errorf("wrong token: got %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b)
	}
}
