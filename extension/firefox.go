package extension

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// FirefoxID is the extension's ID in Firefox (browser_specific_settings.gecko.id).
// Firefox requires one for a Manifest V3 extension and, unlike Chrome, does
// not derive it from a key; the moz-extension:// host of its pages is a
// random UUID per profile instead.
const FirefoxID = "gasoline@gasoline-mcp"

// FirefoxMinVersion is the oldest Firefox the Firefox build installs in:
// the oldest the Firefox e2e tests passed on (ESR 153). ESR 140 (Debian
// bookworm's firefox-esr on some machines) gives no documentId in
// webNavigation's frames, by which every DOM action addresses its
// document: there, all of them failed with "has no document yet", so the
// build refuses to install instead of half working. Versions between were
// not tried.
const FirefoxMinVersion = "153.0"

// FirefoxManifest returns Chrome's manifest.json (chrome) rewritten for
// Firefox, so that both packages come from the one manifest:
//   - background: an event page of module scripts (background.scripts,
//     "type": "module") instead of a service worker, which Firefox refuses
//     ("background.service_worker is currently disabled");
//   - browser_specific_settings.gecko: the ID and the oldest version;
//   - no key and no minimum_chrome_version, which are Chrome's;
//   - userScripts under optional_permissions: Firefox silently leaves it
//     ungranted under permissions (the user grants it at run time);
//   - web_accessible_resources without use_dynamic_url, which Firefox does
//     not know (its extension URLs are random per profile already).
//
// Everything else is kept as it is. The result is indented JSON with the
// keys in order; it fails when chrome is not the manifest it expects (no
// background.service_worker).
func FirefoxManifest(chrome []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(chrome, &m); err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	bg, _ := m["background"].(map[string]any)
	worker, _ := bg["service_worker"].(string)
	if worker == "" {
		return nil, fmt.Errorf("the manifest has no background.service_worker to turn into Firefox's background.scripts")
	}
	m["background"] = map[string]any{"scripts": []string{worker}, "type": "module"}
	m["browser_specific_settings"] = map[string]any{"gecko": map[string]any{
		"id":                 FirefoxID,
		"strict_min_version": FirefoxMinVersion,
		// The extension sends what it captures to the local daemon only,
		// never to its developers: Firefox 140+ asks new extensions to say so.
		"data_collection_permissions": map[string]any{"required": []string{"none"}},
	}}
	delete(m, "key")
	delete(m, "minimum_chrome_version")
	if perms, ok := m["permissions"].([]any); ok {
		var kept, optional []any
		for _, p := range perms {
			if p == "userScripts" {
				optional = append(optional, p)
				continue
			}
			kept = append(kept, p)
		}
		m["permissions"] = kept
		if len(optional) > 0 {
			old, _ := m["optional_permissions"].([]any)
			m["optional_permissions"] = append(slices.Clone(old), optional...)
		}
	}
	if wars, ok := m["web_accessible_resources"].([]any); ok {
		for _, w := range wars {
			if entry, ok := w.(map[string]any); ok {
				delete(entry, "use_dynamic_url")
			}
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// WriteFirefox writes the Firefox build of the extension into dir (made if
// missing): every file of Files as it is, but manifest.json, which is
// FirefoxManifest's. Files already in dir are overwritten; others are left,
// so a caller that wants a clean build gives an empty or new dir.
func WriteFirefox(dir string) error {
	return fs.WalkDir(Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(Files, path)
		if err != nil {
			return err
		}
		if path == "manifest.json" {
			if data, err = FirefoxManifest(data); err != nil {
				return err
			}
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("writing the Firefox build: %w", err)
		}
		return nil
	})
}
