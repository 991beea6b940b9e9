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
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Errors callers branch on. They are wrapped: test with errors.Is.
var (
	// ErrUnreachable means the request never reached a daemon: nothing
	// accepted the connection. Retrying after starting a daemon is safe.
	ErrUnreachable = errors.New("gasoline daemon unreachable")
	// ErrNotGasoline means something answered on the daemon's port that is
	// not the gasoline daemon of the Client's state dir: it could not prove
	// it knows the token, or it does not speak the API. Nothing but a nonce
	// was sent to it. See NotDaemonError.
	ErrNotGasoline = errors.New("not the gasoline daemon")
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
	// foreign is set when the body is not the daemon's error shape. The
	// connection reached the daemon (its socket, or its proof on TCP), so
	// this is a daemon bug or a bare HTTP error; it matches ErrNotGasoline.
	foreign bool
}

// Is reports whether e matches target: an answer that is not in the
// daemon's error shape matches ErrNotGasoline.
func (e *APIError) Is(target error) bool { return e.foreign && target == ErrNotGasoline }

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
//
// A Client sends its token, or any request, only on a connection to the
// daemon it means: through the daemon's Unix socket inside the 0700 state
// dir, which only the user can reach, or over TCP once the daemon has
// proved that it knows the token (GET /hello, apitype.HelloProof). A
// program squatting on the port gets a nonce and nothing else, and the
// call fails with a *NotDaemonError.
type Client struct {
	baseURL  string
	port     int
	stateDir string // "" when the Client only knows a URL and a token
	token    atomic.Pointer[string]
	hc       *http.Client
}

// Local returns the Client the bridge and the CLI use for the daemon of
// stateDir listening on 127.0.0.1:port. It reads the token from stateDir,
// and reads it again when the daemon's proof does not match the token it
// holds (a restarted daemon may have created a new one).
func Local(port int, stateDir string) *Client {
	tok, _ := state.Dir{Path: stateDir}.ReadToken() // absent until the daemon's first start
	return newClient(port, stateDir, tok)
}

// New returns a Client of the daemon at baseURL (http://127.0.0.1:port) that
// authenticates it, and itself, with token. It uses TCP alone.
func New(baseURL, token string) *Client {
	port := 0
	if u, err := url.Parse(baseURL); err == nil {
		port, _ = strconv.Atoi(u.Port())
	}
	return newClient(port, "", token)
}

func newClient(port int, stateDir, token string) *Client {
	c := &Client{
		baseURL:  config.BaseURL(port),
		port:     port,
		stateDir: stateDir,
	}
	c.SetToken(token)
	tr := &http.Transport{
		Proxy:               nil, // loopback only: never route the token through a proxy
		DialContext:         dialChecked(c.dial),
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		// Below any server idle timeout, so a pooled connection is seldom
		// closed by the daemon just as a request is written on it.
		IdleConnTimeout:    30 * time.Second,
		DisableCompression: true,
		ForceAttemptHTTP2:  false,
	}
	c.hc = &http.Client{Transport: tr}
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
// something that is not the daemon of the Client's state dir does (its
// answer, pid included, is never returned then).
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
		return apitype.Health{}, fmt.Errorf("%s answered GET /health with something else: %w", c.baseURL, ErrNotGasoline)
	}
	return h, nil
}

// Reply is the daemon's answer to one MCP message.
type Reply struct {
	// Body is the JSON-RPC response, or nil when the daemon accepted the
	// message without an answer (HTTP 202, as for notifications).
	Body []byte
	// DaemonStarted is when the daemon that answered started; zero when it
	// did not say. Correlation ids older than it were issued by an earlier
	// daemon, whose commands are gone.
	DaemonStarted time.Time
}

// MCP is Call returning the body alone.
func (c *Client) MCP(ctx context.Context, clientID string, msg []byte, idempotent bool) ([]byte, error) {
	r, err := c.Call(ctx, clientID, msg, idempotent)
	return r.Body, err
}

