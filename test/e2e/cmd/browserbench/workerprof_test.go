//go:build unix

package main

import (
	"testing"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/v8prof"
)

// TestWorkerLabel: the worker's own functions by file, name and line, V8's
// root buckets by themselves, and a builtin (fetch, a chrome.storage
// binding) left to the function that called it.
func TestWorkerLabel(t *testing.T) {
	for _, c := range []struct {
		frame v8prof.CallFrame
		want  string
	}{
		{v8prof.CallFrame{FunctionName: "#request", URL: "chrome-extension://abc/daemon.js", LineNumber: 230}, "daemon.js #request:231"},
		{v8prof.CallFrame{URL: "chrome-extension://abc/actions/dom.js", LineNumber: 9}, "actions/dom.js (top level):10"},
		{v8prof.CallFrame{FunctionName: "(program)"}, "(program)"},
		{v8prof.CallFrame{FunctionName: "(root)"}, ""},
		{v8prof.CallFrame{FunctionName: "fetch"}, ""},
	} {
		if got := workerLabel(c.frame); got != c.want {
			t.Errorf("workerLabel(%+v) = %q, want %q", c.frame, got, c.want)
		}
	}
}
