package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// DefaultProgressEvery is how often a blocking wait reports progress to a
// client that asked for it (_meta.progressToken) over a transport that
// carries notifications.
const DefaultProgressEvery = 5 * time.Second

// reportProgress reports progress for the request of ctx every
// Deps.ProgressEvery while a wait runs, with describe's message (given the
// time waited so far), and returns the function that stops it. stop waits
// for the reporter to end, so nothing is sent after it returns. It costs
// nothing when the client did not ask for progress.
func (t *Tools) reportProgress(ctx context.Context, describe func(waited time.Duration) string) (stop func()) {
	if !mcp.WantsProgress(ctx) {
		return func() {}
	}
	every := t.d.ProgressEvery
	if every <= 0 {
		every = DefaultProgressEvery
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := mcp.Progress(ctx, float64(n), 0, describe(time.Since(start))); err != nil {
					t.d.Log.Debug().Err(err).Msg("progress notification not sent")
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// commandProgress describes where command id stands, for progress
// messages: queued, delivered, running, or waiting for the user.
func (t *Tools) commandProgress(id string) func(time.Duration) string {
	return func(waited time.Duration) string {
		c, err := t.d.Tracker.Get(id)
		if err != nil {
			return fmt.Sprintf("waiting for %s (%s)", id, round(waited))
		}
		var where string
		switch {
		case c.State.Terminal():
			where = "finished"
		case !c.Delivered:
			where = "queued: no extension has taken it yet"
		case c.External:
			where = "waiting for the user in the browser"
		case !c.Acked:
			where = "delivered to the extension"
		default:
			where = "running in the browser"
		}
		return fmt.Sprintf("%s %s, %s", c.Action, where, round(time.Since(c.CreatedAt)))
	}
}

// anyProgress describes a wait for any of client's commands.
func (t *Tools) anyProgress(client string) func(time.Duration) string {
	return func(waited time.Duration) string {
		running, _ := t.d.Tracker.Unread(client)
		return fmt.Sprintf("waiting for any of %d unfinished commands, %s", len(running), round(waited))
	}
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }

// captureProgress describes a wait for new captured entries of kind ("" for
// any kind).
func captureProgress(kind string) func(time.Duration) string {
	what := "entries"
	if kind != "" {
		what = kind + " entries"
	}
	return func(waited time.Duration) string {
		return fmt.Sprintf("waiting for new %s from the browser, %s", what, round(waited))
	}
}
