// Package tools implements gasoline's MCP tools (interact, observe and
// configure) on top of the command tracker. Every action of a tool (a mode,
// for observe) is declared once, by a constructor in the file of its family
// (interact_tabs.go declares navigate, refresh, back, forward, new_tab,
// switch_tab and close_tab); each tool's enum, input schema and description,
// and the policy the bridge reads from internal/toolpolicy, are generated
// from those declarations.
package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/kv"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/internal/upload"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// Limits on the waits a tool call may ask for.
const (
	MaxWait = 55 * time.Second // longest wait_ms of any call
	// UserDrivenWait is command_result's default wait for a command that
	// waits for the user (a draw-mode session), instead of 0.
	UserDrivenWait = 55 * time.Second
	MaxTimeout     = tracker.DefaultMaxExecTimeout // per-command execution deadline
)

// Deps are what the tools need from the daemon.
type Deps struct {
	Tracker *tracker.Tracker
	// Health returns the daemon's health for configure({action:"health"}).
	Health func() apitype.Health
	// InlineWait is interact's default wait_ms (0: return the queued handle at once).
	InlineWait time.Duration
	// Results owns reported results and the output store; nil keeps every
	// result inline and offers no read modes.
	Results *result.Keeper
	// Capture holds what the extension captured in the user's tabs; nil
	// gives the tools an empty store of their own.
	Capture *capture.Store
	// KV is the key-value store of configure store/load, opened with values
	// of at most MaxStoreValue; when nil they answer not_available, with
	// KVErr as the reason when set.
	KV    *kv.Store
	KVErr error
	// Uploads are the directories the user allowed upload to read files
	// from; nil allows none.
	Uploads *upload.Dirs
	// Annotations keeps finished draw-mode sessions; nil: a new store.
	Annotations *annotate.Store
	// UserDrivenWait is command_result's default wait on a draw-mode
	// session (0: the UserDrivenWait constant); tests shorten it.
	UserDrivenWait time.Duration
	// ProgressEvery is how often blocking waits report progress to clients
	// that ask for it; 0 means DefaultProgressEvery.
	ProgressEvery time.Duration
	Log           zerolog.Logger
}

// Tools serves the MCP tools. Create it with New.
type Tools struct {
	d Deps
	// presenters shape complete commands' results, by command name
	// (action.present); read-only.
	presenters map[string]func(t *Tools, c tracker.Command, v *commandView)
	agent      agentLog // the agent's actions analyze test replays
}

// New returns the tools over d.
func New(d Deps) *Tools {
	if d.Results == nil {
		d.Results = result.NewKeeper(d.Tracker, nil, d.Log)
	}
	if d.Capture == nil {
		d.Capture = capture.New(capture.Options{})
	}
	if d.Annotations == nil {
		d.Annotations = annotate.NewStore(0, 0)
	}
	if d.UserDrivenWait <= 0 || d.UserDrivenWait > UserDrivenWait {
		d.UserDrivenWait = UserDrivenWait
	}
	return &Tools{d: d, presenters: presenters()}
}

// all is every tool, in tools/list order.
var all = []*tool{&analyze, &configure, &interact, &observe}

// Register adds every tool to s and installs the async-status decorator.
func (t *Tools) Register(s *mcp.Server) {
	for _, tl := range all {
		acts := tl.actions()
		sv := &served{tool: tl, byName: make(map[string]*action, len(acts))}
		for i := range acts {
			sv.names = append(sv.names, acts[i].Name)
			sv.byName[acts[i].Name] = &acts[i]
		}
		s.AddTool(mcp.Tool{Def: tl.def(acts), Handler: sv.handle(t), Long: sv.long})
	}
	s.SetDecorator(t.decorate)
	s.SetResources(outputResources{t})
}

// Instructions is the server's initialize instructions: the async pattern in
// a few lines, and the page fence (fence.go) in one sentence.
var Instructions = `gasoline drives the user's real browser. Browser actions are asynchronous:
interact({action:"execute_js", script:"document.title"}) returns {status:"queued", correlation_id} at once;
then observe({what:"command_result", correlation_id, wait_ms:10000}) blocks until the result is ready.
Pass wait_ms to interact to get fast results inline. Results are kept 60 s after they finish; every tool
result lists your unread results under "async".
` + pageFence.instruction()

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
