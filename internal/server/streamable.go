package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
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
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/labstack/echo/v4"
)

// The MCP Streamable HTTP transport on /mcp (protocol versions 2025-03-26,
// 2025-06-18, 2025-11-25 with sessions, and the stateless 2026-07-28).
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
//
// A request of the stateless revision (MCP-Protocol-Version 2026-07-28, the
// same version in its body's _meta) needs no session and ignores one: its
// client is named by the clientInfo of its _meta, its headers must agree
// with its body (400 HeaderMismatch), and an unknown method is 404.
// Errors of the transport itself are JSON-RPC error responses, whose data
// carries a stable code and what to do next.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "MCP-Protocol-Version"
	headerMethod   = "Mcp-Method"
	headerName     = "Mcp-Name"
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
	// inflight cancels the session's requests being handled, by the
	// encoded JSON-RPC id, for notifications/cancelled; guarded by
	// sessions.mu.
	inflight map[string]context.CancelCauseFunc
}

// errCancelled is the cause of a request the client cancelled.
var errCancelled = errors.New("cancelled by the client")

// track registers the request id of sess as in flight with cancel, and
// returns the function that unregisters it.
func (ss *sessions) track(sess *session, id protocol.ID, cancel context.CancelCauseFunc) func() {
	key, _ := id.MarshalJSON()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if sess.inflight == nil {
		sess.inflight = map[string]context.CancelCauseFunc{}
	}
	sess.inflight[string(key)] = cancel
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		delete(sess.inflight, string(key))
	}
}

// cancel ends the wait of sess's request whose encoded id is key, if it is
// in flight.
func (ss *sessions) cancel(sess *session, key []byte) {
	ss.mu.Lock()
	cancel := sess.inflight[string(key)]
	ss.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
	}
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
	s.calls.Add(1)
	defer s.calls.Add(-1)
	r := c.Request()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return readError(err)
	}
	trimmed := bytes.TrimSpace(body)
	if r.Header.Get(apitype.HeaderClient) == "" && isModernHTTP(r, trimmed) {
		return s.mcpModern(c, trimmed)
	}
	call, err := s.mcpCaller(r, body)
	var f *rpcFailure
	if errors.As(err, &f) {
		return c.JSONBlob(f.status, f.body)
	}
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
		if isReq && req.Method == protocol.MethodCancelled && call.session != nil {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil && len(p.RequestID) > 0 {
				s.sessions.cancel(call.session, bytes.TrimSpace(p.RequestID))
			}
		}
		s.cfg.MCP.HandleMessage(r.Context(), call.client, msg)
		return c.NoContent(http.StatusAccepted)
	}
	if req.Method == protocol.MethodInitialize && r.Header.Get(apitype.HeaderClient) == "" {
		if call.session != nil {
			return mcpError(c, http.StatusBadRequest, req.ID, protocol.CodeInvalidRequest, "already_initialized",
				"this session is initialized already (with "+call.session.version+")",
				"go on with the session, or end it with DELETE /mcp and initialize without "+headerSession)
		}
		return s.mcpInitialize(c, msg)
	}
	return s.mcpRespond(c, call, msg)
}

// mcpCaller checks the transport headers and finds the request's client.
func (s *Server) mcpCaller(r *http.Request, body []byte) (mcpCall, error) {
	call := mcpCall{client: r.Header.Get(apitype.HeaderClient), version: r.Header.Get(headerProtocol)}
	rpcError := func(status int, werr *protocol.WireError, name, hint string) error {
		return rpcErrorFor(status, requestID(body), werr, name, hint)
	}
	if call.version != "" && !slices.Contains(protocol.SupportedVersions, call.version) {
		return call, rpcError(http.StatusBadRequest, mcp.UnsupportedVersion(call.version), "unsupported_protocol_version",
			"use one of "+strings.Join(protocol.AllVersions, ", ")+", as negotiated in initialize")
	}
	if call.client != "" {
		return call, nil // the bridge: no sessions
	}
	id := r.Header.Get(headerSession)
	if id == "" {
		if isInitialize(body) {
			return call, nil
		}
		return call, rpcError(http.StatusBadRequest, protocol.Errorf(protocol.CodeInvalidRequest, "%s header is required after initialize", headerSession),
			"session_required", "send the "+headerSession+" that initialize returned, or initialize first (or speak "+protocol.ModernVersion+", which needs no session)")
	}
	sess, ok := s.sessions.get(id)
	if !ok {
		return call, rpcError(http.StatusNotFound, protocol.Errorf(protocol.CodeInvalidRequest, "no session %s (it ended, or the daemon restarted)", id),
			"unknown_session", "initialize again to start a new session")
	}
	// The session's negotiated version rules its requests. A header naming
	// another version this server supports is the client's slip (it SHOULD
	// send the negotiated one; an invalid or unsupported one was refused
	// above with 400, as the transport requires): the request is served at
	// the negotiated version, as one without the header is. Conformance
	// 0.1.16 sends 2025-03-26 on a 2025-11-25 session.
	call.session, call.client, call.version = sess, sessionClient(sess.id), sess.version
	return call, nil
}

