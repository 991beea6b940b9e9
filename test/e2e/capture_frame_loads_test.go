package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCaptureFrameLoads: every document's load is recorded once, with its
// frame: the top document's and a srcdoc frame's by their page scripts, a
// web subframe's by the worker from Chrome's commit (capture/worker.js), so
// that frame sends nothing before it has something of its own to say.
func TestCaptureFrameLoads(t *testing.T) {
	c := captureReady(t)
	top := c.site.URL + "/capture/frame-loads.html"
	web := c.site.URL + "/capture/frame-login.html"
	// The agent opens the page: its iframes are captured from their start
	// (while no agent works, top documents only).
	c.agentOpens(top)
	loads := func(o observed) map[string][]ev {
		out := map[string][]ev{}
		for _, e := range o.Entries {
			if e.str("type") == "load" { // observe actions: a nav entry has no kind
				out[e.str("to")] = append(out[e.str("to")], e)
			}
		}
		return out
	}
	o := c.observeUntil(map[string]any{"what": "actions", "tabs": "all", "limit": 100}, 20*time.Second, func(o observed) error {
		got := loads(o)
		for _, u := range []string{top, web, "about:srcdoc"} {
			if len(got[u]) == 0 {
				return fmt.Errorf("no load of %s yet", u)
			}
		}
		return nil
	})
	got := loads(o)
	for u, wantTop := range map[string]bool{top: true, web: false, "about:srcdoc": false} {
		if len(got[u]) != 1 {
			t.Errorf("%d loads of %s, want 1:\n%s", len(got[u]), u, o.Raw)
			continue
		}
		e := got[u][0]
		if isTop := e.num("frame_id") == 0; isTop != wantTop {
			t.Errorf("the load of %s has frame_id %v, want the top frame %v", u, e["frame_id"], wantTop)
		}
		if e.str("page_url") != u && !strings.HasPrefix(u, "about:") {
			t.Errorf("the load of %s has page_url %q", u, e.str("page_url"))
		}
	}
}
