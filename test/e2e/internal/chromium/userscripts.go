package chromium

import (
	"context"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
)

// DetailsURL is the extension's details page, where the user allows user
// scripts for it.
const DetailsURL = "chrome://extensions/?id=" + ExtensionID

// SetUserScriptsAccess switches the extension's "Allow User Scripts" toggle
// as the user would on its details page: it opens DetailsURL in a tab, calls
// the page's own chrome.developerPrivate.updateExtensionConfiguration (what
// the toggle calls; Chromium offers no command-line switch for it), checks
// the page reports the new state, closes the tab, and waits until
// chrome.userScripts calls in the extension's service worker succeed (or
// fail). It attaches to the worker only for that wait.
func SetUserScriptsAccess(ctx context.Context, c *cdp.Conn, allowed bool) error {
	id, err := c.CreateTarget(ctx, DetailsURL)
	if err != nil {
		return fmt.Errorf("opening %s: %w", DetailsURL, err)
	}
	defer closeAndWait(context.WithoutCancel(ctx), c, id)
	s, err := c.Attach(ctx, id)
	if err != nil {
		return fmt.Errorf("attaching to %s: %w", DetailsURL, err)
	}
	err = poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for chrome.developerPrivate on "+DetailsURL, func(ctx context.Context) (bool, error) {
		var ok bool
		err := s.Evaluate(ctx, `typeof chrome === "object" && typeof chrome.developerPrivate?.updateExtensionConfiguration === "function"`, &ok)
		return ok, err
	})
	if err != nil {
		return err
	}
	var active bool
	expr := fmt.Sprintf(`(async () => {
		await chrome.developerPrivate.updateExtensionConfiguration({extensionId: %q, userScriptsAccess: %t});
		return (await chrome.developerPrivate.getExtensionInfo(%q)).userScriptsAccess.isActive;
	})()`, ExtensionID, allowed, ExtensionID)
	if err := s.Evaluate(ctx, expr, &active); err != nil {
		return fmt.Errorf("switching user scripts to %t: %w", allowed, err)
	}
	if active != allowed {
		return fmt.Errorf("after switching user scripts to %t the details page says userScriptsAccess.isActive %t", allowed, active)
	}

	w, err := WaitForWorker(ctx, c, 20*time.Second)
	if err != nil {
		return err
	}
	ws, err := c.Attach(ctx, w.TargetID)
	if err != nil {
		return fmt.Errorf("attaching to the worker: %w", err)
	}
	defer ws.Detach(context.WithoutCancel(ctx))
	// A live worker keeps its chrome.userScripts object when the toggle goes
	// off; its calls then fail ("not available in this context").
	want := fmt.Sprintf(`(async () => {
		try { await chrome.userScripts.getWorldConfigurations(); return true; } catch { return false; }
	})().then((on) => on === %t)`, allowed)
	return poll(ctx, 15*time.Second, 50*time.Millisecond, fmt.Sprintf("waiting for the worker to see user scripts allowed=%t", allowed), func(ctx context.Context) (bool, error) {
		var ok bool
		err := ws.Evaluate(ctx, want, &ok)
		return ok, err
	})
}

// closeAndWait closes a tab and waits until the browser no longer lists it
// (Target.closeTarget returns before the tab is gone).
func closeAndWait(ctx context.Context, c *cdp.Conn, targetID string) error {
	if err := c.CloseTarget(ctx, targetID); err != nil {
		return err
	}
	return poll(ctx, 15*time.Second, 20*time.Millisecond, "waiting for a tab to close", func(ctx context.Context) (bool, error) {
		ts, err := c.Targets(ctx)
		if err != nil {
			return false, err
		}
		for _, t := range ts {
			if t.TargetID == targetID {
				return false, nil
			}
		}
		return true, nil
	})
}
