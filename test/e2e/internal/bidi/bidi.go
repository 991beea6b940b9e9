// Package bidi is a minimal WebDriver BiDi client for the Firefox tests:
// one websocket to the browser's remote agent, commands with replies, and
// the few modules the tests use (session, browsingContext, script, input,
// webExtension). It needs no driver: Firefox serves BiDi itself on its
// --remote-debugging-port.
package bidi

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
var ErrClosed = errors.New("bidi: connection closed")

// Error is an error answer of the browser to one command.
type Error struct {
	Method  string
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return fmt.Sprintf("bidi %s: %s: %s", e.Method, e.Code, e.Message) }

type message struct {
	ID      int64           `json:"id,omitempty"`
	Type    string          `json:"type,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	Message string          `json:"message,omitempty"`
}

// Conn is one websocket connection to a browser's BiDi endpoint
// (ws://127.0.0.1:PORT/session). Its methods are safe for concurrent use.
type Conn struct {
	ws     *websocket.Conn
	nextID atomic.Int64
	done   chan struct{} // closed when the read loop ends

	mu     sync.Mutex
	calls  map[int64]chan message // guarded by mu
	closed bool                   // the read loop ended; guarded by mu
}

// Dial connects to url and starts a session (session.new) with no
// capabilities but the defaults.
func Dial(ctx context.Context, url string) (*Conn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dialing WebDriver BiDi at %s: %w", url, err)
	}
	ws.SetReadLimit(256 << 20)
	c := &Conn{ws: ws, done: make(chan struct{}), calls: map[int64]chan message{}}
	go c.readLoop()
	if err := c.Call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		c.Close()
		return nil, err
	}
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
		if json.Unmarshal(data, &m) != nil || m.Type == "event" || m.ID == 0 {
			continue // the tests subscribe to no event
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

// Close ends the session's connection. It may be called more than once.
func (c *Conn) Close() error {
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

// Call sends method with params, waits for the reply and decodes its
// result into result (unless nil). It returns *Error for an error answer
// and ErrClosed when the connection ends first.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
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
	data, err := json.Marshal(message{ID: id, Method: method, Params: params})
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
		if m.Type == "error" {
			return &Error{Method: method, Code: m.Error, Message: m.Message}
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

// InstallExtension installs the unpacked extension in dir (an absolute
// path) as a temporary add-on, which Firefox allows unsigned, and returns
// its ID.
func (c *Conn) InstallExtension(ctx context.Context, dir string) (string, error) {
	var r struct {
		Extension string `json:"extension"`
	}
	err := c.Call(ctx, "webExtension.install", map[string]any{"extensionData": map[string]any{"type": "path", "path": dir}}, &r)
	return r.Extension, err
}

// NewTab opens a tab and returns its browsing context id.
func (c *Conn) NewTab(ctx context.Context) (string, error) {
	var r struct {
		Context string `json:"context"`
	}
	err := c.Call(ctx, "browsingContext.create", map[string]any{"type": "tab"}, &r)
	return r.Context, err
}

// Navigate loads url in the browsing context and waits for its load event.
func (c *Conn) Navigate(ctx context.Context, context, url string) error {
	return c.Call(ctx, "browsingContext.navigate", map[string]any{"context": context, "url": url, "wait": "complete"}, nil)
}

// Activate brings the browsing context's tab to the front.
func (c *Conn) Activate(ctx context.Context, context string) error {
	return c.Call(ctx, "browsingContext.activate", map[string]any{"context": context}, nil)
}

// CloseTab closes the browsing context's tab.
func (c *Conn) CloseTab(ctx context.Context, context string) error {
	return c.Call(ctx, "browsingContext.close", map[string]any{"context": context}, nil)
}

// Context is one browsing context in Tree's answer.
type Context struct {
	Context  string    `json:"context"`
	URL      string    `json:"url"`
	Children []Context `json:"children"`
}

// Tree lists the top-level browsing contexts (tabs).
func (c *Conn) Tree(ctx context.Context) ([]Context, error) {
	var r struct {
		Contexts []Context `json:"contexts"`
	}
	err := c.Call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0}, &r)
	return r.Contexts, err
}

// EvalError is a script that threw.
type EvalError struct {
	Text string
}

func (e *EvalError) Error() string { return "script threw: " + e.Text }

// Evaluate runs expression in the browsing context's page (awaiting a
// promise it returns) and decodes JSON.stringify of its value into out
// (unless nil). It returns *EvalError when the script throws.
func (c *Conn) Evaluate(ctx context.Context, context, expression string, out any) error {
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type  string `json:"type"`
			Value any    `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	expr := fmt.Sprintf("(async () => JSON.stringify(await (%s)))()", expression)
	err := c.Call(ctx, "script.evaluate", map[string]any{
		"expression": expr, "target": map[string]any{"context": context}, "awaitPromise": true, "resultOwnership": "none",
	}, &r)
	if err != nil {
		return err
	}
	if r.Type == "exception" {
		return &EvalError{Text: r.ExceptionDetails.Text}
	}
	s, _ := r.Result.Value.(string)
	if out == nil || s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), out)
}

