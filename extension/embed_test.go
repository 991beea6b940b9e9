package extension

import (
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// leftOut are the top-level entries of extension/ that are not part of the
// extension Chrome loads.
var leftOut = map[string]bool{"test": true, "README.md": true, "embed.go": true, "embed_test.go": true, "firefox.go": true}

// TestFilesHasEveryEntry fails when a file or folder is added to extension/
// but not to the go:embed line, so an installed extension never lacks it.
func TestFilesHasEveryEntry(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if leftOut[name] || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, err := fs.Stat(Files, name); err != nil {
			t.Errorf("extension/%s is not embedded: add it to the go:embed line in embed.go (or to leftOut in embed_test.go if Chrome does not need it)", name)
		}
	}
	for name := range leftOut {
		if _, err := fs.Stat(Files, name); err == nil {
			t.Errorf("extension/%s is embedded but should be left out", name)
		}
	}
}

// TestFilesHasWhatTheManifestNames checks that the files the manifest names
// are embedded.
func TestFilesHasWhatTheManifestNames(t *testing.T) {
	raw, err := fs.ReadFile(Files, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Background struct {
			ServiceWorker string `json:"service_worker"`
		} `json:"background"`
		Action struct {
			DefaultPopup string `json:"default_popup"`
		} `json:"action"`
		Icons map[string]string `json:"icons"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	names := []string{m.Background.ServiceWorker, m.Action.DefaultPopup}
	for _, p := range m.Icons {
		names = append(names, p)
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if _, err := fs.Stat(Files, n); err != nil {
			t.Errorf("the manifest names %s, which is not embedded", n)
		}
	}
}
