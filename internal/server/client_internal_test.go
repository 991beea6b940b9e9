package server

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestModernClientCutsOnARune: a long stateless client name is cut to
// maxClientKey bytes at a rune boundary, never inside a character.
func TestModernClientCutsOnARune(t *testing.T) {
	for _, name := range []string{
		strings.Repeat("a", 63) + "é" + "tail", // é spans bytes 63-64
		strings.Repeat("日", 30),                // 90 bytes, 3 per rune
		strings.Repeat("x", 64),
		"short",
	} {
		got := modernClient(name)
		key := strings.TrimPrefix(got, "agent-")
		if !utf8.ValidString(got) || len(key) > maxClientKey || !strings.HasPrefix(name, key) {
			t.Errorf("modernClient(%q) = %q: want a valid UTF-8 prefix of at most %d bytes", name, got, maxClientKey)
		}
		if len(name) <= maxClientKey && key != name {
			t.Errorf("modernClient(%q) = %q: a short name is kept whole", name, got)
		}
	}
}
