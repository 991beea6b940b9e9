package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// Resources lists and reads the resources a client may see. Implementations
// must be safe for concurrent use.
type Resources interface {
	// List returns client's resources.
	List(ctx context.Context, client string) ([]protocol.Resource, error)
	// Read returns the contents of the resource at uri for client; an
	// unknown or foreign uri is ErrResourceNotFound (wrapped, with what to
	// do next in its message).
	Read(ctx context.Context, client, uri string) ([]protocol.ResourceContents, error)
}

// ErrResourceNotFound is wrapped by Resources.Read for a uri it does not
// serve.
var ErrResourceNotFound = errors.New("resource not found")

// SetResources installs r and declares the resources capability in
// initialize. Call it before the first Handle.
func (s *Server) SetResources(r Resources) { s.resources = r }

// resourcesMethod answers the resources/* methods, or reports false when
// method is not one of them or no Resources is installed.
func (s *Server) resourcesMethod(ctx context.Context, client string, req *protocol.Request) (json.RawMessage, *protocol.WireError, bool) {
	if s.resources == nil {
		return nil, nil, false
	}
	switch req.Method {
	case protocol.MethodResourcesList:
		list, err := s.resources.List(ctx, client)
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInternalError, "listing resources: %v", err), true
		}
		if list == nil {
			list = []protocol.Resource{}
		}
		b, _ := json.Marshal(protocol.ListResourcesResult{Resources: list})
		return b, nil, true
	case protocol.MethodResourcesTemplatesList:
		return json.RawMessage(`{"resourceTemplates":[]}`), nil, true
	case protocol.MethodResourcesRead:
		var p protocol.ReadResourceParams
		if err := json.Unmarshal(req.Params, &p); err != nil || p.URI == "" {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid resources/read params: \"uri\" (string) is required"), true
		}
		contents, err := s.resources.Read(ctx, client, p.URI)
		if errors.Is(err, ErrResourceNotFound) {
			// SEP-2164: -32602, with the URI in data.
			werr := protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
			werr.Data, _ = json.Marshal(struct {
				URI string `json:"uri"`
			}{p.URI})
			return nil, werr, true
		}
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInternalError, "reading %s: %v", p.URI, err), true
		}
		b, _ := json.Marshal(protocol.ReadResourceResult{Contents: contents})
		return b, nil, true
	}
	return nil, nil, false
}
