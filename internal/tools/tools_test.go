package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// maxToolsListTokens is the budget of the whole tools/list answer, in
// estimated tokens (characters/4): every agent pays it in every session.
// Raised from 2 000 to 2 600 for the surface of issues 15 to 20; still under
// half of playwright-mcp's 5 100.
const maxToolsListTokens = 2600

// newServer returns the MCP server with the tools registered over a fresh
// tracker.
func newServer(t *testing.T) *mcp.Server {
	t.Helper()
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	s := mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "test"}, Instructions, zerolog.New(zerolog.NewTestWriter(t)))
	health := func() apitype.Health { return apitype.Health{Service: apitype.ServiceName} }
	New(Deps{Tracker: trk, Health: health, Log: zerolog.New(zerolog.NewTestWriter(t))}).Register(s)
	return s
}

// toolsList returns the encoded result of tools/list.
func toolsList(t *testing.T, s *mcp.Server) json.RawMessage {
	t.Helper()
	out := s.Handle(context.Background(), "c", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	var resp struct {
		Result json.RawMessage     `json:"result"`
		Error  *protocol.WireError `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.Error != nil {
		t.Fatalf("tools/list: got %s (%v)", out, err)
	}
	return resp.Result
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (run go test ./internal/tools -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the tools now list; if the change is intended, run go test ./internal/tools -update and review the diff\ngot:\n%s", path, got)
	}
}

// TestToolsListGolden pins what agents see in tools/list: every change to a
// tool's description, enum or schema shows in the snapshot's diff.
func TestToolsListGolden(t *testing.T) {
	list := toolsList(t, newServer(t))
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, list, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden(t, "tools_list.golden.json", pretty.Bytes())
}

// TestToolsListBudget keeps tools/list under its token budget.
func TestToolsListBudget(t *testing.T) {
	list := toolsList(t, newServer(t))
	tokens := (len(list) + 3) / 4
	t.Logf("tools/list: %d chars, ~%d tokens (budget %d)", len(list), tokens, maxToolsListTokens)
	if tokens > maxToolsListTokens {
		t.Errorf("tools/list is ~%d tokens, over the %d budget: make the descriptions terser", tokens, maxToolsListTokens)
	}
}
