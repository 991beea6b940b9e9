package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScrollByArgs: scroll_by takes a distance and, optionally, the
// element that scrolls; the extension gets it through the generic path.
func TestScrollByArgs(t *testing.T) {
	a := domAction(t, "scroll_by")
	if a.page == nil || a.page.own || a.page.Target != targetOptional || a.page.File != "actions/verbs/scroll_by.js" || a.Idempotent {
		t.Fatalf("scroll_by declared as %+v (idempotent %v), want a page verb file with an optional target, not idempotent", a.page, a.Idempotent)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"dy":800}`, ""},
		{`{"dx":-120.5,"target":"#grid"}`, ""},
		{`{"dy":300,"role":"list","name":"Results","frame":"iframe"}`, ""},
		{`{}`, "needs dx or dy"},
		{`{"dx":0,"dy":0}`, "needs dx or dy"},
		{`{"dy":1,"target":"#a","selector":"#b"}`, "more than one target"},
		{`{"dy":1,"ref":"#a"}`, "is not a ref"},
	} {
		err := checkArgs(a, json.RawMessage(tt.args))
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: got %v, want %q", tt.args, err, tt.want)
		}
	}
}
