package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestExecuteJSCaptureAtOnce: what an agent's script did is readable the
// moment its result is: the top document's console lines and request, and
// a line its iframe logged, each stamped with its own document, with no
// wait and no retry. The top document's capture is flushed in the script's
// own injection (issue 33); the iframe's as before, by its relay.
func TestExecuteJSCaptureAtOnce(t *testing.T) {
	c := captureReady(t)
	c.agentOpens(c.site.URL + "/capture/frames.html")
	for i := 0; i < 3; i++ {
		marker := fmt.Sprintf("at-once-%d", i)
		r := c.act("execute_js", map[string]any{"script": fmt.Sprintf(`
			console.log('%[1]s top');
			document.getElementById('f').contentWindow.console.log('%[1]s frame');
			const res = await fetch('/capture/blank.html?%[1]s');
			console.warn('%[1]s fetched', res.status);
			console.log('%[1]s last');
			return document.title`, marker)})
		if r.Status != "complete" || !strings.Contains(string(r.Value), "capture in an iframe") {
			t.Fatalf("execute_js: %s", r)
		}
		logs := c.observe(map[string]any{"what": "logs", "text": marker})

		byMessage := map[string]ev{}
		for _, e := range logs.Entries {
			byMessage[e.str("message")] = e
		}
		for msg, page := range map[string]string{
			marker + " top":         "/capture/frames.html",
			marker + " frame":       "/capture/frame-login.html",
			marker + " fetched 200": "/capture/frames.html",
			marker + " last":        "/capture/frames.html",
		} {
			e, ok := byMessage[msg]
			if !ok {
				t.Fatalf("run %d: observe logs right after the result lacks %q:\n%s", i, msg, logs.Raw)
			}
			// observe gives a page_url where it changes from the entry before.
			top := page == "/capture/frames.html"
			if (e.num("frame_id") == 0) != top {
				t.Errorf("run %d: %q has frame_id %v, want the top document's to have none and the iframe's its own", i, msg, e.num("frame_id"))
			}
			if u := e.str("page_url"); (u != "" || !top) && !strings.HasSuffix(u, page) {
				t.Errorf("run %d: %q stamped with page %q, want …%s:\n%s", i, msg, e.str("page_url"), page, logs.Raw)
			}
		}
		net := c.observe(map[string]any{"what": "network", "limit": 100})
		if !strings.Contains(net.Raw, "blank.html?"+marker) {
			t.Fatalf("run %d: observe network right after the result lacks the script's fetch:\n%s", i, net.Raw)
		}
	}
}
