// Package client is the typed Go client of the gasoline daemon's HTTP API,
// shared by the stdio bridge and the CLI.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// Errors callers branch on. They are wrapped: test with errors.Is.
var (
	// ErrUnreachable means the request never reached a daemon: nothing
	// accepted the connection. Retrying after starting a daemon is safe.
	ErrUnreachable = errors.New("gasoline daemon unreachable")
	// ErrNotGasoline means something answered on the daemon's port that is
	// not a gasoline daemon.
	ErrNotGasoline = errors.New("not a gasoline daemon")
	// ErrConnLost means the connection broke after the request was sent: the
	// daemon may or may not have acted on it (typically it was restarted).
	ErrConnLost = errors.New("connection to the gasoline daemon lost")
)

// maxResponse bounds a response body read into memory. The daemon caps a
// single output at 10 MB; the rest is headroom for JSON escaping.
const maxResponse = 64 << 20

// APIError is an HTTP error answered by the daemon, decoded from its
// apitype.ErrorBody.
type APIError struct {
	Status int // HTTP status code
	apitype.ErrorDetail
}

// Error returns the daemon's message and, when there is one, its hint.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	s := fmt.Sprintf("gasoline daemon: %s (HTTP %d", msg, e.Status)
	if e.Code != "" {
		s += ", " + e.Code
	}
	s += ")"
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	return s
}

// Client talks to one daemon. It is safe for concurrent use; all requests
// share one keep-alive transport, so create one Client per daemon and reuse it.
type Client struct {
	baseURL string
	token   atomic.Pointer[string]
	hc      *http.Client
}

// New returns a Client of the daemon at baseURL (see config.BaseURL) that
// authenticates with token. The token may be empty for Health alone.
func New(baseURL, token string) *Client {
	tr := &http.Transport{
		Proxy: nil, // loopback only: never route the token through a proxy
		DialContext: dialChecked((&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext),
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		// Below any server idle timeout, so a pooled connection is seldom
		// closed by the daemon just as a request is written on it.
		IdleConnTimeout:    30 * time.Second,
		DisableCompression: true,
		ForceAttemptHTTP2:  false,
	}
	c := &Client{
		baseURL: strings.TrimRight(baseURL, "/"),
		hc:      &http.Client{Transport: tr},
	}
	c.SetToken(token)
	return c
}

// BaseURL returns the daemon URL the Client talks to.
func (c *Client) BaseURL() string { return c.baseURL }

// Token returns the token the Client currently sends.
func (c *Client) Token() string { return *c.token.Load() }

// SetToken replaces the token sent on later requests, for instance after a
// restarted daemon created a new one. It is safe to call concurrently with
// requests.
func (c *Client) SetToken(token string) { c.token.Store(&token) }

// CloseIdleConnections closes pooled keep-alive connections.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Health returns the daemon's GET /health answer. It fails with an error
// wrapping ErrUnreachable when nothing answers, and ErrNotGasoline when
// something that is not a gasoline daemon does.
func (c *Client) Health(ctx context.Context) (apitype.Health, error) {
	var h apitype.Health
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/health", nil)
	if err != nil {
		return h, fmt.Errorf("building health request: %w", err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return h, classify("checking daemon health", err)
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return h, classify("reading daemon health", err)
	}
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("%s answered GET /health with HTTP %d: %w", c.baseURL, resp.StatusCode, ErrNotGasoline)
	}
	if err := json.Unmarshal(body, &h); err != nil || h.Service != apitype.ServiceName {
		return apitype.Health{}, fmt.Errorf("%s answered GET /health with something else (is another program using the port? pick another with --port): %w", c.baseURL, ErrNotGasoline)
	}
	return h, nil
}

// MCP posts one JSON-RPC message to POST /mcp on behalf of clientID (one
// bridge session) and returns the daemon's JSON-RPC response, or nil when
// the daemon accepted the message without an answer (HTTP 202, as for
// notifications). idempotent marks reads that may safely run twice: they
// are sent with an Idempotency-Key so a request written on a stale
// keep-alive connection is replayed. msg is not modified or retained.
//
// Failures wrap ErrUnreachable (never reached a daemon), ErrConnLost (may
// have run), a context error, or are an *APIError.
func (c *Client) MCP(ctx context.Context, clientID string, msg []byte, idempotent bool) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/mcp", bytes.NewReader(msg))
	if err != nil {
		return nil, fmt.Errorf("building MCP request: %w", err)
	}
	// Direct map writes: the keys are already canonical.
	h := req.Header
	h["Authorization"] = []string{"Bearer " + c.Token()}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json"}
	if clientID != "" {
		h[apitype.HeaderClient] = []string{clientID}
	}
	if idempotent {
		// A nil value marks the request replayable without sending the
		// header (net/http Transport documentation).
		h["Idempotency-Key"] = nil
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, classify("posting to /mcp", err)
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return nil, classify("reading /mcp response", err)
	}
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return nil, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		// Only a JSON object can be a JSON-RPC response; anything else came
		// from another program on the port and must not reach stdout.
		if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return nil, fmt.Errorf("%s answered POST /mcp with HTTP %d and a body that is not a JSON-RPC message (is another program using the port? pick another with --port): %w",
				c.baseURL, resp.StatusCode, ErrNotGasoline)
		}
		return body, nil
	}
	return nil, apiError(resp.StatusCode, body)
}

