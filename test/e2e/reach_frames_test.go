//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
)

// TestReachWorkerStartSparesFrames: a worker start (Chrome stops an idle
// worker every ~30 s and starts it again on the next event) looks for top
// documents lacking the content scripts (tabs/reach.js), and the new
// worker's first command to a tab looks at every frame of it (while an
// agent works, iframes that loaded idle get the scripts then): both must
// find none lacking in a page loaded while the agent worked, iframes
// included. An iframe sees no gasoline:* event on its window after its own
// script ran (a second start-main.js would send its MessagePorts where the
// page can take them) and its console.log is captured exactly once (not
// once per layer of wrapping).
func TestReachWorkerStartSparesFrames(t *testing.T) {
	e := ready(t)
	p := e.agentOpens(e.site.URL + "/hands/reach-frames.html") // its iframe gets the scripts from Chrome at document_start
	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Reach frames" {
		t.Fatalf("execute_js read %q, want the fixture's title", got)
	}
	tab := map[string]any{"tab_id": js.TabID} // the revive tab is active later
	frameID := p.innerFrameID()

	// The revived worker's look at the tab runs its probes in the iframe's
	// isolated world: the debugger sees those scripts compiled there.
	events, cancel := e.cdp.Subscribe(p.s.ID, 4096)
	defer cancel()
	if err := p.s.Call(e.ctx, "Debugger.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	defer p.s.Call(e.ctx, "Debugger.disable", nil, nil)
	// Scripts compiled so far (replayed by Debugger.enable) end at the marker.
	p.eval("1\n//# sourceURL=reach-frames-marker", nil)
	p.waitScript(events, func(s parsedScript) bool { return s.URL == "reach-frames-marker" })

	before, err := e.daemon.Health(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromium.StopAllWorkers(e.ctx, e.cdp); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		h, err := e.daemon.Health(e.ctx)
		if err == nil && (!h.Extension.Connected || h.Extension.Instance != before.Extension.Instance) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after stopAllWorkers the daemon still sees worker %s: %+v (%v)", before.Extension.Instance, h.Extension, err)
		}
	}
	e.openPage(e.site.URL + "/a?revive") // its content scripts wake the worker

	// The new worker's first command to the tab looks at its frames (the
	// worker is still at work: the deadline is in chrome.storage.session).
	complete(t, e.js("document.title", tab))
	// The MAIN-world probe of that look, in the iframe.
	p.waitScript(events, func(s parsedScript) bool {
		return s.frameID() == frameID && s.isolated() && strings.Contains(p.scriptSource(s.ScriptID), "connected()")
	})

	var seen []string
	p.eval(`document.getElementById("inner").contentWindow.seen`, &seen)
	if len(seen) != 0 {
		t.Errorf("after the worker restarted the iframe saw %v on its window, want no gasoline:* event", seen)
	}

	const line = "reach-frames inner log"
	p.eval(fmt.Sprintf(`document.getElementById("inner").contentWindow.eval(%q)`, fmt.Sprintf("console.log(%q); true", line)), nil)
	complete(t, e.js("document.title", tab)) // a result goes after its tab's capture
	o := e.observeUntil(map[string]any{"what": "logs"}, 10*time.Second, func(o observed) error {
		if !strings.Contains(o.Raw, line) {
			return fmt.Errorf("the iframe's console.log is not captured yet")
		}
		return nil
	})
	n := len(where(o.Entries, func(v ev) bool { return strings.Contains(v.str("message"), line) }))
	if n != 1 {
		t.Errorf("the iframe's console.log was captured %d times, want once:\n%s", n, o.Raw)
	}
}

// innerFrameID returns the DevTools id of the page's first iframe.
func (p *page) innerFrameID() string {
	p.e.t.Helper()
	var tree struct {
		FrameTree struct {
			ChildFrames []struct {
				Frame struct {
					ID string `json:"id"`
				} `json:"frame"`
			} `json:"childFrames"`
		} `json:"frameTree"`
	}
	if err := p.s.Call(p.e.ctx, "Page.getFrameTree", nil, &tree); err != nil {
		p.e.t.Fatal(err)
	}
	if len(tree.FrameTree.ChildFrames) == 0 {
		p.e.t.Fatal("the page has no iframe")
	}
	return tree.FrameTree.ChildFrames[0].Frame.ID
}

// parsedScript is a Debugger.scriptParsed event.
type parsedScript struct {
	ScriptID string `json:"scriptId"`
	URL      string `json:"url"`
	Aux      struct {
		FrameID string `json:"frameId"`
		Type    string `json:"type"`
	} `json:"executionContextAuxData"`
}

func (s parsedScript) frameID() string { return s.Aux.FrameID }
func (s parsedScript) isolated() bool  { return s.Aux.Type == "isolated" }

// waitScript reads Debugger.scriptParsed events until match accepts one.
func (p *page) waitScript(events <-chan cdp.Event, match func(parsedScript) bool) {
	p.e.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				p.e.t.Fatal("the DevTools connection ended")
			}
			if ev.Method != "Debugger.scriptParsed" {
				continue
			}
			var s parsedScript
			if err := json.Unmarshal(ev.Params, &s); err != nil {
				p.e.t.Fatal(err)
			}
			if match(s) {
				return
			}
		case <-timeout:
			p.e.t.Fatal("no matching script compiled in the page within 30 s")
		}
	}
}

// scriptSource returns the source of a script the debugger reported.
func (p *page) scriptSource(id string) string {
	p.e.t.Helper()
	var r struct {
		ScriptSource string `json:"scriptSource"`
	}
	if err := p.s.Call(p.e.ctx, "Debugger.getScriptSource", map[string]any{"scriptId": id}, &r); err != nil {
		p.e.t.Fatal(err)
	}
	return r.ScriptSource
}
