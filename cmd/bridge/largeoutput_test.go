//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// TestLargeOutputThroughBridge is issue 4's user story end to end: a fake
// extension posts a 3 MB page, and the agent, speaking to the real
// gasoline-mcp, gets a small handle and reads the page by slice and
// extraction, each piece verifiable against the source.
func TestLargeOutputThroughBridge(t *testing.T) {
	t.Parallel()
	e := harness.NewEnv(t, bins)
	b := startBridge(e)
	b.initialize(1)

	var sb strings.Builder
	for i := 0; sb.Len() < 3<<20; i++ {
		fmt.Fprintf(&sb, "<li class=\"row\">Row %d — ✓ fine</li>\n", i)
		if i == 50000 {
			sb.WriteString("<form id=\"signup\"><div class=\"error\">Password must be at least 12 characters</div></form>\n")
		}
	}
	page := sb.String()
	sum := sha256.Sum256([]byte(page))

	b.tool(2, "interact", map[string]any{"action": "execute_js", "script": "document.documentElement.outerHTML"})
	var queued toolResult
	b.result(2, 5*time.Second, &queued)
	id := queued.StructuredContent["correlation_id"].(string)

	// The fake extension: long-poll, then post the page.
	tok, err := state.Dir{Path: e.Dir}.ReadToken()
	if err != nil {
		t.Fatal(err)
	}
	ext := func(method, path string, body any) []byte {
		var rd io.Reader
		if body != nil {
			j, _ := json.Marshal(body)
			rd = bytes.NewReader(j)
		}
		req, _ := http.NewRequest(method, config.BaseURL(e.Port)+path, rd)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: HTTP %d %s", method, path, resp.StatusCode, out)
		}
		return out
	}
	var pq apitype.PendingQueries
	json.Unmarshal(ext("GET", "/pending-queries?wait_ms=5000", nil), &pq)
	if len(pq.Queries) != 1 || pq.Queries[0].CorrelationID != id {
		t.Fatalf("poll: got %+v, want %s", pq, id)
	}
	ext("POST", "/query-result", map[string]any{"correlation_id": id, "status": "pending"})
	ext("POST", "/query-result", map[string]any{"correlation_id": id, "status": "complete", "result": map[string]any{"value": page}})

	// The handle: small, with the size and the source hash.
	b.tool(3, "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": 5000})
	r := b.recv(10 * time.Second)
	if r.Error != nil || len(r.Result) > 8000 { // text + structuredContent, each well under 1000 tokens
		t.Fatalf("command_result through the bridge: got %d bytes (error %v), want a small handle", len(r.Result), r.Error)
	}
	var handle toolResult
	if err := json.Unmarshal(r.Result, &handle); err != nil {
		t.Fatal(err)
	}
	out, _ := handle.StructuredContent["result"].(map[string]any)["output"].(map[string]any)
	if out["sha256"] != hex.EncodeToString(sum[:]) || out["chars"] != float64(len([]rune(page))) {
		t.Fatalf("got handle %v, want the page's size and hash", out)
	}

	b.tool(4, "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "anchor": "<form", "window": 300})
	var slice toolResult
	b.result(4, 10*time.Second, &slice)
	start, end := int(slice.StructuredContent["start"].(float64)), int(slice.StructuredContent["end"].(float64))
	if got := slice.StructuredContent["text"]; got != string([]rune(page)[start:end]) || !strings.Contains(got.(string), "<form id=\"signup\">") {
		t.Fatalf("slice [%d,%d): got %.120q, want the verbatim window around <form", start, end, got)
	}

	b.tool(5, "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "extract", "query": "password error message"})
	var ex toolResult
	b.result(5, 20*time.Second, &ex)
	snips, _ := ex.StructuredContent["snippets"].([]any)
	found := false
	for _, s := range snips {
		sm := s.(map[string]any)
		st, en := int(sm["start"].(float64)), int(sm["end"].(float64))
		if sm["text"] != string([]rune(page)[st:en]) {
			t.Errorf("snippet %q is not the source at [%d,%d)", sm["text"], st, en)
		}
		found = found || strings.Contains(sm["text"].(string), "Password must be at least 12 characters")
	}
	if !found {
		t.Errorf("extract: got %v, want the password error", ex.StructuredContent)
	}
	if code := b.closeAndWait(5 * time.Second); code != 0 {
		t.Errorf("gasoline-mcp exited %d, want 0", code)
	}
}