// Shutdown asks the daemon to exit gracefully (POST /shutdown). It returns
// once the daemon has accepted the request, not once it has exited.
func (c *Client) Shutdown(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodPost, "/shutdown", "shutting down the daemon")
	return err
}

// Commands returns the daemon's GET /commands debug view as raw JSON.
func (c *Client) Commands(ctx context.Context) (json.RawMessage, error) {
	body, err := c.do(ctx, http.MethodGet, "/commands", "listing commands")
	if err != nil {
		return nil, err
	}
	return json.RawMessage(body), nil
}

// PairCode asks the daemon for a one-time extension pairing code
// (POST /pair/code) and returns it with its expiry.
func (c *Client) PairCode(ctx context.Context) (code string, expires time.Time, err error) {
	body, err := c.do(ctx, http.MethodPost, "/pair/code", "requesting a pairing code")
	if err != nil {
		return "", time.Time{}, err
	}
	var pc struct {
		Code      string    `json:"code"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &pc); err != nil {
		return "", time.Time{}, fmt.Errorf("decoding pairing code: %w", err)
	}
	if pc.Code == "" {
		return "", time.Time{}, fmt.Errorf("decoding pairing code: the daemon returned none")
	}
	return pc.Code, pc.ExpiresAt, nil
}

// do sends an authenticated request without a body and returns the body of
// a 2xx answer.
func (c *Client) do(ctx context.Context, method, path, doing string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doing, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token())
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, classify(doing, err)
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return nil, classify(doing, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s: %w", doing, apiError(resp.StatusCode, body))
	}
	return body, nil
}

// readBody reads a response body whole, presizing the buffer from
// Content-Length.
func readBody(resp *http.Response) ([]byte, error) {
	n := resp.ContentLength
	if n > maxResponse {
		return nil, fmt.Errorf("response of %d bytes exceeds the %d byte limit", n, maxResponse)
	}
	if n >= 0 {
		buf := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, err
	}
	if len(buf) > maxResponse {
		return nil, fmt.Errorf("response exceeds the %d byte limit", maxResponse)
	}
	return buf, nil
}

// apiError decodes an error answer. A body that is not an apitype.ErrorBody
// still yields an APIError carrying the status and a snippet of the body.
func apiError(status int, body []byte) *APIError {
	var eb apitype.ErrorBody
	if err := json.Unmarshal(body, &eb); err == nil && eb.Error.Message != "" {
		return &APIError{Status: status, ErrorDetail: eb.Error}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &APIError{Status: status, ErrorDetail: apitype.ErrorDetail{
		Code:    fmt.Sprintf("http_%d", status),
		Message: msg,
	}}
}

// classify wraps a transport error with the sentinel that tells whether the
// request may have reached a daemon. Context errors stay as they are (still
// wrapped) so callers can tell a timeout from a lost daemon.
func classify(doing string, err error) error {
	if ctxErr := contextError(err); ctxErr != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	var opErr *net.OpError
	if (errors.As(err, &opErr) && opErr.Op == "dial") || errors.Is(err, errPeerClosed) {
		return fmt.Errorf("%s: %w: %w", doing, ErrUnreachable, err)
	}
	return fmt.Errorf("%s: %w: %w", doing, ErrConnLost, err)
}

func contextError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return context.Canceled
	}
	return nil
}
