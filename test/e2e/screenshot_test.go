package e2e

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

// TestScreenshotReused takes a viewport screenshot twice: the second is
// served from the first capture (the page did not change) and says so;
// after the page changes, or scrolls, the next one is captured again.
func TestScreenshotReused(t *testing.T) {
	e := ready(t)
	e.open("/hands/quiet.html")

	first, r1, _ := e.shot(nil)
	if r1["reused"] != nil {
		t.Fatalf("first screenshot of the page: %v, want a fresh capture", r1)
	}
	second, r2, _ := e.shot(nil)
	if r2["reused"] != true || r2["waited_ms"] != nil {
		t.Errorf("second screenshot of the unchanged page: %v, want reused and no wait", r2)
	}
	if age, _ := r2["age_ms"].(float64); age <= 0 || age > 10000 {
		t.Errorf("reused age_ms %v, want the first capture's age", r2["age_ms"])
	}
	if first.Bounds() != second.Bounds() {
		t.Errorf("reused image %v, want the first's %v", second.Bounds(), first.Bounds())
	}

	// A DOM change, then a scroll: each makes the next screenshot a new capture.
	for _, change := range []string{
		`document.querySelector('h1').textContent = 'Changed'; true`,
		`document.body.style.height = '5000px'; scrollTo(0, 300); true`,
	} {
		if r := e.js(change, nil); r.Status != "complete" {
			t.Fatalf("changing the page: %s", r)
		}
		_, r3, _ := e.shot(nil)
		if r3["reused"] != nil {
			t.Errorf("screenshot after %q: %v, want a fresh capture", change, r3)
		}
	}
	if _, r4, _ := e.shot(nil); r4["reused"] != true {
		t.Errorf("screenshot of the page unchanged since the last: %v, want reused", r4)
	}
}

// TestScreenshotWaited asks for three screenshots at once of a page with a
// canvas (which can change without the DOM knowing, so a capture of it is
// never served again): Chrome allows two captures a second, so a later one
// waits and says how long.
func TestScreenshotWaited(t *testing.T) {
	e := ready(t)
	e.open("/hands/quiet.html")
	if r := e.js(`document.body.append(document.createElement('canvas')); true`, nil); r.Status != "complete" {
		t.Fatalf("adding a canvas: %s", r)
	}
	results := make([]map[string]any, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			r, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "screenshot", "wait_ms": 20000})
			if err != nil || r.Status != "complete" {
				t.Errorf("screenshot %d: %s %v, want complete", i, r, err)
				return
			}
			var v struct {
				Result map[string]any `json:"result"`
			}
			if err := json.Unmarshal(r.Raw, &v); err != nil {
				t.Errorf("screenshot %d: %v", i, err)
			}
			results[i] = v.Result
		})
	}
	wg.Wait()
	waited := 0
	for i, r := range results {
		if r == nil {
			continue
		}
		if r["reused"] != nil {
			t.Errorf("screenshot %d of a page with a canvas: %v, want a fresh capture", i, r)
		}
		if w, ok := r["waited_ms"].(float64); ok {
			// Two of Chrome's capture gaps (600 ms each), and room for a busy
			// machine's timers: CI's headed pass once measured 1201 ms.
			if w <= 0 || w > 1200+500 {
				t.Errorf("screenshot %d waited_ms %v, want within two capture gaps (1.2 s) and a busy machine's slack (0.5 s)", i, w)
			}
			waited++
		}
	}
	if waited == 0 {
		t.Errorf("three screenshots at once: %s, want at least one that waited for Chrome's capture quota", fmt.Sprint(results))
	}
}
