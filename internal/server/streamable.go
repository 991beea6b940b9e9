package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/labstack/echo/v4"
)

// The MCP Streamable HTTP transport on /mcp (protocol versions 2025-03-26,
// 2025-06-18, 2025-11-25).
//
// Two kinds of caller share it. The bridge names its client with
// apitype.HeaderClient and speaks plain JSON, one message per POST, without
// sessions: its fast path is what it always was. Any other caller is an MCP
// client that connects by URL: initialize gives it an Mcp-Session-Id, which
// names its client and which every later request must carry (400 without,
// 404 once the session is gone, after which the client initializes again);
// DELETE /mcp ends it. Either kind may accept text/event-stream: a request
// that sends notifications before its response (progress during a wait) is
// then answered as an SSE stream, the notifications first and the response
// last; a request that has nothing to send early is answered with JSON.
// GET /mcp (a server-to-client stream) is not offered: 405.

const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "MCP-Protocol-Version"
	// maxSessions bounds the sessions kept; beyond, the least recently used
	// one ends (its client gets 404 and initializes again).
	maxSessions = 1024
	// batchVersion is the one protocol version that allows JSON-RPC batches.
	batchVersion = "2025-03-26"
)

// session is one URL-connected client.
type session struct {
	id      string
	version string    // negotiated at initialize
	used    time.Time // guarded by sessions.mu
}

// sessions holds the live sessions. It is safe for concurrent use.
type sessions struct {
	mu   sync.Mutex
	byID map[string]*session // guarded by mu
}

func newSessions() *sessions { return &sessions{byID: map[string]*session{}} }

// add creates a session for version, evicting the least recently used one
// when full.
func (ss *sessions) add(version string) *session {
	var b [16]byte
	rand.Read(b[:])
	s := &session{id: hex.EncodeToString(b[:]), version: version, used: time.Now()}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.byID) >= maxSessions {
		var oldest *session
		for _, o := range ss.byID {
			if oldest == nil || o.used.Before(oldest.used) {
				oldest = o
			}
		}
		delete(ss.byID, oldest.id)
	}
	ss.byID[s.id] = s
	return s
}

func (ss *sessions) get(id string) (*session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byID[id]
	if ok {
		s.used = time.Now()
	}
	return s, ok
}

func (ss *sessions) remove(id string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.byID[id]
	delete(ss.byID, id)
	return ok
}

// sessionClient is the client name of a session's tool calls.
func sessionClient(id string) string { return "session-" + id }

// mcpCall is what a POST /mcp is about, worked out before it is handled.
type mcpCall struct {
	client  string
	session *session // nil for the bridge and before initialize
	version string   // the protocol version the request declares or its session negotiated
}

// mcp serves POST /mcp.
func (s *Server) mcp(c echo.Context) error {
	r := c.Request()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return readError(err)
	}
	call, err := s.mcpCaller(r, body)
	if err != nil {
		return err
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' && call.session != nil {
		// Batches belong to the HTTP transport of 2025-03-26. The bridge
		// relays stdio lines one by one; a batch it relays gets the
		// JSON-RPC error DecodeMessage gives, as before.
		return s.mcpBatch(c, call, trimmed)
	}
	msg, err := protocol.DecodeMessage(trimmed)
	if err != nil {
		return s.mcpUndecodable(c, trimmed, err)
	}
	req, isReq := msg.(*protocol.Request)
	if !isReq || !req.IsCall() {
		// A notification or a client's response: accepted, nothing to say.
		s.cfg.MCP.HandleMessage(r.Context(), call.client, msg)
		return c.NoContent(http.StatusAccepted)
	}
	if req.Method == protocol.MethodInitialize && call.session == nil && r.Header.Get(apitype.HeaderClient) == "" {
		return s.mcpInitialize(c, msg)
	}
	return s.mcpRespond(c, call, msg)
}

