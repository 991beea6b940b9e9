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
	typeInFrame(p, fixturePassword)
	logs := c.observeUntil(map[string]any{"what": "logs", "text": "frame typed"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			// The field holds the password (typeInFrame), so the frame's
			// input handler ran and logged it: the capture lost it.
			return fmt.Errorf("the iframe's log of the typed password is not in, though its field holds what was typed; every log of the tab:\n%s",
				c.observe(map[string]any{"what": "logs", "limit": 100}).Raw)
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

// typeInFrame clicks the password field of frames.html's iframe and types
// text there as the user does, until the field holds it: CI once
// showed no "frame typed" log at all, which a click or an insertion the
// browser dropped (the tab is the agent's, in the background) explains as
// well as a capture that lost the log. The field's value tells them
// apart: the page logs on the input that completes it.
func typeInFrame(p *page, text string) {
	p.e.t.Helper()
	const field = `document.getElementById('f').contentDocument.getElementById('pw')`
	for attempt := 1; ; attempt++ {
		var box struct{ X, Y float64 }
		p.eval(`(() => { const r = `+field+`.getBoundingClientRect();
			return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
		if err := p.s.Click(p.e.ctx, box.X, box.Y); err != nil {
			p.e.t.Fatal(err)
		}
		if err := p.s.InsertText(p.e.ctx, text); err != nil {
			p.e.t.Fatal(err)
		}
		var value string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if p.eval(field+`.value`, &value); value == text {
				return
			}
		}
		if attempt == 3 {
			p.e.t.Fatalf("typed %q into the iframe's field three times; it holds %q", text, value)
		}
		// Never typed in: clear what part of it landed, and type again.
		p.e.t.Logf("attempt %d: the iframe's field holds %q after typing %q; typing again", attempt, value, text)
		p.eval(field+`.value = ""`, nil)
	}
}
