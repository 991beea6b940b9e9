package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestClientNames: initialize records the client's clientInfo.name,
// cleaned for use as a tab group title; a later initialize renames; the
// map keeps at most MaxClientNames, forgetting the oldest first.
func TestClientNames(t *testing.T) {
	s := testServer(t)
	initialize := func(client, name string) {
		t.Helper()
		out := s.Handle(context.Background(), client, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":`+name+`,"version":"1"}}}`))
		if !strings.Contains(string(out), `"result"`) {
			t.Fatalf("initialize: %s", out)
		}
	}
	initialize("a", `"claude-code"`)
	initialize("b", `" tab\tand\nnewline\u0000 "`)
	initialize("c", `"`+strings.Repeat("é", 60)+`"`)
	initialize("d", `""`)
	for client, want := range map[string]string{"a": "claude-code", "b": "tab and newline", "c": strings.Repeat("é", 40), "d": "", "never": ""} {
		if got := s.ClientName(client); got != want {
			t.Errorf("ClientName(%q) = %q, want %q", client, got, want)
		}
	}
	initialize("a", `"renamed"`)
	if got := s.ClientName("a"); got != "renamed" {
		t.Errorf("after a second initialize: %q, want renamed", got)
	}

	for i := range MaxClientNames {
		s.SetClientName(fmt.Sprint("n", i), "x")
	}
	if s.ClientName("a") != "" || s.ClientName("b") != "" {
		t.Errorf("the oldest names are still kept past the bound")
	}
	if s.ClientName("n0") != "x" || s.ClientName(fmt.Sprint("n", MaxClientNames-1)) != "x" {
		t.Errorf("recent names lost")
	}
	if n := len(s.names.names); n != MaxClientNames || len(s.names.order) != MaxClientNames {
		t.Errorf("%d names, %d in order; want %d", n, len(s.names.order), MaxClientNames)
	}
	if got := ClientNameOf([]byte(`{"clientInfo":{"name":"codex"}}`)); got != "codex" {
		t.Errorf("ClientNameOf: %q", got)
	}
}
