package tools

import (
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
)

// extensionSkew is what to tell an agent when the extension polling the
// daemon was not built with the daemon's contract (an unpacked extension
// Chrome kept running after gasoline was rebuilt): what is wrong and the
// step that fixes it; "" when it speaks the daemon's, or none polled.
func (t *Tools) extensionSkew() string {
	if t.d.Health == nil {
		return ""
	}
	e := t.d.Health().Extension
	if e.Skew == "" {
		return ""
	}
	return e.Skew + "; " + extcontract.Fix
}

// tabsView is observe tabs' answer: the tabs, and a version skew between
// the extension and the daemon when there is one.
type tabsView struct {
	capture.TabList
	Extension string `json:"extension,omitempty"`
}
