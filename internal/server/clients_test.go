package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// TestPendingQueriesNameTheClient: each command handed to the extension
// says which client asked for it and the name that client gave in
// initialize, for the bridge (X-Gasoline-Client) and for a URL-connected
// session alike; a client that never initialized has an id and no name.
func TestPendingQueriesNameTheClient(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	bearer := "Bearer " + token
	init := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":` +
			name + `,"version":"1"}}}`
	}
	bridge := func(client, body string) {
		t.Helper()
		if got, b := e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": bearer, apitype.HeaderClient: client}, body}); got != 200 {
			t.Fatalf("%s: got %d %s", client, got, b)
		}
	}
	bridge("bridge-a", init(`"claude-code"`))
	bridge("bridge-a", interactCall)
	bridge("bridge-b", init(`"cursor\u0007\n  agent"`)) // control characters and runs of space are cleaned
	bridge("bridge-b", interactCall)
	bridge("bridge-c", interactCall) // never initialized

	sess := httpSession(t, e, init(`"codex"`))
	if got, b := e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": bearer, "Mcp-Session-Id": sess}, interactCall}); got != 200 {
		t.Fatalf("session call: got %d %s", got, b)
	}

	got, body := ext.do(t, "GET", "/pending-queries?wait_ms=0", "")
	if got != 200 {
		t.Fatalf("poll: got %d %s", got, body)
	}
	var pq apitype.PendingQueries
	if err := json.Unmarshal(body, &pq); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, q := range pq.Queries {
		names[q.Client] = q.ClientName
	}
	want := map[string]string{"bridge-a": "claude-code", "bridge-b": "cursor agent", "bridge-c": "", "session-" + sess: "codex"}
	if len(names) != len(want) {
		t.Fatalf("clients %v, want %v (body %s)", names, want, body)
	}
	for c, n := range want {
		if got, ok := names[c]; !ok || got != n {
			t.Errorf("client %q: name %q (present %v), want %q", c, got, ok, n)
		}
	}
}

// httpSession initializes a URL-connected client with body and returns its
// Mcp-Session-Id.
func httpSession(t *testing.T, e *env, body string) string {
	t.Helper()
	hr, err := http.NewRequest("POST", e.url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Authorization", "Bearer "+token)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: HTTP %d, session %q", resp.StatusCode, id)
	}
	return id
}
