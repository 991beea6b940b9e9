//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// TestHandsClickAt: an agent clicks points of a canvas, where no element
// can be targeted, and a button by its coordinates (as read off a
// screenshot); the page gets a click's whole sequence at each point, and
// the result says what was there. A point outside the viewport fails,
// saying how large the viewport is.
func TestHandsClickAt(t *testing.T) {
	e := ready(t)
	e.open("/hands/canvas.html")
	handsClickAt(t, e)
}

// handsClickAt is TestHandsClickAt's part after the page is open, in either browser.
func handsClickAt(t *testing.T, e *env) {
	t.Helper()
	for _, p := range [][2]int{{150, 100}, {20, 280}} {
		r := e.ok("click_at", map[string]any{"x": p[0], "y": p[1]})
		el, _ := r["element"].(map[string]any)
		if r["x"] != float64(p[0]) || r["y"] != float64(p[1]) || el["name"] != "Board" {
			t.Errorf("click_at %v: %v, want the point and the canvas named Board", p, r)
		}
	}
	r := e.ok("click_at", map[string]any{"x": 550, "y": 70})
	if el, _ := r["element"].(map[string]any); el["role"] != "button" || el["name"] != "Save" {
		t.Errorf("click_at on the button: %v, want the button Save", r)
	}
	want := "dot 150,100 after pointerdown mousedown pointerup mouseup click\ndot 20,280 after pointerdown mousedown pointerup mouseup click\nsaved"
	if got := strings.TrimSpace(e.pageText("#log", nil)); got != want {
		t.Errorf("the page logged %q, want %q", got, want)
	}
	msg := e.fails("click_at", map[string]any{"x": 5000, "y": 10}, "bad_target")
	if !strings.Contains(msg, "outside the viewport") {
		t.Errorf("a point outside the viewport: %q, want it to say so", msg)
	}
}
