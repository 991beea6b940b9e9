package extension

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// firefoxManifest is the subset of Firefox's manifest the test checks.
type firefoxManifest struct {
	Background map[string]any `json:"background"`
	Settings   struct {
		Gecko struct {
			ID         string `json:"id"`
			MinVersion string `json:"strict_min_version"`
		} `json:"gecko"`
	} `json:"browser_specific_settings"`
	Key                 *string          `json:"key"`
	MinimumChrome       *string          `json:"minimum_chrome_version"`
	Permissions         []string         `json:"permissions"`
	OptionalPermissions []string         `json:"optional_permissions"`
	Resources           []map[string]any `json:"web_accessible_resources"`
}

// TestFirefoxManifest checks what FirefoxManifest changes in the
// repository's manifest, and that it keeps the rest.
func TestFirefoxManifest(t *testing.T) {
	chrome, err := fs.ReadFile(Files, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := FirefoxManifest(chrome)
	if err != nil {
		t.Fatal(err)
	}
	var got firefoxManifest
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"scripts": []any{"background.js"}, "type": "module"}; !jsonEqual(got.Background, want) {
		t.Errorf("background = %v, want %v", got.Background, want)
	}
	if got.Settings.Gecko.ID != FirefoxID || got.Settings.Gecko.MinVersion != FirefoxMinVersion {
		t.Errorf("gecko = %+v, want id %s, strict_min_version %s", got.Settings.Gecko, FirefoxID, FirefoxMinVersion)
	}
	if got.Key != nil || got.MinimumChrome != nil {
		t.Errorf("key or minimum_chrome_version kept: %s", out)
	}
	if slices.Contains(got.Permissions, "userScripts") || !slices.Contains(got.OptionalPermissions, "userScripts") {
		t.Errorf("permissions %v, optional %v: want userScripts optional only", got.Permissions, got.OptionalPermissions)
	}
	for _, r := range got.Resources {
		if _, ok := r["use_dynamic_url"]; ok {
			t.Errorf("web_accessible_resources keeps use_dynamic_url: %v", r)
		}
	}

	// Every other key is Chrome's, unchanged.
	var c, f map[string]json.RawMessage
	json.Unmarshal(chrome, &c)
	json.Unmarshal(out, &f)
	changed := map[string]bool{"background": true, "key": true, "minimum_chrome_version": true, "permissions": true, "web_accessible_resources": true}
	for k, v := range c {
		if changed[k] {
			continue
		}
		if !jsonEqual(v, f[k]) {
			t.Errorf("%s = %s in Firefox's manifest, want Chrome's %s", k, f[k], v)
		}
	}
	for k := range f {
		if _, ok := c[k]; !ok && k != "browser_specific_settings" && k != "optional_permissions" {
			t.Errorf("Firefox's manifest adds %s", k)
		}
	}
}

// TestFirefoxManifestRefuses checks that a manifest without a service
// worker is refused rather than turned into one without a background.
func TestFirefoxManifestRefuses(t *testing.T) {
	for _, in := range []string{`{}`, `{"background": {"scripts": ["a.js"]}}`, `not json`} {
		if _, err := FirefoxManifest([]byte(in)); err == nil {
			t.Errorf("FirefoxManifest(%s) succeeded, want an error", in)
		}
	}
}

// TestWriteFirefox checks the Firefox build holds every file of the
// Chrome package, byte for byte but the manifest.
func TestWriteFirefox(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFirefox(dir); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := fs.WalkDir(Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		want, _ := fs.ReadFile(Files, path)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("the Firefox build lacks %s: %v", path, err)
			return nil
		}
		if path == "manifest.json" {
			if want, err = FirefoxManifest(want); err != nil {
				return err
			}
		}
		if string(got) != string(want) {
			t.Errorf("%s differs in the Firefox build", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("the Chrome package has %d files: the walk is wrong", n)
	}
}

// jsonEqual compares two values by their JSON encodings (raw messages
// decoded first, so spacing does not count).
func jsonEqual(a, b any) bool {
	norm := func(v any) string {
		if raw, ok := v.(json.RawMessage); ok {
			var x any
			json.Unmarshal(raw, &x)
			v = x
		}
		out, _ := json.Marshal(v)
		return string(out)
	}
	return norm(a) == norm(b)
}

// TestFirefoxManifestCommitted: the node tests (extension/test/) check
// Firefox's manifest from extension/test/firefox-manifest.json, which go
// generate writes (scripts/firefox): it must be what FirefoxManifest makes
// of the manifest now.
func TestFirefoxManifestCommitted(t *testing.T) {
	chrome, err := fs.ReadFile(Files, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := FirefoxManifest(chrome)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("test", "firefox-manifest.json"))
	if err != nil || string(got) != string(want) {
		t.Fatalf("extension/test/firefox-manifest.json is stale or missing (%v): run go generate ./...", err)
	}
}
