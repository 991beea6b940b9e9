package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/extdir"
)

// TestExtensionInstall walks the user's path: a first install says how to
// load the folder, a second one says nothing needs reloading, an update
// says to press reload, and doctor tells a stale folder apart.
func TestExtensionInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	want := filepath.Join(dir, "extension")

	code, out, errOut := runCLI(t, "extension", "install", "--state-dir", dir)
	if code != 0 {
		t.Fatalf("first install: exit %d, stderr %q", code, errOut)
	}
	for _, s := range []string{"Wrote the gasoline extension", want, "Load unpacked", "gasoline pair"} {
		if !strings.Contains(out, s) {
			t.Errorf("first install output lacks %q:\n%s", s, out)
		}
	}
	if _, err := os.Stat(filepath.Join(want, "manifest.json")); err != nil {
		t.Fatalf("no manifest in %s: %v", want, err)
	}

	code, out, _ = runCLI(t, "extension", "install", "--state-dir", dir)
	if code != 0 || !strings.Contains(out, "nothing to reload") {
		t.Fatalf("second install: exit %d, output:\n%s\nwant 'nothing to reload'", code, out)
	}

	code, out, _ = runCLI(t, "extension", "path", "--state-dir", dir)
	if code != 0 || strings.TrimSpace(out) != want {
		t.Fatalf("path: exit %d, got %q, want %q", code, out, want)
	}

	// An older gasoline wrote the folder: its files differ.
	os.WriteFile(filepath.Join(want, "popup.js"), []byte("// old\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"version":"0.0.9","sha256":"00"}`), 0o600)
	_, out, _ = runCLI(t, "doctor", "--state-dir", dir, "--port", "1")
	if !strings.Contains(out, "problem  ext folder") || !strings.Contains(out, "gasoline 0.0.9") {
		t.Errorf("doctor does not name the stale folder:\n%s", out)
	}
	code, out, _ = runCLI(t, "extension", "install", "--state-dir", dir)
	if code != 0 || !strings.Contains(out, "Updated") || !strings.Contains(out, "was 0.0.9") || !strings.Contains(out, "reload") {
		t.Fatalf("update: exit %d, output:\n%s", code, out)
	}
	_, out, _ = runCLI(t, "doctor", "--state-dir", dir, "--port", "1")
	if !strings.Contains(out, "ok       ext folder") {
		t.Errorf("doctor after the update:\n%s", out)
	}
	if s, ok := extdir.Installed(dir); !ok || s.Version == "0.0.9" {
		t.Errorf("stamp after update: %+v %v", s, ok)
	}
}

func TestLoadHintNamesTheFolder(t *testing.T) {
	dir := t.TempDir()
	if h := loadHint(dir); !strings.Contains(h, "gasoline extension install") {
		t.Errorf("without a folder: %q, want the install command", h)
	}
	if _, err := extdir.Install(dir, "1"); err != nil {
		t.Fatal(err)
	}
	if h := loadHint(dir); !strings.Contains(h, extdir.Dir(dir)) {
		t.Errorf("with a folder: %q, want %s", h, extdir.Dir(dir))
	}
}
