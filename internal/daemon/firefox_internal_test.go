package daemon

import (
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// TestFirefoxPinFile: the origin a pairing pinned is read back as saved
// (a restart keeps it), and a missing file pins nothing.
func TestFirefoxPinFile(t *testing.T) {
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := readFirefoxPin(dir); got != "" {
		t.Errorf("no file: got %q, want none", got)
	}
	const origin = "moz-extension://1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d"
	if err := dir.WriteFile(firefoxPinFile, []byte(origin+"\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFirefoxPin(dir); got != origin {
		t.Errorf("got %q, want %q", got, origin)
	}
}
