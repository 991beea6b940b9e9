//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTaskRoundTrip runs a browser command as a task of MCP 2026-07-28's
// Tasks extension, by URL on the daemon's /mcp, with the real extension in
// Chromium: the call answers with a task whose id is the correlation id,
// tasks/get reports it working and then completed with command_result's
// result.
func TestTaskRoundTrip(t *testing.T) {
	e := ready(t)
	tok, err := os.ReadFile(filepath.Join(e.daemon.StateDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(e.daemon.Port) + "/mcp"
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e-tasks","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	post := func(id int, method, name, params string) map[string]any {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":{` + meta + `,` + params + `}}`
		req, _ := http.NewRequestWithContext(e.ctx, "POST", url, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct {
			Result map[string]any `json:"result"`
			Error  any            `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Result == nil {
			t.Fatalf("%s: HTTP %d, %v, error %v", method, resp.StatusCode, err, m.Error)
		}
		return m.Result
	}

	created := post(1, "tools/call", "interact", `"name":"interact","arguments":{"action":"execute_js","script":"document.title"}`)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || !strings.HasPrefix(id, "exec_") || created["status"] != "working" {
		t.Fatalf("tools/call: got %v, want a working task with an exec_ id", created)
	}
	poll := time.Duration(created["pollIntervalMs"].(float64)) * time.Millisecond
	deadline := time.Now().Add(20 * time.Second)
	var got map[string]any
	for n := 2; ; n++ {
		got = post(n, "tasks/get", id, `"taskId":"`+id+`"`)
		if got["status"] != "working" || time.Now().After(deadline) {
			break
		}
		time.Sleep(poll) // the interval the server asks for
	}
	result, _ := got["result"].(map[string]any)
	sc, _ := result["structuredContent"].(map[string]any)
	if got["status"] != "completed" || sc["status"] != "complete" || sc["correlation_id"] != id {
		t.Fatalf("tasks/get: got %v, want completed with command_result's result", got)
	}
	if v, _ := sc["result"].(map[string]any); v == nil || v["value"] != "Page A" {
		t.Errorf("task result %v, want document.title Page A", sc["result"])
	}
}
