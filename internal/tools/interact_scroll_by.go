package tools

import "github.com/gasoline-mcp/gasoline/internal/mcp"

// scroll_by scrolls the page, or the element target names, by pixels: to
// bring an infinite or virtualized list's next rows. Its page verb is
// extension/actions/verbs/scroll_by.js.
var _ = addPageAction(func() action {
	return dom[scrollByArgs]("scroll_by", "", false)
})

// scrollByArgs are how far to scroll, in CSS pixels (negative: up or
// left), and what: the page, or the element target names.
type scrollByArgs struct {
	DX         float64 `json:"dx,omitempty"`
	DY         float64 `json:"dy,omitempty"`
	targetArgs `list:"target?"`
	settleArgs `list:"-"`
}

func (a scrollByArgs) check() error {
	if a.DX == 0 && a.DY == 0 {
		return mcp.Errorf("invalid_arguments", "e.g. dy:800 scrolls down 800 px, dy:-800 back up", "scroll_by needs dx or dy, not both 0")
	}
	return a.checkTarget("scroll_by", true, false)
}