// isModernHTTP reports whether a request of a URL-connected client is of
// the stateless revision: it says so in its header, or in its body's _meta.
func isModernHTTP(r *http.Request, body []byte) bool {
	if protocol.IsModern(r.Header.Get(headerProtocol)) {
		return true
	}
	return len(body) > 0 && body[0] == '{' && bytes.Contains(body, []byte(`"`+protocol.MetaProtocolVersion+`"`))
}

// mcpModern serves one request of the stateless revision: no session, the
// client named by its _meta, headers checked against the body.
func (s *Server) mcpModern(c echo.Context, body []byte) error {
	r := c.Request()
	msg, err := protocol.DecodeMessage(body)
	if err != nil {
		return s.mcpUndecodable(c, body, err)
	}
	req, isReq := msg.(*protocol.Request)
	if !isReq || !req.IsCall() {
		// The revision defines no client notifications over HTTP (closing
		// the stream cancels); one that comes is accepted and ignored.
		return c.NoContent(http.StatusAccepted)
	}
	meta, ok := mcp.RequestMetaOf(req.Params)
	hv := r.Header.Get(headerProtocol)
	mismatch := func(format string, args ...any) error {
		return mcpError(c, http.StatusBadRequest, req.ID, protocol.CodeHeaderMismatch, "header_mismatch",
			"Header mismatch: "+fmt.Sprintf(format, args...),
			"send "+headerProtocol+", "+headerMethod+" (and "+headerName+" for tools/call and resources/read) with the values of the body")
	}
	invalidMeta := func(format string, args ...any) error {
		return mcpError(c, http.StatusBadRequest, req.ID, protocol.CodeInvalidParams, "invalid_meta",
			"invalid params: "+fmt.Sprintf(format, args...),
			"a "+protocol.ModernVersion+" request carries params._meta with "+protocol.MetaProtocolVersion+" and "+protocol.MetaClientCapabilities)
	}
	switch {
	case !ok:
		return invalidMeta("%s is %s but the body's params._meta has no %q", headerProtocol, hv, protocol.MetaProtocolVersion)
	case len(meta.ClientCapabilities) == 0:
		return invalidMeta("params._meta has no %q (send {} for none)", protocol.MetaClientCapabilities)
	case hv == "":
		return mismatch("%s header is missing (the body says %s)", headerProtocol, meta.ProtocolVersion)
	case hv != meta.ProtocolVersion:
		return mismatch("%s header value %q does not match body value %q", headerProtocol, hv, meta.ProtocolVersion)
	}
	if !protocol.IsModern(meta.ProtocolVersion) {
		b, _ := protocol.EncodeMessage(&protocol.Response{ID: req.ID, Error: mcp.UnsupportedVersion(meta.ProtocolVersion)})
		return c.JSONBlob(http.StatusBadRequest, b)
	}
	if m := r.Header.Get(headerMethod); m != req.Method {
		return mismatch("%s header value %q does not match body value %q", headerMethod, m, req.Method)
	}
	if field, required := nameField(req.Method); field != "" {
		var p map[string]json.RawMessage
		json.Unmarshal(req.Params, &p)
		var want string
		json.Unmarshal(p[field], &want)
		got, present := r.Header[http.CanonicalHeaderKey(headerName)]
		switch {
		case !present && required:
			return mismatch("%s header is missing (the body's params.%s is %q)", headerName, field, want)
		case present && decodeHeaderValue(got[0]) != want:
			return mismatch("%s header value %q does not match body value %q", headerName, got[0], want)
		}
	}
	name := ""
	if meta.ClientInfo != nil {
		name = meta.ClientInfo.Name
	}
	return s.mcpRespond(c, mcpCall{client: modernClient(name), version: meta.ProtocolVersion}, msg)
}

