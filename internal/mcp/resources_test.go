package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/rs/zerolog"
)

// noResources has no resource at all.
type noResources struct{}

func (noResources) List(context.Context, string) ([]protocol.Resource, error) { return nil, nil }
func (noResources) Read(_ context.Context, _, uri string) ([]protocol.ResourceContents, error) {
	return nil, fmt.Errorf("%s: %w", uri, ErrResourceNotFound)
}

// TestReadUnknownResource: SEP-2164's answer to a URI the server does not
// know: -32602 (Invalid Params), with the URI in data, and the id of the
// request it answers.
func TestReadUnknownResource(t *testing.T) {
	s := NewServer(protocol.Implementation{Name: "gasoline", Version: "t"}, "", zerolog.New(zerolog.NewTestWriter(t)))
	s.SetResources(noResources{})
	out := s.Handle(context.Background(), "agent", []byte(`{"jsonrpc":"2.0","id":"r-7","method":"resources/read","params":{"uri":"gasoline://output/nope"}}`))
	var resp struct {
		ID    string `json:"id"`
		Error struct {
			Code int64 `json:"code"`
			Data struct {
				URI string `json:"uri"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if resp.ID != "r-7" || resp.Error.Code != protocol.CodeInvalidParams || resp.Error.Data.URI != "gasoline://output/nope" {
		t.Errorf("got %s, want id r-7, code -32602 and data.uri", out)
	}
}
