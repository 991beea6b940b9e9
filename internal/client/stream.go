package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

type projectKey struct{}

// WithProject returns ctx whose /mcp requests (Call, CallStream) name dirs,
// in order, as the agent's project folders (apitype.HeaderProject, once
// each); "" entries are left out.
func WithProject(ctx context.Context, dirs ...string) context.Context {
	return context.WithValue(ctx, projectKey{}, dirs)
}

// mcpRequest builds a POST /mcp of msg for clientID, authenticated with
// token, accepting accept.
func mcpRequest(ctx context.Context, baseURL, token, clientID string, msg []byte, idempotent bool, accept string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/mcp", bytes.NewReader(msg))
	if err != nil {
		return nil, fmt.Errorf("building MCP request: %w", err)
	}
	// Direct map writes: the keys are already canonical.
	h := req.Header
	h["Authorization"] = []string{"Bearer " + token}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{accept}
	if clientID != "" {
		h[apitype.HeaderClient] = []string{clientID}
	}
	dirs, _ := ctx.Value(projectKey{}).([]string)
	for _, dir := range dirs {
		if dir != "" {
			h[apitype.HeaderProject] = append(h[apitype.HeaderProject], url.PathEscape(dir))
		}
	}
	if idempotent {
		// A nil value marks the request replayable without sending the
		// header (net/http Transport documentation).
		h["Idempotency-Key"] = nil
	}
	return req, nil
}

// CallStream is Call for a request that may send notifications before its
// response (progress during a wait): it accepts an SSE answer, calls notify
// with each notification as it arrives (from the caller's goroutine, in
// order), and returns the response. A plain JSON answer is returned as Call
// returns it. Failures are those of Call; a stream that ends before the
// response wraps ErrConnLost.
func (c *Client) CallStream(ctx context.Context, clientID string, msg []byte, idempotent bool, notify func([]byte)) (Reply, error) {
	resp, err := c.send(ctx, func(token string) (*http.Request, error) {
		return mcpRequest(ctx, c.baseURL, token, clientID, msg, idempotent, "application/json, text/event-stream")
	})
	if err != nil {
		return Reply{}, classify("posting to /mcp", err)
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" || resp.StatusCode != http.StatusOK {
		return c.reply(resp)
	}
	var r Reply
	if v := resp.Header.Get(apitype.HeaderDaemonStarted); v != "" {
		r.DaemonStarted, _ = time.Parse(time.RFC3339Nano, v)
	}
	rd := bufio.NewReaderSize(io.LimitReader(resp.Body, maxResponse), 64<<10)
	var data bytes.Buffer
	for {
		line, err := rd.ReadString('\n')
		if err != nil && (err != io.EOF || line == "") {
			if ctxErr := contextError(err); ctxErr != nil {
				return r, classify("reading /mcp stream", err)
			}
			return r, fmt.Errorf("reading /mcp stream: the stream ended before the response: %w: %w", ErrConnLost, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(v, " "))
			continue
		}
		if line != "" || data.Len() == 0 {
			continue // event:, id:, retry: and comments carry nothing the bridge needs
		}
		event := bytes.Clone(data.Bytes())
		data.Reset()
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(event, &probe) != nil {
			return r, fmt.Errorf("%s sent an SSE event that is not JSON-RPC: %w", c.baseURL, ErrNotGasoline)
		}
		if probe.Method != "" && len(probe.ID) == 0 {
			if notify != nil {
				notify(event)
			}
			continue
		}
		r.Body = event
		return r, nil
	}
}
