// Package mcp serves the Model Context Protocol over single JSON-RPC
// messages: it negotiates the protocol version, answers ping and tools/list,
// and dispatches tools/call to registered tools.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/rs/zerolog"
)

// Handler runs one tool call for client with its raw arguments. It returns
// the structured result (an object, marshalled once for both the text and the
// structuredContent of the tool result) or an error; a *ToolError becomes a
// tool result with isError, any other error a tool result with code
// "internal_error".
type Handler func(ctx context.Context, client string, args json.RawMessage) (any, error)

// Tool is a registered tool.
type Tool struct {
	Def     protocol.Tool
	Handler Handler
	// Long, when set, tells the calls (by their arguments) that may run
	// for many seconds without a command to follow: from a client that
	// can follow a task, such a call runs as a task of its own and is
	// answered with it at once.
	Long func(args json.RawMessage) bool
}

// ToolError is a tool failure the agent can act on: a stable code, what
// happened, and what to do next.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Errorf returns a ToolError.
func Errorf(code, hint, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// Decorator may add to every successful or failed tool result of a client
// (gasoline adds its "async" status this way). It gets the handler's result
// (an *ErrorResult for a failure) and its encoding, a JSON object, and
// returns the encoding to send: body itself, or body with fields added. It
// must be fast and safe for concurrent use.
type Decorator func(client string, result any, body []byte) []byte

// ErrorResult is the structured result of a failed tool call.
type ErrorResult struct {
	Error *ToolError `json:"error"`
}

// Server dispatches MCP requests. Register tools before the first Handle;
// after that it is safe for concurrent use.
type Server struct {
	info         protocol.Implementation
	instructions string
	tasks        TaskSource // nil: no tasks
	done         doneTasks  // 2025-11-25 tasks that held their result from the start
	tools        map[string]Tool
	list         []byte // the encoded tools/list result; written by AddTool only
	decorate     Decorator
	resources    Resources // nil: no resources capability
	names        clientNames
	log          zerolog.Logger
	now          func() time.Time
	lastCall     atomic.Int64 // unix ns of the last tools/call; 0: none yet
	callMu       sync.Mutex
	nextCall     chan struct{} // closed by the next tools/call; guarded by callMu
	lastDone     chan struct{} // closed when the last tools/call begun ends; guarded by callMu
}

// NewServer returns a server that introduces itself as info and gives
// clients instructions in initialize.
func NewServer(info protocol.Implementation, instructions string, log zerolog.Logger) *Server {
	return &Server{info: info, instructions: instructions, tools: map[string]Tool{}, log: log, now: time.Now}
}

// SetClock replaces the server's clock (tests). Call it before the first Handle.
func (s *Server) SetClock(now func() time.Time) { s.now = now }

// NextCall returns a channel closed by the next tools/call: a held poll
// of the extension answers then, so an agent's first call (an observe)
// reaches the extension at once.
func (s *Server) NextCall() <-chan struct{} {
	s.callMu.Lock()
	defer s.callMu.Unlock()
	if s.nextCall == nil {
		s.nextCall = make(chan struct{})
	}
	return s.nextCall
}

// LastCallDone returns a channel closed when the last tools/call begun
// ends (closed at once when it has, or none began): a held poll woken by
// a call answers then, so the command that call queues (interact) goes out
// in the same answer, not a poll later, and one that queues none (observe)
// ends the poll as soon as it returns.
func (s *Server) LastCallDone() <-chan struct{} {
	s.callMu.Lock()
	defer s.callMu.Unlock()
	if s.lastDone == nil {
		return closedChan
	}
	return s.lastDone
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// CalledWithin returns when a client last called a tool (any tool), if
// that is less than d ago (else the zero time): the daemon tells the
// extension from it that an agent is at work.
func (s *Server) CalledWithin(d time.Duration) time.Time {
	ns := s.lastCall.Load()
	if ns == 0 || s.now().Sub(time.Unix(0, ns)) >= d {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// AddTool registers t. It panics on a duplicate name (a programming error).
func (s *Server) AddTool(t Tool) {
	if _, dup := s.tools[t.Def.Name]; dup {
		panic("mcp: duplicate tool " + t.Def.Name)
	}
	s.tools[t.Def.Name] = t
	s.list, _ = json.Marshal(protocol.ListToolsResult{Tools: s.Tools()})
}

// SetDecorator installs d; nil removes it.
func (s *Server) SetDecorator(d Decorator) { s.decorate = d }

// Tools returns the registered tool definitions sorted by name.
func (s *Server) Tools() []protocol.Tool {
	defs := make([]protocol.Tool, 0, len(s.tools))
	for _, t := range s.tools {
		defs = append(defs, t.Def)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

// Handle processes one encoded JSON-RPC message from client and returns the
// encoded response, or nil when none is due (notifications, responses).
// Every response is a valid JSON-RPC response. Tools may send notifications
// before the response through Notify and Progress when ctx carries a
// Sender (WithSender).
func (s *Server) Handle(ctx context.Context, client string, data []byte) []byte {
	msg, err := protocol.DecodeMessage(data)
	if err != nil {
		var de *protocol.DecodeError
		if errors.As(err, &de) {
			return encode(&protocol.Response{ID: de.ID, Error: de.WireError()})
		}
		return encode(&protocol.Response{Error: protocol.Errorf(protocol.CodeParseError, "parse error: %v", err)})
	}
	return s.HandleMessage(ctx, client, msg)
}

// HandleMessage is Handle for a message the transport has decoded already
// (to classify it): it returns the encoded response, or nil when none is
// due.
func (s *Server) HandleMessage(ctx context.Context, client string, msg protocol.Message) []byte {
	req, ok := msg.(*protocol.Request)
	if !ok {
		return nil // a response to a request we never sent: nothing to say
	}
	if req.IsCall() && strings.HasPrefix(req.Method, "notifications/") {
		return encode(&protocol.Response{ID: req.ID, Error: protocol.Errorf(protocol.CodeInvalidRequest,
			"%s is a notification: send it without an id (a message with an id is a request and expects a response)", req.Method)})
	}
	e, werr := eraOf(req)
	var result json.RawMessage
	if werr == nil {
		if e.modern {
			s.names.set(client, e.name)
			ctx = context.WithValue(ctx, eraKey{}, e)
		}
		result, werr = s.dispatch(ctx, client, req)
	}
	if !req.IsCall() {
		return nil
	}
	if werr != nil {
		return encode(&protocol.Response{ID: req.ID, Error: werr})
	}
	if len(result) > 0 {
		if e.modern {
			result = modernResult(req.Method, result)
		}
		return protocol.EncodeResult(req.ID, result)
	}
	s.log.Error().Str("method", req.Method).Msg("request handled without a result")
	return encode(&protocol.Response{ID: req.ID, Error: protocol.Errorf(protocol.CodeInternalError,
		"%s produced no result; this is a gasoline bug, the daemon log has details", req.Method)})
}

func (s *Server) dispatch(ctx context.Context, client string, req *protocol.Request) (json.RawMessage, *protocol.WireError) {
	if isModern(ctx) && removedMethods[req.Method] {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound,
			"method not found: %s is not part of MCP %s (no initialize: every request carries its _meta; server/discover describes the server)", req.Method, protocol.ModernVersion)
	}
	switch req.Method {
	case protocol.MethodInitialize:
		return s.initialize(client, req.Params)
	case protocol.MethodPing:
		return json.RawMessage("{}"), nil
	case protocol.MethodDiscover:
		return s.discover(), nil
	case protocol.MethodToolsList:
		return s.toolsList(), nil
	case protocol.MethodToolsCall:
		return s.toolsCall(ctx, client, req.Params)
	}
	if res, werr, ok := s.resourcesMethod(ctx, client, req); ok {
		return res, werr
	}
	if res, werr, ok := s.tasksMethod(ctx, client, req); ok {
		return res, werr
	}
	if req.Method == MethodListen && isModern(ctx) {
		return s.listen(ctx, client, req)
	}
	if strings.HasPrefix(req.Method, "notifications/") {
		return nil, nil
	}
	return nil, protocol.Errorf(protocol.CodeMethodNotFound,
		"method not found: %q; this server implements server/discover, initialize, ping, tools/list, tools/call, resources/list, resources/read, tasks/get, tasks/cancel, tasks/result and tasks/list (2025-11-25), tasks/update and subscriptions/listen (2026-07-28)", req.Method)
}

// initialize answers initialize and remembers the client's name.
func (s *Server) initialize(client string, params json.RawMessage) (json.RawMessage, *protocol.WireError) {
	var p protocol.InitializeParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid initialize params: %v", err)
		}
	}
	if p.ProtocolVersion == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams,
			"invalid initialize params: \"protocolVersion\" is required; this server speaks %s",
			strings.Join(protocol.SupportedVersions, ", "))
	}
	s.names.set(client, p.ClientInfo.Name)
	res := protocol.InitializeResult{
		ProtocolVersion: protocol.NegotiateVersion(p.ProtocolVersion),
		Capabilities:    s.capabilities(),
		ServerInfo:      s.info,
		Instructions:    s.instructions,
	}
	if s.tasks != nil && res.ProtocolVersion >= protocol.TasksVersion {
		res.Capabilities.Tasks = &protocol.TasksCapability{Cancel: &struct{}{}, List: &struct{}{}}
	}
	b, _ := json.Marshal(res)
	return b, nil
}

func (s *Server) capabilities() protocol.ServerCapabilities {
	c := protocol.ServerCapabilities{Tools: &protocol.ToolCapabilities{}}
	if s.resources != nil {
		c.Resources = &protocol.ResourceCapabilities{}
	}
	return c
}

// toolsList returns the tools/list result, encoded by AddTool so that
// concurrent calls only read it.
func (s *Server) toolsList() json.RawMessage {
	if s.list == nil {
		return json.RawMessage(`{"tools":[]}`)
	}
	return s.list
}

// callParams are the params of tools/call as the server reads them: the
// call, and the progress token of a client that asks for progress.
type callParams struct {
	protocol.CallToolParams
	Task *protocol.TaskMetadata `json:"task"` // 2025-11-25's task augmentation
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

func (s *Server) toolsCall(ctx context.Context, client string, params json.RawMessage) (json.RawMessage, *protocol.WireError) {
	var p callParams
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid tools/call params: \"name\" (string) is required")
	}
	if tok := p.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
		ctx = withProgressToken(ctx, tok)
	}
	t, ok := s.tools[p.Name]
	if !ok {
		names := make([]string, 0, len(s.tools))
		for n := range s.tools {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "unknown tool %q; available tools: %s", p.Name, strings.Join(names, ", "))
	}
	done := make(chan struct{})
	defer close(done)
	s.callMu.Lock()
	// lastDone before lastCall: a look that sees this call must find its done.
	s.lastDone = done
	s.lastCall.Store(s.now().UnixNano())
	if s.nextCall != nil {
		close(s.nextCall)
		s.nextCall = nil
	}
	s.callMu.Unlock()
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	legacyTask := p.Task != nil && s.tasks != nil && !isModern(ctx)
	if legacyTask && (t.Def.Execution == nil || t.Def.Execution.TaskSupport == "" || t.Def.Execution.TaskSupport == "forbidden") {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "tool %q does not run as a task; call it without \"task\"", p.Name)
	}
	if e, _ := ctx.Value(eraKey{}).(era); (legacyTask || e.tasks && s.tasks != nil) && t.Long != nil && t.Long(args) {
		return s.runAsTask(ctx, client, t, args, e.modern), nil
	}
	out, err := t.Handler(ctx, client, args)
	if legacyTask {
		return s.legacyTask(client, p.Name, out, err), nil
	}
	if err == nil {
		if res, ok := s.asTask(ctx, client, out); ok {
			return res, nil
		}
	}
	return s.toolResult(client, p.Name, out, err), nil
}

