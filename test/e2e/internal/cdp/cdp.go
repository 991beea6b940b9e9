// Package cdp is a minimal Chrome DevTools Protocol client: one websocket to
// the browser endpoint, commands with replies, flattened target sessions, and
// events for whoever subscribes to a session's. It never auto-attaches, so it
// keeps no target (in particular no extension service worker) alive by
// itself.
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

// Event is a DevTools event of one session ("" for the browser session).
type Event struct {
	SessionID string
	Method    string
	Params    json.RawMessage
}

type subscriber struct {
	sessionID string
	ch        chan Event
}

// Conn is one websocket connection to a browser's DevTools endpoint. Its
// methods are safe for concurrent use.
type Conn struct {
	ws     *websocket.Conn
	nextID atomic.Int64
	done   chan struct{} // closed when the read loop ends

	mu     sync.Mutex
	calls  map[int64]chan message // guarded by mu
	subs   []*subscriber          // guarded by mu
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
		for _, s := range c.subs {
			close(s.ch)
		}
		c.subs = nil
		c.mu.Unlock()
		close(c.done)
	}()
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.ID == 0 {
			c.deliver(data, m)
			continue
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

// deliver hands an event to the subscribers of its session; a subscriber
// whose buffer is full misses it.
func (c *Conn) deliver(data []byte, m message) {
	if m.Method == "" {
		return
	}
	var raw struct {
		Params json.RawMessage `json:"params"`
	}
	json.Unmarshal(data, &raw)
	ev := Event{SessionID: m.SessionID, Method: m.Method, Params: raw.Params}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.subs {
		if s.sessionID == m.SessionID {
			select {
			case s.ch <- ev:
			default:
			}
		}
	}
}

// Subscribe returns a channel of the events of session sessionID ("" for
// the browser), buffered for n events (later ones are missed while it is
// full), and a function that ends the subscription. The channel is closed
// when the subscription or the connection ends.
func (c *Conn) Subscribe(sessionID string, n int) (<-chan Event, func()) {
	s := &subscriber{sessionID: sessionID, ch: make(chan Event, n)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		close(s.ch)
		return s.ch, func() {}
	}
	c.subs = append(c.subs, s)
	c.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for i, x := range c.subs {
				if x == s {
					c.subs = append(c.subs[:i], c.subs[i+1:]...)
					close(s.ch)
					return
				}
			}
		})
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
	return s.EvaluateIn(ctx, 0, expression, out)
}

// EvaluateIn is Evaluate in the execution context contextID (0: the main
// one), such as an extension's isolated world found through
// Runtime.executionContextCreated events.
func (s *Session) EvaluateIn(ctx context.Context, contextID int, expression string, out any) error {
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
	params := map[string]any{
		"expression":    expression,
		"awaitPromise":  true,
		"returnByValue": true,
	}
	if contextID != 0 {
		params["contextId"] = contextID
	}
	err := s.Call(ctx, "Runtime.evaluate", params, &r)
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

// Click presses and releases the left mouse button at (x, y) in CSS pixels
// of the viewport, as a user would: the page sees trusted events.
func (s *Session) Click(ctx context.Context, x, y float64) error {
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": x, "y": y}
		if typ != "mouseMoved" {
			p["button"] = "left"
			p["clickCount"] = 1
		}
		if err := s.Call(ctx, "Input.dispatchMouseEvent", p, nil); err != nil {
			return err
		}
	}
	return nil
}

// InsertText types text into the focused element as a keyboard's input
// method would (trusted beforeinput and input events).
func (s *Session) InsertText(ctx context.Context, text string) error {
	return s.Call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

// keyCodes are the keys PressKey knows.
var keyCodes = map[string]struct {
	code string
	vk   int
	text string
}{
	"Enter":     {"Enter", 13, "\r"},
	"Escape":    {"Escape", 27, ""},
	"Tab":       {"Tab", 9, ""},
	"ArrowDown": {"ArrowDown", 40, ""},
	"a":         {"KeyA", 65, "a"},
}

// PressKey presses and releases one key ("Enter", "Escape", "Tab", "ArrowDown", "a") in
// the focused element as trusted keydown and keyup events; Enter also types
// its "\r", so in a form field it submits the form as a user's Enter does.
func (s *Session) PressKey(ctx context.Context, key string) error {
	k, ok := keyCodes[key]
	if !ok {
		return fmt.Errorf("cdp: PressKey does not know the key %q", key)
	}
	down := map[string]any{"type": "keyDown", "key": key, "code": k.code, "windowsVirtualKeyCode": k.vk, "nativeVirtualKeyCode": k.vk}
	if k.text != "" {
		down["text"] = k.text
		down["unmodifiedText"] = k.text
	}
	if err := s.Call(ctx, "Input.dispatchKeyEvent", down, nil); err != nil {
		return err
	}
	return s.Call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": k.code,
		"windowsVirtualKeyCode": k.vk, "nativeVirtualKeyCode": k.vk}, nil)
}
