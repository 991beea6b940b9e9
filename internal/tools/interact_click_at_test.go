package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClickAtArgs: click_at takes a point of the viewport, nothing else
// names an element, and the extension gets it through the generic path.
func TestClickAtArgs(t *testing.T) {
	a := domAction(t, "click_at")
	if a.page == nil || a.page.own || a.page.Target != targetNone || a.page.File != "actions/verbs/click_at.js" || a.Idempotent {
		t.Fatalf("click_at declared as %+v (idempotent %v), want a page verb file without target, not idempotent", a.page, a.Idempotent)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"x":10,"y":20.5}`, ""},
		{`{"x":0,"y":0,"frame":"iframe#map","dialog":"accept"}`, ""},
		{`{"x":10}`, `"y" is required`},
		{`{"x":-1,"y":5}`, "x"},
		{`{"x":"10","y":5}`, `argument "x" must be of type float64`},
		{`{"x":1,"y":1,"target":"#map"}`, "target"},
	} {
		err := checkArgs(a, json.RawMessage(tt.args))
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: got %v, want %q", tt.args, err, tt.want)
		}
	}
}
