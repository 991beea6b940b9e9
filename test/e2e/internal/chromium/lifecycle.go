package chromium

import (
	"context"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
)

// SetEnabled turns the extension off or on as the user would with its
// toggle on chrome://extensions (chrome.developerPrivate, what the toggle
// calls). Turned on again, the extension starts like a fresh install for
// the tabs already open: none of them has its content scripts. It returns
// once the page reports the new state; with enabled, also once the
// extension's service worker runs again.
func SetEnabled(ctx context.Context, c *cdp.Conn, enabled bool) error {
	state := "DISABLED"
	if enabled {
		state = "ENABLED"
	}
	err := onDetailsPage(ctx, c, fmt.Sprintf(`(async () => {
		await chrome.management.setEnabled(%q, %t);
		return (await chrome.developerPrivate.getExtensionInfo(%q)).state;
	})()`, ExtensionID, enabled, ExtensionID), state)
	if err != nil || !enabled {
		return err
	}
	_, err = WaitForWorker(ctx, c, 20*time.Second)
	return err
}

// Reload reloads the extension as chrome.runtime.reload() in its worker
// does (what the reload button on chrome://extensions does to an unpacked
// extension), and waits for its new service worker. The tabs already open
// keep the old instance's content scripts, which can no longer reach the
// worker.
func Reload(ctx context.Context, c *cdp.Conn) error {
	before, err := WaitForWorker(ctx, c, 20*time.Second)
	if err != nil {
		return err
	}
	s, err := c.Attach(ctx, before.TargetID)
	if err != nil {
		return fmt.Errorf("attaching to the worker: %w", err)
	}
	// The worker goes away with the call: its answer may never come.
	callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	s.Evaluate(callCtx, `setTimeout(() => chrome.runtime.reload(), 0), true`, nil)
	cancel()
	s.Detach(context.WithoutCancel(ctx))
	return poll(ctx, 20*time.Second, 50*time.Millisecond, "waiting for the reloaded extension's worker", func(ctx context.Context) (bool, error) {
		ts, err := c.Targets(ctx)
		if err != nil {
			return false, err
		}
		for _, t := range ts {
			if t.Type == "service_worker" && t.URL == WorkerURL && t.TargetID != before.TargetID {
				return true, nil
			}
		}
		return false, nil
	})
}

// onDetailsPage evaluates expression on the extension's details page (in a
// tab it opens and closes) and checks it resolves to want.
func onDetailsPage(ctx context.Context, c *cdp.Conn, expression, want string) error {
	id, err := c.CreateTarget(ctx, DetailsURL)
	if err != nil {
		return fmt.Errorf("opening %s: %w", DetailsURL, err)
	}
	defer closeAndWait(context.WithoutCancel(ctx), c, id)
	s, err := c.Attach(ctx, id)
	if err != nil {
		return fmt.Errorf("attaching to %s: %w", DetailsURL, err)
	}
	defer s.Detach(context.WithoutCancel(ctx))
	err = poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for chrome.developerPrivate on "+DetailsURL, func(ctx context.Context) (bool, error) {
		var ok bool
		err := s.Evaluate(ctx, `typeof chrome === "object" && typeof chrome.developerPrivate?.reload === "function" && typeof chrome.management?.setEnabled === "function"`, &ok)
		return ok, err
	})
	if err != nil {
		return err
	}
	var got string
	if err := s.Evaluate(ctx, expression, &got); err != nil {
		return fmt.Errorf("on %s: %w", DetailsURL, err)
	}
	if got != want {
		return fmt.Errorf("on %s: the extension's state is %s, want %s", DetailsURL, got, want)
	}
	return nil
}
