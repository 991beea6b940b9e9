package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// A Sender delivers one encoded JSON-RPC message to the client of the
// request being handled, before that request's response: a transport that
// can carry several messages per request (Streamable HTTP with an SSE
// stream) provides one. It must be safe for concurrent use and must not
// block for long.
type Sender func(ctx context.Context, msg []byte) error

// MethodProgress is the notification that reports a request's progress.
const MethodProgress = "notifications/progress"

// ErrNoSender is returned by Notify when the request's transport answers
// with its response alone (the JSON transports: stdio through the bridge,
// POST /mcp without SSE), so a notification has nowhere to go.
var ErrNoSender = errors.New("mcp: this request's transport carries no notifications")

type senderKey struct{}
type progressKey struct{}

// WithSender returns ctx carrying send, for the request Handle processes
// with it. Without one, Notify fails with ErrNoSender and Progress does
// nothing.
func WithSender(ctx context.Context, send Sender) context.Context {
	return context.WithValue(ctx, senderKey{}, send)
}

// Notify sends the notification method with params (encoded as JSON; nil
// for none) to the client of the request ctx belongs to, before its
// response. It fails with ErrNoSender when the request's transport cannot
// carry notifications, and with the Sender's error.
func Notify(ctx context.Context, method string, params any) error {
	send, _ := ctx.Value(senderKey{}).(Sender)
	if send == nil {
		return ErrNoSender
	}
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("encoding %s params: %w", method, err)
		}
		raw = b
	}
	msg, err := protocol.EncodeMessage(&protocol.Request{Method: method, Params: raw})
	if err != nil {
		return err
	}
	return send(ctx, msg)
}

// progressParams are the params of notifications/progress.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

func withProgressToken(ctx context.Context, tok json.RawMessage) context.Context {
	return context.WithValue(ctx, progressKey{}, tok)
}

// WantsProgress reports whether the client of the request ctx belongs to
// asked for progress and its transport can carry it: a tool may skip the
// work of reporting otherwise.
func WantsProgress(ctx context.Context) bool {
	tok, _ := ctx.Value(progressKey{}).(json.RawMessage)
	send, _ := ctx.Value(senderKey{}).(Sender)
	return tok != nil && send != nil
}

// Progress reports the progress of the tool call ctx belongs to (progress
// rises on every call; total is 0 when unknown) when its client asked for
// progress with a _meta.progressToken and its transport carries
// notifications; otherwise it does nothing and returns nil.
func Progress(ctx context.Context, progress, total float64, message string) error {
	tok, _ := ctx.Value(progressKey{}).(json.RawMessage)
	if tok == nil {
		return nil
	}
	err := Notify(ctx, MethodProgress, progressParams{ProgressToken: tok, Progress: progress, Total: total, Message: message})
	if errors.Is(err, ErrNoSender) {
		return nil
	}
	return err
}
