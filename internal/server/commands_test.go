package server_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// TestCommandsView checks GET /commands against its wire type: every key
// lower-case, as /health's, and a queued command listed.
func TestCommandsView(t *testing.T) {
	e := newEnv(t)
	auth := map[string]string{"Authorization": "Bearer " + token}
	if got, body := e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": "Bearer " + token, apitype.HeaderClient: "t"}, interactCall}); got != 200 {
		t.Fatalf("interact: got %d %s", got, body)
	}
	got, body := e.do(t, req{"GET", "/commands", auth, ""})
	if got != 200 {
		t.Fatalf("commands: got %d %s", got, body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var v apitype.Commands
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("commands %s: %v", body, err)
	}
	if len(v.Commands.Pending) != 1 || v.Commands.Pending[0].Action != "execute_js" || v.Stats.Queued != 1 {
		t.Errorf("got %s, want the queued execute_js", body)
	}
	var raw struct {
		Stats map[string]int `json:"stats"`
	}
	json.Unmarshal(body, &raw)
	for k := range raw.Stats {
		if k != "queued" && k != "pending" && k != "external" && k != "completed" && k != "failed" {
			t.Errorf("stats key %q: want lower-case keys", k)
		}
	}
}