// mcpCaller checks the transport headers and finds the request's client.
func (s *Server) mcpCaller(r *http.Request, body []byte) (mcpCall, error) {
	call := mcpCall{client: r.Header.Get(apitype.HeaderClient), version: r.Header.Get(headerProtocol)}
	if call.version != "" && !slices.Contains(protocol.SupportedVersions, call.version) {
		return call, apiError(http.StatusBadRequest, "unsupported_protocol_version",
			fmt.Sprintf("%s %q is not supported", headerProtocol, call.version),
			"use one of "+strings.Join(protocol.SupportedVersions, ", ")+", as negotiated in initialize")
	}
	if call.client != "" {
		return call, nil // the bridge: no sessions
	}
	id := r.Header.Get(headerSession)
	if id == "" {
		if isInitialize(body) {
			return call, nil
		}
		return call, apiError(http.StatusBadRequest, "session_required",
			headerSession+" header is required after initialize",
			"send the "+headerSession+" that initialize returned, or initialize first")
	}
	sess, ok := s.sessions.get(id)
	if !ok {
		return call, apiError(http.StatusNotFound, "unknown_session",
			"no session "+id+" (it ended, or the daemon restarted)",
			"initialize again to start a new session")
	}
	call.session, call.client = sess, sessionClient(sess.id)
	if call.version == "" {
		call.version = sess.version
	}
	return call, nil
}

// isInitialize reports whether body is one initialize request; it runs only
// for callers without a session, so its decoding is off the fast path.
func isInitialize(body []byte) bool {
	var probe struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &probe) == nil && probe.Method == protocol.MethodInitialize
}

// mcpInitialize answers a URL-connected client's initialize and starts its
// session.
func (s *Server) mcpInitialize(c echo.Context, msg protocol.Message) error {
	resp := s.cfg.MCP.HandleMessage(c.Request().Context(), "direct", msg)
	var out struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &out) == nil && out.Result != nil {
		sess := s.sessions.add(out.Result.ProtocolVersion)
		c.Response().Header().Set(headerSession, sess.id)
		if req, ok := msg.(*protocol.Request); ok {
			s.cfg.MCP.SetClientName(sessionClient(sess.id), mcp.ClientNameOf(req.Params))
		}
	}
	return c.JSONBlob(http.StatusOK, resp)
}

// mcpUndecodable answers a message that is not valid JSON-RPC with a
// JSON-RPC error response. To the bridge it is an answer like any other
// (200: the bridge relays it to its agent). To a URL-connected client it is
// 200 only for a request whose id could be read; anything else (garbage, a
// notification or a response the server cannot accept) gets 400, as the
// transport requires.
func (s *Server) mcpUndecodable(c echo.Context, body []byte, err error) error {
	var de *protocol.DecodeError
	if !errors.As(err, &de) {
		de = &protocol.DecodeError{Code: protocol.CodeParseError, Msg: err.Error()}
	}
	b, _ := protocol.EncodeMessage(&protocol.Response{ID: de.ID, Error: de.WireError()})
	if c.Request().Header.Get(apitype.HeaderClient) != "" {
		return c.JSONBlob(http.StatusOK, b)
	}
	var probe struct {
		Method json.RawMessage `json:"method"`
	}
	json.Unmarshal(body, &probe)
	if de.ID.IsValid() && len(probe.Method) > 0 {
		return c.JSONBlob(http.StatusOK, b)
	}
	return c.JSONBlob(http.StatusBadRequest, b)
}

// mcpRespond handles one request and answers it: as JSON, or, when the
// client accepts SSE and the request sends notifications before it ends,
// as an SSE stream.
func (s *Server) mcpRespond(c echo.Context, call mcpCall, msg protocol.Message) error {
	ctx := c.Request().Context()
	if !acceptsSSE(c.Request()) {
		return c.JSONBlob(http.StatusOK, s.cfg.MCP.HandleMessage(ctx, call.client, msg))
	}
	st := &sseStream{w: c.Response()}
	resp := s.cfg.MCP.HandleMessage(mcp.WithSender(ctx, st.send), call.client, msg)
	if st.finish(resp) {
		return nil
	}
	return c.JSONBlob(http.StatusOK, resp)
}

