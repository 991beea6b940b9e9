// Package tools implements gasoline's MCP tools — interact, observe and
// configure — on top of the command tracker.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// Limits on the waits a tool call may ask for.
const (
	MaxWait        = 55 * time.Second // observe command_result / completed_commands
	AnnotationWait = 55 * time.Second // default wait for ann_ correlation ids
	MaxTimeout     = 10 * time.Minute // per-command execution deadline
)

// Deps are what the tools need from the daemon.
type Deps struct {
	Tracker *tracker.Tracker
	// Health returns the daemon's health for configure({action:"health"}).
	Health func() apitype.Health
	// InlineWait is interact's default wait_ms (0: return the queued handle at once).
	InlineWait time.Duration
	// Output keeps results above the inline threshold; nil keeps everything inline.
	Output *output.Store
	Log    zerolog.Logger
}

// Tools serves the MCP tools. Create it with New.
type Tools struct {
	d Deps
}

// New returns the tools over d.
func New(d Deps) *Tools {
	return &Tools{d: d}
}

// Register adds every tool to s and installs the async-status decorator.
func (t *Tools) Register(s *mcp.Server) {
	s.AddTool(mcp.Tool{Def: interactDef, Handler: t.interact})
	s.AddTool(mcp.Tool{Def: observeDef, Handler: t.observe})
	s.AddTool(mcp.Tool{Def: configureDef, Handler: t.configure})
	s.SetDecorator(t.decorate)
}

// Instructions is the server's initialize instructions: the async pattern in
// a few lines.
const Instructions = `gasoline drives the user's real browser. Browser actions are asynchronous:
interact({action:"execute_js", script:"document.title"}) returns {status:"queued", correlation_id} at once;
then observe({what:"command_result", correlation_id, wait_ms:10000}) blocks until the result is ready.
Pass wait_ms to interact to get fast results inline. Results are kept 60 s after they finish; every tool
result lists your unread results under "async".`

// args is the union of every tool argument; each action reads what it needs.
type args struct {
	Action        string          `json:"action"`
	What          string          `json:"what"`
	Script        string          `json:"script"`
	TabID         *int64          `json:"tab_id"`
	TimeoutMS     *int64          `json:"timeout_ms"`
	WaitMS        *int64          `json:"wait_ms"`
	CorrelationID string          `json:"correlation_id"`
	URL           string          `json:"url"`
	Active        *bool           `json:"active"`
	Mode          string          `json:"mode"`
	Raw           json.RawMessage `json:"-"`
}

func decodeArgs(raw json.RawMessage) (args, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return a, mcp.Errorf("invalid_arguments", "check the tool's input schema",
				"argument %q must be of type %s, got %s", te.Field, te.Type, te.Value)
		}
		return a, mcp.Errorf("invalid_arguments", "arguments must be a JSON object", "invalid arguments: %v", err)
	}
	a.Raw = raw
	return a, nil
}

// waitArg validates an optional wait_ms against max and returns it (def when absent).
func waitArg(p *int64, def, max time.Duration) (time.Duration, error) {
	if p == nil {
		return def, nil
	}
	if *p < 0 || time.Duration(*p)*time.Millisecond > max {
		return 0, mcp.Errorf("invalid_arguments", fmt.Sprintf("use 0 to %d ms", max.Milliseconds()),
			"wait_ms %d is out of range", *p)
	}
	return time.Duration(*p) * time.Millisecond, nil
}

func unknownChoice(field, got string, valid []string) error {
	if got == "" {
		return mcp.Errorf("invalid_arguments", "one of: "+strings.Join(valid, ", "), "%q is required", field)
	}
	return mcp.Errorf("invalid_arguments", "one of: "+strings.Join(valid, ", "), "unknown %s %q", field, got)
}

// withWait returns a context that ends after d (at once when d is 0).
func withWait(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

func ms(d time.Duration) int64 { return d.Milliseconds() }
