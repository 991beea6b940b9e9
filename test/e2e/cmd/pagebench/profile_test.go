//go:build unix

package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/v8prof"
)

// TestAttributeChargesTheInnermostScript: a page callback that our timer
// wrapper calls is the page's, a builtin is its caller's, and only the
// wrapper's own samples are the extension's.
func TestAttributeChargesTheInnermostScript(t *testing.T) {
	const ext = "chrome-extension://abc/capture/main/work.js"
	var p v8prof.Profile
	if err := json.Unmarshal([]byte(`{
		"nodes": [
			{"id": 1, "callFrame": {"functionName": "(root)"}, "children": [2, 3, 7]},
			{"id": 2, "callFrame": {"functionName": "(program)"}},
			{"id": 3, "callFrame": {"functionName": "args.<computed>", "url": "`+ext+`", "lineNumber": 9}, "children": [4, 6]},
			{"id": 4, "callFrame": {"functionName": "tick", "url": "http://127.0.0.1/page.js"}, "children": [5]},
			{"id": 5, "callFrame": {"functionName": "appendChild"}},
			{"id": 6, "callFrame": {"functionName": "apply"}},
			{"id": 7, "callFrame": {"functionName": "(garbage collector)"}}
		],
		"samples":    [2, 3, 4, 5, 6, 7, 2],
		"timeDeltas": [0, 100, 200, 300, 400, 500, 600]
	}`), &p); err != nil {
		t.Fatal(err)
	}
	got := attribute(p)
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	want := map[string]time.Duration{
		"(program)": us(100),
		"capture/main/work.js args.<computed>:10": us(200 + 500), // its own sample, and the builtin it called
		"page":                us(300 + 400), // the callback, and the builtin the callback called
		"(garbage collector)": us(600),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("labels %v, want %v", got, want)
	}
}
