//go:build unix

package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// worlds is what the extension's isolated world holds in one frame.
type worlds struct {
	Frame   int    `json:"frame"`
	Runtime string `json:"runtime"` // typeof gasolineRuntime: "object" once the DOM runtime came
	Core    string `json:"core"`    // typeof gasolineCore
	Relay   bool   `json:"relay"`   // the capture relay (declared, document_start)
	Channel string `json:"channel"` // typeof gasolineChannel (declared, document_start)
}

// isolatedWorlds reports, for every frame of the tab showing url, what the
// extension's isolated world holds, asked from an extension page with
// chrome.scripting (the frame ids are Chrome's; 0 is the top document).
func (e *env) isolatedWorlds(url string) map[int]worlds {
	e.t.Helper()
	p, err := chromium.OpenPopup(e.ctx, e.cdp)
	if err != nil {
		e.t.Fatal(err)
	}
	defer p.Close(e.ctx)
	var got []worlds
	expr := fmt.Sprintf(`(async () => {
		const [tab] = await chrome.tabs.query({ url: %q });
		const rs = await chrome.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, func: () => ({
			runtime: typeof globalThis.gasolineRuntime, core: typeof globalThis.gasolineCore,
			relay: typeof globalThis.gasolineRelay === "function", channel: typeof globalThis.gasolineChannel }) });
		return rs.map((r) => ({ frame: r.frameId, ...r.result }));
	})()`, url)
	if err := p.Eval(e.ctx, expr, &got); err != nil {
		e.t.Fatal(err)
	}
	out := map[int]worlds{}
	for _, w := range got {
		out[w.Frame] = w
	}
	return out
}

// TestHandsFirstUse: a page the agent never acted on has only the declared
// scripts (the capture relay and the dialog channel) in the extension's
// isolated world of every frame, no DOM runtime; the first action in the
// top document brings the runtime there only, the first in the iframe
// (and in a srcdoc iframe) brings it there; two first actions at once in a
// fresh page both work.
func TestHandsFirstUse(t *testing.T) {
	e := ready(t)
	url := e.site.URL + "/hands/widgets.html"
	e.open("/hands/widgets.html")

	before := e.isolatedWorlds(url)
	if len(before) < 2 {
		t.Fatalf("frames of %s: %+v, want the top document and its iframe", url, before)
	}
	for id, w := range before {
		if w.Runtime != "undefined" || w.Core != "undefined" || !w.Relay || w.Channel != "object" {
			t.Errorf("frame %d before any action: %+v, want the relay and the channel, no runtime and no core", id, w)
		}
	}

	e.ok("click", map[string]any{"text": "Accept cookies"})
	after := e.isolatedWorlds(url)
	for id, w := range after {
		want := "undefined"
		if id == 0 {
			want = "object"
		}
		if w.Runtime != want {
			t.Errorf("frame %d after the first click in the top document: runtime %q, want %q", id, w.Runtime, want)
		}
	}

	e.ok("click", map[string]any{"frame": "iframe[name=inner]", "selector": "#inner"})
	if got := e.pageText("#frame-log", map[string]any{"frame": "iframe[name=inner]"}); got != "inner clicked;" {
		t.Errorf("the iframe's log after its first click: %q, want \"inner clicked;\"", got)
	}
	for id, w := range e.isolatedWorlds(url) {
		if w.Runtime != "object" || w.Core != "object" {
			t.Errorf("frame %d after the first click in the iframe: %+v, want the runtime everywhere", id, w)
		}
	}

	// An inline (srcdoc) iframe, an about: document of the page's origin,
	// gets the runtime on its first action too.
	e.open("/hands/light.html")
	e.ok("click", map[string]any{"frame": "iframe#doc", "selector": "#inline"})
	if got := e.pageText("#inline", map[string]any{"frame": "iframe#doc"}); got != "Inline clicked" {
		t.Errorf("the srcdoc iframe's button after its first click: %q, want \"Inline clicked\"", got)
	}

	// Two first actions at once in a fresh document: both answered.
	fresh := e.site.URL + "/hands/frame.html"
	e.open("/hands/frame.html")
	var wg sync.WaitGroup
	results := make([]gasoline.Result, 2)
	errs := make([]error, 2)
	for i, sel := range []string{"#inner", "#frame-input"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = e.mcp.Call(e.ctx, "interact", map[string]any{"action": "query", "selector": sel, "wait_ms": 20000})
		}()
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if r.IsError || r.Status != "complete" || !strings.Contains(string(r.Value), `"count":1`) {
			t.Errorf("concurrent first query %d: %s, want complete with one match", i, r)
		}
	}
	if w := e.isolatedWorlds(fresh)[0]; w.Runtime != "object" {
		t.Errorf("the fresh page after its first queries: %+v, want the runtime", w)
	}
}

// TestFirstActionLatency measures what bringing the DOM runtime on first use
// costs an agent: the time of interact query on a page no agent acted on
// (fresh: the runtime is injected first) and right after on the same page
// (warm), over GASOLINE_MEASURE pages, and logs both medians. A measurement,
// not a check: it runs only when GASOLINE_MEASURE is set (a page count).
//
//	cd test/e2e && GASOLINE_MEASURE=20 go test -count=1 -v -run TestFirstActionLatency ./...
func TestFirstActionLatency(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GASOLINE_MEASURE"))
	if n <= 0 {
		t.Skip("a measurement: set GASOLINE_MEASURE to the number of pages")
	}
	e := ready(t)
	var fresh, warm []time.Duration
	for i := 0; i < n; i++ {
		e.open(fmt.Sprintf("/hands/widgets.html?run=%d", i))
		for _, into := range []*[]time.Duration{&fresh, &warm} {
			r, took := e.timed(map[string]any{"action": "query", "selector": "#start"})
			if r.Status != "complete" {
				t.Fatalf("query: %s", r)
			}
			*into = append(*into, took)
		}
		e.call("interact", map[string]any{"action": "close_tab", "wait_ms": 20000})
	}
	median := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	t.Logf("interact query over %d pages: first action on a fresh page p50 %v (max %v), warm p50 %v (max %v)",
		n, median(fresh), slices.Max(fresh), median(warm), slices.Max(warm))
}
