//go:build unix

package e2e

import (
	"bufio"
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

// TestVerifyAsTask: the user signs in by hand (CDP input); an agent of MCP
// 2026-07-28 that declares the Tasks extension asks, by URL on /mcp, for
// the Playwright test of it with verify:true. The call answers at once with
// a working task, and a subscriptions/listen on it streams the task as it
// runs and then completed, its result the passed verdict, before the
// subscription ends.
func TestVerifyAsTask(t *testing.T) {
	playwrightReady(t)
	e := ready(t)
	site := newRecordedSite(t)
	e.signInAndLoad(site)
	tab := e.tabOf(site.URL + "/tg/home.html")
	// The recording is complete once a plain analyze test shows its last
	// assertion.
	e.generate(map[string]any{"what": "test", "tab_id": tab}, "2 orders found")

	tok, err := os.ReadFile(filepath.Join(e.daemon.StateDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(e.daemon.Port) + "/mcp"
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e-verify","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	post := func(id int, method, name, params string) *http.Response {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":{` + meta + `,` + params + `}}`
		req, _ := http.NewRequestWithContext(e.ctx, "POST", url, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	start := time.Now()
	resp := post(1, "tools/call", "analyze", `"name":"analyze","arguments":{"what":"test","tab_id":`+strconv.FormatInt(tab, 10)+`,"verify":true}`)
	var created struct {
		Result struct {
			ResultType, TaskID, Status string
		} `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	answered := time.Since(start)
	id := created.Result.TaskID
	if created.Result.ResultType != "task" || created.Result.Status != "working" || id == "" {
		t.Fatalf("analyze test verify: got %+v, want a working task", created.Result)
	}

	resp = post(2, "subscriptions/listen", "", `"notifications":{"taskIds":["`+id+`"]}`)
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("subscriptions/listen: HTTP %d %s, want an SSE stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	var events []string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, d)
		}
	}
	if len(events) < 3 || !strings.Contains(events[0], `"notifications/subscriptions/acknowledged"`) ||
		!strings.Contains(events[len(events)-1], `"id":2,"result":{"resultType":"complete"`) {
		t.Fatalf("the subscription: got %d events, want the ack, the task's notifications, the end:\n%s", len(events), strings.Join(events, "\n"))
	}
	last := events[len(events)-2]
	var n struct {
		Method string `json:"method"`
		Params struct {
			Status string `json:"status"`
			Result struct {
				StructuredContent struct {
					Verified string `json:"verified"`
					File     string `json:"file"`
				} `json:"structuredContent"`
			} `json:"result"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(last), &n)
	if n.Method != "notifications/tasks" || n.Params.Status != "completed" || n.Params.Result.StructuredContent.Verified != "passed" ||
		!strings.Contains(n.Params.Result.StructuredContent.File, "2 orders found") {
		t.Fatalf("the last notification: got %s, want the completed task with the passed verdict", last)
	}
	t.Logf("the task answered in %s; Playwright's run took %s in all", answered.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}
