//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// renewEvery is how often -at-work sends the agent's command again: well
// within the 15 minutes after its last command that the extension stays
// at work (extension/capture/declared.js IDLE_AFTER_MS), so a long run
// stays in one mode.
const renewEvery = 5 * time.Minute

// agent is an MCP client of the daemon that keeps the extension at work
// (every frame captured), as an agent working in the browser does.
type agent struct {
	client *gasoline.Client
	url    string // the page its command opens
	last   time.Time
}

// startAgent connects to d through the real bridge and sends its first
// command (see command).
func startAgent(ctx context.Context, d *gasoline.Daemon, url string) (*agent, error) {
	c, err := gasoline.Connect(ctx, d)
	if err != nil {
		return nil, err
	}
	a := &agent{client: c, url: url}
	if err := a.command(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return a, nil
}

// command opens a.url in a new tab and closes it again, both through
// interact, and fails unless both complete: each is a command that
// reaches the extension, which then captures every frame.
func (a *agent) command(ctx context.Context) error {
	r, err := a.client.Call(ctx, "interact", map[string]any{"action": "new_tab", "url": a.url, "wait_ms": 20000})
	if err != nil {
		return err
	}
	var tab struct {
		TabID int64 `json:"tab_id"`
	}
	if r.Status != "complete" || json.Unmarshal(r.Value, &tab) != nil || tab.TabID == 0 {
		return fmt.Errorf("the agent's new_tab did not complete: %s", r)
	}
	if r, err = a.client.Call(ctx, "interact", map[string]any{"action": "close_tab", "tab_id": tab.TabID, "wait_ms": 20000}); err != nil {
		return err
	}
	if r.Status != "complete" {
		return fmt.Errorf("the agent's close_tab did not complete: %s", r)
	}
	a.last = time.Now()
	return nil
}

// keep sends the command again once renewEvery has passed since the last.
func (a *agent) keep(ctx context.Context) error {
	if time.Since(a.last) < renewEvery {
		return nil
	}
	return a.command(ctx)
}

func (a *agent) close() { a.client.Close() }
