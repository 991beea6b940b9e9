package e2e

import (
	"testing"
)

// TestClickWaitsOutAnimation: a click waits for a frame to see its target
// stay put only while an animation runs on it (issue 33: that frame was
// about 9 ms of every click). A button sliding in through a CSS transition
// is clicked once it has arrived, not on its way; a still button at once.
func TestClickWaitsOutAnimation(t *testing.T) {
	e := ready(t)
	e.open("/hands/sliding.html")
	for range 3 {
		e.ok("click", map[string]any{"selector": "#count"})
	}
	e.ok("click", map[string]any{"role": "button", "name": "Menu"})
	e.ok("click", map[string]any{"role": "button", "name": "Settings"})
	if got := e.pageText("#seen", nil); got != "clicked at left 30, 0 running" {
		t.Errorf("the sliding button was clicked as %q, want where it comes to rest (left 30) with its transition over", got)
	}
	if got := e.ok("execute_js", map[string]any{"script": "document.getElementById('count').dataset.n"})["value"]; got != "3" {
		t.Errorf("the still button was clicked %v times, want 3", got)
	}
}