// mcpBatch handles a JSON-RPC batch, which only 2025-03-26 allows.
func (s *Server) mcpBatch(c echo.Context, call mcpCall, body []byte) error {
	if call.version != "" && call.version != batchVersion {
		return apiError(http.StatusBadRequest, "batch_not_supported",
			"JSON-RPC batches are not part of MCP "+call.version, "send one message per request")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil || len(items) == 0 {
		return apiError(http.StatusBadRequest, "invalid_batch", "a batch must be a non-empty JSON array of JSON-RPC messages", "send one message per request")
	}
	ctx := c.Request().Context()
	var out [][]byte
	for _, item := range items {
		msg, err := protocol.DecodeMessage(item)
		if err != nil {
			var de *protocol.DecodeError
			if errors.As(err, &de) {
				b, _ := protocol.EncodeMessage(&protocol.Response{ID: de.ID, Error: de.WireError()})
				out = append(out, b)
			}
			continue
		}
		if req, ok := msg.(*protocol.Request); ok && req.Method == protocol.MethodInitialize {
			if req.IsCall() {
				b, _ := protocol.EncodeMessage(&protocol.Response{ID: req.ID,
					Error: protocol.Errorf(protocol.CodeInvalidRequest, "initialize must not be part of a batch")})
				out = append(out, b)
			}
			continue
		}
		if resp := s.cfg.MCP.HandleMessage(ctx, call.client, msg); resp != nil {
			out = append(out, resp)
		}
	}
	if len(out) == 0 {
		return c.NoContent(http.StatusAccepted)
	}
	return c.JSONBlob(http.StatusOK, append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']'))
}

// mcpDelete ends a session (DELETE /mcp).
func (s *Server) mcpDelete(c echo.Context) error {
	id := c.Request().Header.Get(headerSession)
	if id == "" {
		return apiError(http.StatusBadRequest, "session_required", headerSession+" header is required", "send the session to end")
	}
	if !s.sessions.remove(id) {
		return apiError(http.StatusNotFound, "unknown_session", "no session "+id, "it has ended already")
	}
	return c.NoContent(http.StatusNoContent)
}

// mcpGet answers GET /mcp: this server opens no server-to-client stream
// outside a request, which the transport allows.
func (s *Server) mcpGet(c echo.Context) error {
	c.Response().Header().Set("Allow", "POST, DELETE")
	return apiError(http.StatusMethodNotAllowed, "method_not_allowed",
		"GET /mcp is not offered: notifications come on the stream of the request they belong to",
		"POST requests with Accept: application/json, text/event-stream")
}

func acceptsSSE(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// sseStream answers one request as Server-Sent Events once it has a
// notification to send; until then nothing is written, so a request that
// sends none is answered with plain JSON. It is safe for concurrent use.
type sseStream struct {
	w *echo.Response

	mu      sync.Mutex
	started bool // the SSE headers are written; guarded by mu
	done    bool // the response is written: later sends fail; guarded by mu
}

var errStreamDone = errors.New("the request's response was sent already")

// send writes msg as one SSE event, starting the stream on the first.
func (st *sseStream) send(_ context.Context, msg []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return errStreamDone
	}
	if !st.started {
		h := st.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		st.w.WriteHeader(http.StatusOK)
		st.started = true
	}
	return st.event(msg)
}

func (st *sseStream) event(msg []byte) error {
	if _, err := fmt.Fprintf(st.w, "event: message\ndata: %s\n\n", msg); err != nil {
		return err
	}
	st.w.Flush()
	return nil
}

// finish writes resp as the last event when the stream started and
// reports whether it did; otherwise the caller answers with JSON. No send
// succeeds after finish.
func (st *sseStream) finish(resp []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done = true
	if !st.started {
		return false
	}
	st.event(resp)
	return true
}
