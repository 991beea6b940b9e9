package tools

import (
	"context"
	"fmt"
	"reflect"
)

// dialogActions answer the page's dialogs ahead of time: once a native
// dialog shows, the extension can only dismiss it (by hiding its tab a
// moment, unless a debugger is attached), so an agent arms the answer
// before it acts.
func dialogActions() []action { return []action{dialogAction()} }

// dialogWindowMS is how long a dialog action's answer stays armed when the
// call gives no timeout_ms: long enough for the agent's next call.
const dialogWindowMS = 60000

// dialogAction declares dialog. Its answer stays armed for timeout_ms
// (default dialogWindowMS), which the extension gets as window_ms.
func dialogAction() action {
	a := browser[dialogCallArgs]("dialog", "act",
		fmt.Sprintf("answer the next confirm/prompt/beforeunload for timeout_ms (%d)", dialogWindowMS))
	a.Idempotent = true
	a.sent, a.parse = reflect.TypeFor[dialogParams](), parseAs[dialogCallArgs]
	a.run = func(t *Tools, ctx context.Context, act *action, client string, in *arguments) (any, error) {
		args, err := decodeArgs[dialogCallArgs](act, in)
		if err != nil {
			return nil, err
		}
		b, err := browserArgsOf(in)
		if err != nil {
			return nil, err
		}
		p := dialogParams{dialogCallArgs: args, WindowMS: dialogWindowMS}
		if b.TimeoutMS != nil {
			p.WindowMS = *b.TimeoutMS
		}
		return t.submitBrowser(ctx, act, client, in, p)
	}
	return a
}

// dialogCallArgs are dialog's arguments: the answer, and text for a prompt.
type dialogCallArgs struct {
	Dialog string `json:"dialog" required:"true" enum:"accept,dismiss"`
	Text   string `json:"text,omitempty"`
	tabArg
}

// dialogParams are what the extension gets.
type dialogParams struct {
	dialogCallArgs
	WindowMS int64 `json:"window_ms"`
}