// nameField is the params field Mcp-Name mirrors for method, and whether
// the header is required (the Tasks extension asks for it, the core
// revision requires it for tools/call and resources/read).
func nameField(method string) (string, bool) {
	switch method {
	case protocol.MethodToolsCall:
		return "name", true
	case protocol.MethodResourcesRead:
		return "uri", true
	case protocol.MethodTasksGet, protocol.MethodTasksCancel:
		return "taskId", false
	}
	return "", false
}

// decodeHeaderValue undoes the revision's base64 sentinel encoding
// (=?base64?...?=) of a header value; other values are returned as they
// are.
func decodeHeaderValue(v string) string {
	const pre, post = "=?base64?", "?="
	if !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, post) || len(v) < len(pre)+len(post) {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(v[len(pre) : len(v)-len(post)])
	if err != nil {
		return v
	}
	return string(b)
}

// maxClientKey caps the part of a stateless client's id taken from its
// self-chosen name.
const maxClientKey = 64

// modernClient is the client id of a stateless request: its clientInfo
// name, which names the agent (its commands, its tabs); requests that give
// none share one client.
func modernClient(name string) string {
	if len(name) > maxClientKey {
		cut := maxClientKey
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	return "agent-" + name
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
// as an SSE stream. A stateless request's unknown method is 404 and its
// protocol errors are 400, as that revision asks (when the answer is JSON).
func (s *Server) mcpRespond(c echo.Context, call mcpCall, msg protocol.Message) error {
	ctx := mcp.WithProject(c.Request().Context(), c.Request().Header.Values(apitype.HeaderProject)...)
	if req, ok := msg.(*protocol.Request); ok && call.session != nil && req.IsCall() {
		// notifications/cancelled with this id ends the wait, as on stdio;
		// the cancelled request gets no JSON-RPC response.
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		defer s.sessions.track(call.session, req.ID, cancel)()
	}
	cancelled := func() bool { return errors.Is(context.Cause(ctx), errCancelled) }
	var resp []byte
	if !acceptsSSE(c.Request()) {
		resp = s.cfg.MCP.HandleMessage(ctx, call.client, msg)
	} else {
		st := &sseStream{w: c.Response()}
		resp = s.cfg.MCP.HandleMessage(mcp.WithSender(ctx, st.send), call.client, msg)
		if cancelled() {
			resp = nil
		}
		if st.finish(resp) {
			return nil
		}
	}
	if cancelled() {
		return cancelledAnswer(c, msg)
	}
	status := http.StatusOK
	if protocol.IsModern(call.version) {
		status = modernStatus(resp)
	}
	return c.JSONBlob(status, resp)
}

// cancelledAnswer ends the POST of a request the client cancelled. The
// request gets no JSON-RPC response, as on stdio, but the transport wants a
// request answered by an event stream or a JSON body: a client that takes
// SSE (every conforming one) gets a stream that ends without an event; one
// that takes only JSON gets the request's id with an error saying it was
// cancelled, which it may ignore.
func cancelledAnswer(c echo.Context, msg protocol.Message) error {
	if acceptsSSE(c.Request()) {
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		c.Response().WriteHeader(http.StatusOK)
		return nil
	}
	var id protocol.ID
	if req, ok := msg.(*protocol.Request); ok {
		id = req.ID
	}
	return mcpError(c, http.StatusOK, id, protocol.CodeRequestCancelled, "cancelled", "request cancelled by the client", "")
}

// modernStatus is the HTTP status of a stateless request's JSON answer.
func modernStatus(resp []byte) int {
	var r struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if !bytes.Contains(resp, []byte(`"error":`)) || json.Unmarshal(resp, &r) != nil || r.Error == nil {
		return http.StatusOK
	}
	switch r.Error.Code {
	case protocol.CodeMethodNotFound:
		return http.StatusNotFound
	case protocol.CodeHeaderMismatch, protocol.CodeMissingRequiredClientCapability, protocol.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// mcpError answers with the JSON-RPC error response of a transport failure:
// code, message, and in data the stable name and what to do next.
func mcpError(c echo.Context, status int, id protocol.ID, code int64, name, msg, hint string) error {
	data, _ := json.Marshal(errorData{Code: name, Hint: hint})
	b, _ := protocol.EncodeMessage(&protocol.Response{ID: id, Error: &protocol.WireError{Code: code, Message: msg, Data: data}})
	return c.JSONBlob(status, b)
}

// errorData is the data of a transport failure's JSON-RPC error.
type errorData struct {
	Code string `json:"code"`
	Hint string `json:"hint,omitempty"`
}

// rpcErrorFor is a transport failure found before the request is handled:
// an echo handler error that renders as a JSON-RPC error response to the
// request with id.
func rpcErrorFor(status int, id protocol.ID, werr *protocol.WireError, name, hint string) error {
	data, _ := json.Marshal(errorData{Code: name, Hint: hint})
	if len(werr.Data) > 0 {
		data = werr.Data // the revision defines the data of this error
	}
	b, _ := protocol.EncodeMessage(&protocol.Response{ID: id, Error: &protocol.WireError{Code: werr.Code, Message: werr.Message, Data: data}})
	return &rpcFailure{status: status, body: b}
}

// requestID is the id of the JSON-RPC request in body, so that a transport
// error answering it carries it (null when body is no request with one:
// a notification, a batch, or what does not parse).
func requestID(body []byte) protocol.ID {
	var m struct {
		ID protocol.ID `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil {
		return protocol.ID{}
	}
	return m.ID
}

// rpcFailure is a transport failure whose response is ready: status and
// body.
type rpcFailure struct {
	status int
	body   []byte
}

func (f *rpcFailure) Error() string { return string(f.body) }

// mcpBatch handles a JSON-RPC batch, which only 2025-03-26 allows.
func (s *Server) mcpBatch(c echo.Context, call mcpCall, body []byte) error {
	if call.version != "" && call.version != batchVersion {
		return mcpError(c, http.StatusBadRequest, protocol.ID{}, protocol.CodeInvalidRequest, "batch_not_supported",
			"JSON-RPC batches are not part of MCP "+call.version, "send one message per request")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil || len(items) == 0 {
		return mcpError(c, http.StatusBadRequest, protocol.ID{}, protocol.CodeInvalidRequest, "invalid_batch",
			"a batch must be a non-empty JSON array of JSON-RPC messages", "send one message per request")
	}
	ctx := mcp.WithProject(c.Request().Context(), c.Request().Header.Values(apitype.HeaderProject)...)
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

// mcpAuth is requireAdmin for /mcp. A URL-connected MCP client that is
// refused gets a JSON-RPC error response, and a 401 names the scheme it
// wants (WWW-Authenticate: Bearer); the bridge, which names its client,
// keeps the daemon's own error shape, which its client decodes.
func (s *Server) mcpAuth(next echo.HandlerFunc) echo.HandlerFunc {
	guarded := s.requireAdmin(next)
	return func(c echo.Context) error {
		err := guarded(c)
		var ae *APIError
		if !errors.As(err, &ae) || (ae.Status != http.StatusUnauthorized && ae.Status != http.StatusForbidden) {
			return err
		}
		h := c.Response().Header()
		if ae.Status == http.StatusUnauthorized {
			h.Set("WWW-Authenticate", `Bearer realm="gasoline"`)
		}
		if c.Request().Header.Get(apitype.HeaderClient) != "" {
			return err
		}
		h.Set("Connection", "close") // as errorHandler does for a refused client
		return mcpError(c, ae.Status, protocol.ID{}, protocol.CodeInvalidRequest, ae.Code, ae.Message, ae.Hint)
	}
}

// mcpDelete ends a session (DELETE /mcp).
func (s *Server) mcpDelete(c echo.Context) error {
	id := c.Request().Header.Get(headerSession)
	if id == "" {
		return mcpError(c, http.StatusBadRequest, protocol.ID{}, protocol.CodeInvalidRequest, "session_required",
			headerSession+" header is required", "send the session to end")
	}
	if !s.sessions.remove(id) {
		return mcpError(c, http.StatusNotFound, protocol.ID{}, protocol.CodeInvalidRequest, "unknown_session",
			"no session "+id, "it has ended already")
	}
	return c.NoContent(http.StatusNoContent)
}

// mcpGet answers GET /mcp: this server opens no server-to-client stream
// outside a request, which the transport allows.
func (s *Server) mcpGet(c echo.Context) error {
	c.Response().Header().Set("Allow", "POST, DELETE")
	return mcpError(c, http.StatusMethodNotAllowed, protocol.ID{}, protocol.CodeInvalidRequest, "method_not_allowed",
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
// reports whether it did; otherwise the caller answers with JSON. A nil
// resp (a cancelled request) ends the stream without one. No send succeeds
// after finish.
func (st *sseStream) finish(resp []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done = true
	if !st.started {
		return false
	}
	if resp != nil {
		st.event(resp)
	}
	return true
}
