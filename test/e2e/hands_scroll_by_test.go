//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// TestHandsScrollBy: an agent scrolls a virtualized list (only the rows
// in view exist) to reach rows that are not in the page yet, then the page
// itself; each result says where the scroll ended and whether it moved,
// and at_end once it can go no further.
func TestHandsScrollBy(t *testing.T) {
	e := ready(t)
	e.open("/hands/rows.html")
	handsScrollBy(t, e)
}

// handsScrollBy is TestHandsScrollBy's part after the page is open, in either browser.
func handsScrollBy(t *testing.T, e *env) {
	t.Helper()
	if got := e.ok("query", map[string]any{"target": map[string]any{"text": "Row 200"}})["count"]; got != float64(0) {
		t.Fatalf("Row 200 is in the page before scrolling (%v): the list is not virtualized", got)
	}
	r := e.ok("scroll_by", map[string]any{"dy": 6000, "target": "#list"})
	if r["scroll_y"] != float64(6000) || r["moved"] != true || r["at_end"] != nil {
		t.Errorf("scroll_by 6000 in the list: %v, want scroll_y 6000, moved", r)
	}
	if text := e.pageText("#list", nil); !strings.Contains(text, "Row 200") || strings.Contains(text, "Row 0\n") {
		t.Errorf("after scroll_by the list shows %q, want the rows from 200 on", text)
	}
	if got := complete(t, e.js("scrollY", nil)); string(got.Value) != "0" {
		t.Errorf("scrolling the list moved the page to %s", got.Value)
	}
	r = e.ok("scroll_by", map[string]any{"dy": 1e6, "target": "#list"})
	if r["moved"] != true || r["at_end"] != true {
		t.Errorf("scroll_by past the list's end: %v, want moved and at_end", r)
	}
	r = e.ok("scroll_by", map[string]any{"dy": 400})
	if r["scroll_y"] != float64(400) || r["moved"] != true {
		t.Errorf("scroll_by 400 on the page: %v, want scroll_y 400, moved", r)
	}
	r = e.ok("scroll_by", map[string]any{"dy": -1000})
	if r["scroll_y"] != float64(0) || r["moved"] != true || r["at_end"] != true {
		t.Errorf("scroll_by back past the top: %v, want scroll_y 0, moved, at_end", r)
	}
}