// Call posts one JSON-RPC message to POST /mcp on behalf of clientID (one
// bridge session) and returns the daemon's answer. idempotent marks reads
// that may safely run twice: they are sent with an Idempotency-Key so a
// request written on a stale keep-alive connection is replayed. msg is not
// modified or retained.
//
// Failures wrap ErrUnreachable (never reached a daemon), ErrConnLost (may
// have run), ErrNotGasoline (something else holds the port; nothing was
// sent to it), state.ErrInsecure (the token cannot be trusted), a context
// error, or are an *APIError.
func (c *Client) Call(ctx context.Context, clientID string, msg []byte, idempotent bool) (Reply, error) {
	resp, err := c.send(ctx, func(token string) (*http.Request, error) {
		return mcpRequest(ctx, c.baseURL, token, clientID, msg, idempotent, "application/json")
	})
	if err != nil {
		return Reply{}, classify("posting to /mcp", err)
	}
	defer resp.Body.Close()
	return c.reply(resp)
}

// reply reads a non-streamed answer to POST /mcp.
func (c *Client) reply(resp *http.Response) (Reply, error) {
	var r Reply
	if v := resp.Header.Get(apitype.HeaderDaemonStarted); v != "" {
		r.DaemonStarted, _ = time.Parse(time.RFC3339Nano, v)
	}
	body, err := readBody(resp)
	if err != nil {
		return r, classify("reading /mcp response", err)
	}
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return r, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		// Only a JSON object can be a JSON-RPC response. The daemon proved
		// itself, so this is a daemon bug, but it must not reach stdout.
		if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return r, fmt.Errorf("%s answered POST /mcp with HTTP %d and a body that is not a JSON-RPC message: %w",
				c.baseURL, resp.StatusCode, ErrNotGasoline)
		}
		r.Body = body
		return r, nil
	}
	return r, apiError(resp.StatusCode, body)
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

// DebugStats returns the daemon's resource use (GET /debug/stats); with gc
// the daemon collects garbage first, so the heap figure is its live heap.
func (c *Client) DebugStats(ctx context.Context, gc bool) (apitype.DebugStats, error) {
	path := "/debug/stats"
	if gc {
		path += "?gc=1"
	}
	var st apitype.DebugStats
	body, err := c.do(ctx, http.MethodGet, path, "reading daemon stats")
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return st, fmt.Errorf("decoding daemon stats: %w", err)
	}
	return st, nil
}

// PairCode asks the daemon for a one-time extension pairing code
// (POST /pair/code) and returns it with its expiry.
func (c *Client) PairCode(ctx context.Context) (code string, expires time.Time, err error) {
	body, err := c.do(ctx, http.MethodPost, "/pair/code", "requesting a pairing code")
	if err != nil {
		return "", time.Time{}, err
	}
	var pc apitype.PairCode
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
	resp, err := c.send(ctx, func(token string) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", doing, err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json")
		return req, nil
	})
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

// send sends the request build makes with the current token. A 401 after
// the token changed (the daemon's proof showed a new one while connecting,
// or the token file was replaced) is sent once more with the new token: a
// refused request did nothing.
func (c *Client) send(ctx context.Context, build func(token string) (*http.Request, error)) (*http.Response, error) {
	tok := c.Token()
	req, err := build(tok)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	fresh, err := c.freshToken(tok)
	if err != nil || fresh == "" {
		if err != nil {
			// The token on disk cannot be trusted: say so rather than 401.
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			return nil, err
		}
		return resp, nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if req, err = build(fresh); err != nil {
		return nil, err
	}
	return c.hc.Do(req)
}

// freshToken returns a token other than used, learnt since used was read
// or read again from the state dir now, or "" when there is none. It fails
// only when the token file cannot be trusted (state.ErrInsecure).
func (c *Client) freshToken(used string) (string, error) {
	if tok := c.Token(); tok != used {
		return tok, nil
	}
	if c.stateDir == "" {
		return "", nil
	}
	tok, err := state.Dir{Path: c.stateDir}.ReadToken()
	if errors.Is(err, state.ErrInsecure) {
		return "", err
	}
	if err != nil || tok == used {
		return "", nil
	}
	c.SetToken(tok)
	return tok, nil
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
	return &APIError{Status: status, foreign: true, ErrorDetail: apitype.ErrorDetail{
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
	if errors.Is(err, ErrNotGasoline) || errors.Is(err, state.ErrInsecure) {
		// Carried up from dial: the request was never sent.
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return fmt.Errorf("%s: %w", doing, err)
	}
	var opErr *net.OpError
	if (errors.As(err, &opErr) && opErr.Op == "dial") || errors.Is(err, errPeerClosed) || errors.Is(err, errHelloIO) {
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
