// Package cdp is a minimal Chrome DevTools Protocol client: one websocket to
// the browser endpoint, commands with replies, and flattened target sessions.
// It subscribes to no events and never auto-attaches, so it keeps no target
// (in particular no extension service worker) alive by itself.
package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// ErrClosed is returned by calls on a connection that has been closed or
// whose browser went away.
var ErrClosed = errors.New("cdp: connection closed")

// Error is an error answer of the browser to one command.
type Error struct {
	Method  string
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cdp %s: %s (code %d)", e.Method, e.Message, e.Code)
	if e.Data != "" {
		s += ": " + e.Data
	}
	return s
}

type message struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// Conn is one websocket connection to a browser's DevTools endpoint. Its
// methods are safe for concurrent use.
type Conn struct {
	ws     *websocket.Conn
	nextID atomic.Int64
	done   chan struct{} // closed when the read loop ends

	mu     sync.Mutex
	calls  map[int64]chan message // guarded by mu
	closed bool                   // the read loop ended; guarded by mu
}

// Dial connects to a browser endpoint such as
// ws://127.0.0.1:PORT/devtools/browser/ID. The handshake carries no Origin
// header, so Chromium accepts it without --remote-allow-origins.
func Dial(ctx context.Context, url string) (*Conn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dialing DevTools at %s: %w", url, err)
	}
	ws.SetReadLimit(256 << 20)
	c := &Conn{ws: ws, done: make(chan struct{}), calls: map[int64]chan message{}}
	go c.readLoop()
	return c, nil
}

func (c *Conn) readLoop() {
	defer func() {
		c.mu.Lock()
		c.closed = true
		for id, ch := range c.calls {
			close(ch)
			delete(c.calls, id)
		}
		c.mu.Unlock()
		close(c.done)
	}()
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(data, &m) != nil || m.ID == 0 {
			continue // an event: nobody here subscribes to any
		}
		c.mu.Lock()
		ch := c.calls[m.ID]
		delete(c.calls, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// Close closes the connection. It may be called more than once.
func (c *Conn) Close() error {
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

// Done is closed when the connection ends (Close, or the browser exited).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Call sends method with params to the browser (sessionID "") or to an
// attached session, waits for the reply and decodes its result into result
// (unless nil). It returns *Error for an error answer and ErrClosed when the
// connection ends first.
func (c *Conn) Call(ctx context.Context, sessionID, method string, params, result any) error {
	id := c.nextID.Add(1)
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ErrClosed)
	}
	c.calls[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}()
	if params == nil {
		params = struct{}{}
	}
	data, err := json.Marshal(message{ID: id, SessionID: sessionID, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, ErrClosed)
		}
		if m.Error != nil {
			m.Error.Method = method
			return m.Error
		}
		if result != nil && len(m.Result) > 0 {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("decoding the reply to %s: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// TargetInfo describes one DevTools target (page, service worker, ...).
type TargetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Attached bool   `json:"attached"`
}

// Targets lists the browser's targets.
func (c *Conn) Targets(ctx context.Context) ([]TargetInfo, error) {
	var r struct {
		TargetInfos []TargetInfo `json:"targetInfos"`
	}
	if err := c.Call(ctx, "", "Target.getTargets", nil, &r); err != nil {
		return nil, err
	}
	return r.TargetInfos, nil
}

// CreateTarget opens url in a new tab and returns its target id.
func (c *Conn) CreateTarget(ctx context.Context, url string) (string, error) {
	var r struct {
		TargetID string `json:"targetId"`
	}
	if err := c.Call(ctx, "", "Target.createTarget", map[string]any{"url": url}, &r); err != nil {
		return "", err
	}
	return r.TargetID, nil
}

// CloseTarget closes a tab (or other target).
func (c *Conn) CloseTarget(ctx context.Context, targetID string) error {
	return c.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": targetID}, nil)
}

// Attach attaches to a target with a flattened session. Detach the session
// when done: an attached DevTools client keeps a service worker alive.
func (c *Conn) Attach(ctx context.Context, targetID string) (*Session, error) {
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true}, &r); err != nil {
		return nil, err
	}
	return &Session{c: c, ID: r.SessionID, TargetID: targetID}, nil
}

// Session is a flattened session attached to one target.
type Session struct {
	c        *Conn
	ID       string
	TargetID string
}

// Call sends method to the session's target; see Conn.Call.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.c.Call(ctx, s.ID, method, params, result)
}

// Detach ends the session; the target keeps running.
func (s *Session) Detach(ctx context.Context) error {
	return s.c.Call(ctx, "", "Target.detachFromTarget", map[string]any{"sessionId": s.ID}, nil)
}

// EvalError is a JavaScript exception raised by an evaluated expression.
type EvalError struct {
	Expression string
	Text       string
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("evaluating %q: %s", e.Expression, e.Text)
}

// Evaluate runs expression in the target's main context, awaits a returned
// promise and decodes the value (returned by value, so it must be JSON) into
// out, unless out is nil. A thrown exception is an *EvalError.
func (s *Session) Evaluate(ctx context.Context, expression string, out any) error {
	var r struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := s.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression":    expression,
		"awaitPromise":  true,
		"returnByValue": true,
	}, &r)
	if err != nil {
		return err
	}
	if d := r.ExceptionDetails; d != nil {
		text := d.Exception.Description
		if text == "" {
			text = d.Text
		}
		return &EvalError{Expression: expression, Text: text}
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Result.Value, out); err != nil {
		return fmt.Errorf("decoding the value of %q (%s): %w", expression, r.Result.Value, err)
	}
	return nil
}
