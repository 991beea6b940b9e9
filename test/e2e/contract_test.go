//go:build unix

package e2e

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestContractArguments checks the one argument contract end to end: an
// argument the daemon declares reaches the page (get_text's max_chars cuts
// the text, and the cut says how to read more, truthfully), and arguments it
// does not declare, or out of their bounds, or a URL its rule refuses, are
// refused before anything reaches the browser.
func TestContractArguments(t *testing.T) {
	e := ready(t)
	e.open("/hands/login.html")

	short := e.ok("get_text", map[string]any{"selector": "body", "max_chars": 20})
	text, _ := short["text"].(string)
	cut, _ := short["truncated"].(string)
	if utf8.RuneCountInString(text) > 20 || !strings.Contains(cut, "raise max_chars") {
		t.Errorf("get_text max_chars 20: text %q (%d chars), truncated %q; want at most 20 chars and a way to read more", text, utf8.RuneCountInString(text), cut)
	}
	whole := e.ok("get_text", map[string]any{"selector": "body", "max_chars": 40000})
	if w, _ := whole["text"].(string); whole["truncated"] != nil || len(w) <= len(text) || !strings.HasPrefix(w, text) {
		t.Errorf("get_text max_chars 40000: %v, want the whole text, starting %q", whole, text)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "get_text", "selector": "body", "max_char": 20}, `unknown argument "max_char" for get_text; allowed: action, target,`},
		{map[string]any{"action": "type", "selector": "#email", "text": "a", "delay_ms": 50}, `unknown argument "delay_ms" for type`},
		{map[string]any{"action": "click", "text": "Clicked 0 times", "click_count": 4}, "click_count 4 is out of range"},
		{map[string]any{"action": "get_text", "max_chars": 40001}, "max_chars 40001 is out of range"},
		{map[string]any{"action": "navigate", "url": "data:text/html,<p>hi</p>"}, "unsupported url"},
		{map[string]any{"action": "navigate", "url": "chrome://settings"}, "unsupported url"},
	} {
		r, err := e.mcp.Call(e.ctx, "interact", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsError || r.ToolError == nil || r.ToolError.Code != "invalid_arguments" || !strings.Contains(r.ToolError.Message, tc.want) || r.ToolError.Hint == "" {
			t.Errorf("interact %v: got %s, want invalid_arguments saying %q, with a hint", tc.args, r, tc.want)
		}
	}
	if got := e.pageText("h1", nil); got != "Sign in" {
		t.Errorf("after the refused calls the page shows %q, want it untouched (Sign in)", got)
	}
}