// callTool runs the registered tool name with args for client, as
// tools/call does, and returns its CallToolResult.
func (s *Server) callTool(ctx context.Context, client, name string, args json.RawMessage) json.RawMessage {
	t, ok := s.tools[name]
	if !ok {
		return s.toolResult(client, name, nil, fmt.Errorf("tool %q is not registered", name))
	}
	out, err := t.Handler(ctx, client, args)
	return s.toolResult(client, name, out, err)
}

// Image is an image block of a tool result: Data is base64.
type Image struct {
	Data     string
	MIMEType string
}

// An Imager is a tool result that carries images besides its JSON object;
// each becomes an image content block after the text block. The images are
// not part of the structured object.
type Imager interface{ Images() []Image }

// toolResult encodes a handler's outcome as a CallToolResult whose text is
// the compact JSON of the structured object.
func (s *Server) toolResult(client, tool string, out any, err error) json.RawMessage {
	isError := false
	if err != nil {
		isError = true
		var te *ToolError
		if !errors.As(err, &te) {
			s.log.Error().Err(err).Str("tool", tool).Str("client", client).Msg("tool failed")
			te = &ToolError{Code: "internal_error", Message: err.Error(),
				Hint: "this is a gasoline bug; the daemon log (daemon.log in the state dir) has details"}
		}
		out = &ErrorResult{Error: te}
	}
	body, merr := marshal(out)
	if merr == nil && (len(body) == 0 || body[0] != '{') {
		merr = fmt.Errorf("the result of %s is %T, not an object", tool, out)
	}
	if merr != nil {
		s.log.Error().Err(merr).Str("tool", tool).Msg("encoding a tool result")
		out = &ErrorResult{Error: &ToolError{Code: "internal_error", Message: "encoding result: " + merr.Error(),
			Hint: "this is a gasoline bug; the daemon log (daemon.log in the state dir) has details"}}
		body, _ = marshal(out)
		isError = true
	}
	if s.decorate != nil {
		body = s.decorate(client, out, body)
	}
	// The envelope is assembled by hand: body is valid JSON already, and
	// re-encoding it through CallToolResult would scan it twice more.
	text, _ := marshal(string(body))
	res := make([]byte, 0, len(body)+len(text)+96)
	res = append(res, `{"content":[{"type":"text","text":`...)
	res = append(res, text...)
	res = append(res, '}')
	if im, ok := out.(Imager); ok && !isError {
		for _, img := range im.Images() {
			data, _ := marshal(img.Data)
			mime, _ := marshal(img.MIMEType)
			res = append(res, `,{"type":"image","data":`...)
			res = append(res, data...)
			res = append(res, `,"mimeType":`...)
			res = append(res, mime...)
			res = append(res, '}')
		}
	}
	res = append(res, `],"structuredContent":`...)
	res = append(res, body...)
	if isError {
		res = append(res, `,"isError":true`...)
	}
	return append(res, '}')
}

// marshal encodes v as compact JSON without HTML escaping: tool results are
// read by agents, for whom "<" is cheaper than "\u003c".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func encode(r *protocol.Response) []byte {
	b, err := protocol.EncodeMessage(r)
	if err != nil {
		b, _ = protocol.EncodeMessage(&protocol.Response{ID: r.ID, Error: protocol.Errorf(protocol.CodeInternalError, "encoding response: %v", err)})
	}
	return b
}

// AppendField returns obj, an encoded JSON object, with the member
// "name": value added at its end. value must be valid JSON. It is how a
// Decorator adds to a result without decoding it.
func AppendField(obj []byte, name string, value []byte) []byte {
	start, end := bytes.IndexByte(obj, '{'), bytes.LastIndexByte(obj, '}')
	if start < 0 || end < start {
		return obj
	}
	key, _ := marshal(name)
	out := make([]byte, 0, len(obj)+len(key)+len(value)+2)
	out = append(out, obj[:end]...)
	if len(bytes.TrimSpace(obj[start+1:end])) > 0 {
		out = append(out, ',')
	}
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, obj[end:]...)
}
