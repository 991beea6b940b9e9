package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCaptureInIframe: the capture installs whole in an iframe (a const
// read before its declaration once stopped it half-way there, and each
// iframe reported that ReferenceError as the page's own error): a password
// typed in the frame is redacted from what the frame's script logs, and no
// error comes from the capture script.
func TestCaptureInIframe(t *testing.T) {
	c := captureReady(t)
	// The agent opens the page: its iframes are captured from their start
	// (while no agent works, top documents only).
	p := c.agentOpens(c.site.URL + "/capture/frames.html")
	c.observeUntil(map[string]any{"what": "logs", "text": "frame loaded"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("the iframe's load-time log is not in yet")
		}
		return nil
	})
	var box struct{ X, Y float64 }
	p.eval(`(() => { const r = document.getElementById('f').contentDocument.getElementById('pw').getBoundingClientRect();
		return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
	if err := p.s.Click(p.e.ctx, box.X, box.Y); err != nil {
		t.Fatal(err)
	}
	if err := p.s.InsertText(p.e.ctx, fixturePassword); err != nil {
		t.Fatal(err)
	}
	logs := c.observeUntil(map[string]any{"what": "logs", "text": "frame typed"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("the iframe's log of the typed password is not in yet")
		}
		return nil
	})
	if got := logs.Entries[0].str("message"); got != "frame typed [redacted]" {
		t.Errorf("the iframe's log: %q, want %q", got, "frame typed [redacted]")
	}
	if strings.Contains(logs.Raw, fixturePassword) {
		t.Errorf("the password typed in the iframe reached observe:\n%s", logs.Raw)
	}
	errs := c.observe(map[string]any{"what": "errors"})
	for _, e := range errs.Entries {
		if strings.Contains(e.str("message"), "ReferenceError") || strings.Contains(e.str("source"), "gasoline-capture") {
			t.Errorf("an error from the capture script itself: %v", e)
		}
	}
}
