package bridge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// JSON-RPC error codes the bridge answers with; package protocol defines
// them (-32000 to -32099 are JSON-RPC 2.0's implementation-defined errors).
const (
	codeParse             = protocol.CodeParseError
	codeInvalidRequest    = protocol.CodeInvalidRequest
	codeInternal          = protocol.CodeInternalError
	CodeTimeout           = protocol.CodeRequestTimeout
	CodeDaemonUnavailable = protocol.CodeDaemonUnavailable
	CodeDaemonRestarted   = protocol.CodeDaemonRestarted
	CodeDaemonRejected    = protocol.CodeDaemonRejected
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// startError reports that the daemon could not be started.
type startError struct {
	err error
	log string // the daemon's log file
}

func (e *startError) Error() string { return "starting the gasoline daemon: " + e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// restartedError reports a lost connection under a non-idempotent call.
type restartedError struct{ err error }

func (e *restartedError) Error() string { return "daemon restarted mid-call: " + e.err.Error() }
func (e *restartedError) Unwrap() error { return e.err }

// rpcErrorFor turns a failed call into the JSON-RPC error the client sees:
// what happened and what to do next.
func (b *Bridge) rpcErrorFor(callCtx context.Context, err error, m *message, timeout time.Duration) rpcError {
	timedOut := errors.Is(context.Cause(callCtx), context.DeadlineExceeded)
	if timedOut && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return rpcError{
			Code:    CodeTimeout,
			Message: timeoutMessage(m, timeout),
			Data:    map[string]any{"timeout_ms": timeout.Milliseconds()},
		}
	}
	if se, ok := errors.AsType[*startError](err); ok {
		return rpcError{
			Code: CodeDaemonUnavailable,
			Message: fmt.Sprintf("the gasoline daemon is not running and could not be started (%v). "+
				"Its log is %s; run 'gasoline daemon run' in a terminal to see why.", se.err, se.log),
			Data: map[string]any{"log": se.log, "port": b.opts.Port, "state_dir": b.opts.StateDir},
		}
	}
	if _, ok := errors.AsType[*restartedError](err); ok {
		return rpcError{
			Code: CodeDaemonRestarted,
			Message: fmt.Sprintf("the gasoline daemon restarted while %s was in flight; it may or may not have run. "+
				`Check observe({what:"pending_commands"}) before retrying.`, m.label()),
		}
	}
	if errors.Is(err, client.ErrUnreachable) {
		return rpcError{
			Code: CodeDaemonUnavailable,
			Message: fmt.Sprintf("the gasoline daemon was started but does not answer on %s (%v); "+
				"check 'gasoline daemon status' and its log %s.", b.client.BaseURL(), err, b.logFile()),
		}
	}
	if errors.Is(err, client.ErrConnLost) {
		return rpcError{
			Code: CodeDaemonRestarted,
			Message: fmt.Sprintf("the connection to the gasoline daemon broke twice during %s (%v); "+
				"check 'gasoline daemon status' and retry.", m.label(), err),
		}
	}
	if apiErr, ok := errors.AsType[*client.APIError](err); ok {
		return b.apiRPCError(apiErr, m)
	}
	if nd, ok := errors.AsType[*client.NotDaemonError](err); ok {
		// Nothing but a nonce went to it: not the token, not the call.
		return rpcError{
			Code:    CodeDaemonUnavailable,
			Message: fmt.Sprintf("gasoline-mcp did not send %s: %v", m.label(), nd),
			Data:    map[string]any{"port": nd.Port, "state_dir": b.opts.StateDir, "holder_pid": nd.PID},
		}
	}
	if errors.Is(err, client.ErrNotGasoline) {
		return rpcError{Code: CodeDaemonRejected, Message: fmt.Sprintf("gasoline-mcp could not relay %s: %v", m.label(), err)}
	}
	if errors.Is(err, state.ErrInsecure) {
		return rpcError{
			Code:    CodeDaemonUnavailable,
			Message: fmt.Sprintf("gasoline-mcp did not send %s: %v", m.label(), err),
			Data:    map[string]any{"state_dir": b.opts.StateDir},
		}
	}
	return rpcError{
		Code:    codeInternal,
		Message: fmt.Sprintf("gasoline-mcp could not relay %s: %v", m.label(), err),
	}
}

func (b *Bridge) apiRPCError(e *client.APIError, m *message) rpcError {
	data := map[string]any{"http_status": e.Status, "code": e.Code}
	if e.Hint != "" {
		data["hint"] = e.Hint
	}
	msg := e.Error()
	switch {
	case e.Status == http.StatusRequestEntityTooLarge:
		return rpcError{Code: codeInvalidRequest, Message: msg, Data: data}
	case e.Status == http.StatusUnauthorized:
		msg += fmt.Sprintf(" (gasoline-mcp reads the token from %s; is the daemon using the same --state-dir?)", b.state.File(state.TokenFile))
	case errors.Is(e, client.ErrNotGasoline):
		// Not the daemon's error shape, from a daemon that proved itself.
		msg = fmt.Sprintf("the gasoline daemon refused %s with HTTP %d (%s); check 'gasoline daemon status' and its log %s",
			m.label(), e.Status, e.Message, b.logFile())
	}
	return rpcError{Code: CodeDaemonRejected, Message: msg, Data: data}
}

func (b *Bridge) logFile() string { return b.state.File(state.LogFile) }

// timeoutMessage says which call timed out after how long, and what to do.
func timeoutMessage(m *message, timeout time.Duration) string {
	s := fmt.Sprintf("gasoline daemon did not answer %s within %v", m.label(), timeout)
	if m.wantsProgress() {
		s += " of its last progress message"
	}
	switch {
	case m.browserBound():
		return s + `; the browser command may still be running: poll observe({what:'command_result'}) ` +
			`or check observe({what:'pending_commands'}) before retrying`
	case m.Method == "tools/call" && m.Params.Name == "observe":
		return s + "; the daemon may be busy or stopped: retry, or check 'gasoline daemon status'"
	}
	return s + "; check 'gasoline daemon status' and retry"
}
