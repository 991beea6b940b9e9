package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/imaging"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// outputScheme prefixes the URI of a stored output: gasoline://output/<id>.
const outputScheme = "gasoline://output/"

func outputURI(id string) string { return outputScheme + id }

// outputLink is the resource the output stored under id is offered as.
func outputLink(id, title string, s *result.Stored) protocol.Resource {
	return protocol.Resource{
		URI:         outputURI(id),
		Name:        id,
		Title:       title,
		Description: fmt.Sprintf("%d chars, ~%d tokens", s.Handle.Chars, s.Handle.EstimatedTokens),
		MIMEType:    cmp.Or(imaging.Sniff(s.Handle.Preview), jsonMIME(id), "text/plain"),
		Size:        int64(s.Handle.Bytes),
	}
}

// outputResources offers each client's stored large outputs as MCP
// resources: resources/list lists those of its commands the daemon still
// knows, resources/read returns one whole: a stored image (a base64 PNG or
// JPEG: a full-resolution screenshot, an annotation crop) as a blob with
// its image mimeType, an exported HAR or SARIF log as JSON with its page
// text between the fence's markers inside the format's rules (fenceHAR,
// fenceSARIF), anything else as text between the markers (fence.go: it
// holds page text). Only the output's owner reads it
// (result.Keeper.Open, the rule every read applies); any other id is
// "not found", as an unknown one.
type outputResources struct{ t *Tools }

func (r outputResources) List(_ context.Context, client string) ([]protocol.Resource, error) {
	l := r.t.d.Tracker.List(client)
	var out []protocol.Resource
	for _, c := range append(l.Completed, l.Failed...) {
		if s, ok := result.StoredOf(c); ok {
			out = append(out, outputLink(c.ID, c.Action+" output", s))
		} else if c.Action == "screenshot" {
			// A full-resolution screenshot small enough to stay inline is
			// stored when it is first shown.
			if h, err := r.t.d.Results.Handle(client, c.ID); err == nil {
				out = append(out, outputLink(c.ID, c.Action+" output", &result.Stored{Handle: h}))
			}
		}
	}
	return out, nil
}

func (r outputResources) Read(_ context.Context, client, uri string) ([]protocol.ResourceContents, error) {
	id, ok := strings.CutPrefix(uri, outputScheme)
	if !ok || id == "" {
		return nil, fmt.Errorf("%w: %s is not a gasoline output; resources/list gives the URIs (%s<correlation_id>)", mcp.ErrResourceNotFound, uri, outputScheme)
	}
	text, err := r.t.d.Results.Content(client, id)
	switch {
	case errors.Is(err, result.ErrUnknown):
		return nil, fmt.Errorf("%w: %s is not a stored output of yours (unknown, or gone with its command); resources/list lists yours", mcp.ErrResourceNotFound, uri)
	case errors.Is(err, result.ErrNoStore):
		return nil, fmt.Errorf("%w: this daemon keeps no output store", mcp.ErrResourceNotFound)
	case errors.Is(err, output.ErrNotFound), errors.Is(err, output.ErrEvicted):
		return nil, fmt.Errorf("%w: the output of %s is gone (evicted under the output memory budget, or the daemon restarted); run the command again", mcp.ErrResourceNotFound, id)
	case err != nil:
		if nc, ok := errors.AsType[*result.NotCompleteError](err); ok {
			return nil, fmt.Errorf("%w: command %s is %s and has no output yet; read its status with observe({what:\"command_result\", correlation_id})", mcp.ErrResourceNotFound, id, publicStatus(nc.Command))
		}
		return nil, err
	}
	if mime := imaging.Sniff(text); mime != "" {
		return []protocol.ResourceContents{{URI: uri, MIMEType: mime, Blob: text}}, nil
	}
	if mime := jsonMIME(id); mime != "" { // a file to save as is, its page text fenced inside the format's rules
		fenced, ok := pageFence.fenceHAR([]byte(text))
		if strings.HasSuffix(id, sarifSuffix) {
			fenced, ok = pageFence.fenceSARIF([]byte(text))
		}
		if ok {
			return []protocol.ResourceContents{{URI: uri, MIMEType: mime, Text: string(fenced)}}, nil
		}
	}
	return []protocol.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: pageFence.fenceText(text)}}, nil
}

// jsonMIME is the mimeType of the stored outputs that are JSON documents
// (exported HARs, audits' SARIF logs), "" for the others.
func jsonMIME(id string) string {
	if strings.HasPrefix(id, harHandlePrefix) || strings.HasSuffix(id, sarifSuffix) {
		return "application/json"
	}
	return ""
}