// TypeText types text into the focused element of the browsing context as
// a keyboard would: a trusted keyDown and keyUp per character
// (input.performActions).
func (c *Conn) TypeText(ctx context.Context, context, text string) error {
	var actions []map[string]any
	for _, r := range text {
		actions = append(actions, map[string]any{"type": "keyDown", "value": string(r)}, map[string]any{"type": "keyUp", "value": string(r)})
	}
	return c.Call(ctx, "input.performActions", map[string]any{
		"context": context,
		"actions": []map[string]any{{"type": "key", "id": "keyboard", "actions": actions}},
	}, nil)
}

// Key values of WebDriver's keyboard for keys that type no character
// (WebDriver's "normalised key values").
const (
	KeyEnter   = "\uE007"
	KeyEscape  = "\uE00C"
	KeyControl = "\uE009"
)

// PointerStep is one step of a mouse in Pointer: "pointerMove" to (X, Y) in
// the viewport's CSS pixels, "pointerDown" or "pointerUp" of the left button.
type PointerStep struct {
	Type string
	X, Y float64
}

// Pointer plays steps with the mouse in the browsing context as a user
// would: trusted events, the page's hit testing (input.performActions).
func (c *Conn) Pointer(ctx context.Context, context string, steps ...PointerStep) error {
	var actions []map[string]any
	for _, s := range steps {
		a := map[string]any{"type": s.Type}
		if s.Type == "pointerMove" {
			a["x"], a["y"], a["duration"] = int(s.X), int(s.Y), 0
		} else {
			a["button"] = 0
		}
		actions = append(actions, a)
	}
	return c.Call(ctx, "input.performActions", map[string]any{
		"context": context,
		"actions": []map[string]any{{"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"}, "actions": actions}},
	}, nil)
}

// Click clicks the left button at (x, y) of the viewport.
func (c *Conn) Click(ctx context.Context, context string, x, y float64) error {
	return c.Pointer(ctx, context, PointerStep{"pointerMove", x, y}, PointerStep{Type: "pointerDown"}, PointerStep{Type: "pointerUp"})
}

// Drag presses the left button at (x1, y1), moves through the middle to
// (x2, y2) and releases it there.
func (c *Conn) Drag(ctx context.Context, context string, x1, y1, x2, y2 float64) error {
	return c.Pointer(ctx, context,
		PointerStep{"pointerMove", x1, y1}, PointerStep{Type: "pointerDown"},
		PointerStep{"pointerMove", (x1 + x2) / 2, (y1 + y2) / 2}, PointerStep{"pointerMove", x2, y2},
		PointerStep{Type: "pointerUp"})
}

// Press presses keys together, as a chord (the first held while the next
// go down), and releases them in reverse: Press(ctx, tab, KeyControl,
// KeyEnter) is Ctrl+Enter.
func (c *Conn) Press(ctx context.Context, context string, keys ...string) error {
	var actions []map[string]any
	for _, k := range keys {
		actions = append(actions, map[string]any{"type": "keyDown", "value": k})
	}
	for i := len(keys) - 1; i >= 0; i-- {
		actions = append(actions, map[string]any{"type": "keyUp", "value": keys[i]})
	}
	return c.Call(ctx, "input.performActions", map[string]any{
		"context": context,
		"actions": []map[string]any{{"type": "key", "id": "keyboard", "actions": actions}},
	}, nil)
}

// Frames lists the browsing context's descendants (its frames, nested),
// depth first.
func (c *Conn) Frames(ctx context.Context, context string) ([]Context, error) {
	var r struct {
		Contexts []Context `json:"contexts"`
	}
	if err := c.Call(ctx, "browsingContext.getTree", map[string]any{"root": context}, &r); err != nil {
		return nil, err
	}
	var out []Context
	var walk func([]Context)
	walk = func(cs []Context) {
		for _, x := range cs {
			out = append(out, x)
			walk(x.Children)
		}
	}
	for _, root := range r.Contexts {
		walk(root.Children)
	}
	return out, nil
}
