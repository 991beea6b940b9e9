package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Declared is the file, under the extension's directory, that declares the
// content scripts the worker registers (capture/declared.js).
const Declared = "capture/declared.json"

// debugCopy copies the extension ext into dir, a new directory, with a
// Declared that declares each bundle's sources where it declared the
// bundle: the same scripts, in the same order, world and frames, but
// unminified and each its own script, so that V8's profiler and stack
// traces name every source file (by its own URL, or the sourceURL it
// declares itself) and its functions as written. A bundle cannot do that:
// a script has one name, and eval, which could give each part its own, is
// what the extension's CSP forbids. For profiling only (pagebench
// -profile): separate scripts cost Chrome a little more than one, and
// capture/main-world.js's sourceURL no longer names pristine.js too.
func debugCopy(ext, dir string, bundles []Bundle) error {
	sources := map[string][]string{}
	for _, b := range bundles {
		sources[b.Out] = b.Sources
	}
	raw, err := os.ReadFile(filepath.Join(ext, Declared))
	if err != nil {
		return err
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(ext, Declared), err)
	}
	replaced := 0
	for i, e := range entries {
		var js []string
		if err := json.Unmarshal(e["js"], &js); err != nil {
			return fmt.Errorf("reading %s[%d].js: %w", Declared, i, err)
		}
		var out []string
		for _, f := range js {
			if s, ok := sources[f]; ok {
				out = append(out, s...)
				replaced++
				continue
			}
			out = append(out, f)
		}
		if e["js"], err = marshal(out, ""); err != nil {
			return err
		}
	}
	if replaced == 0 {
		return fmt.Errorf("%s declares none of the bundles (scripts/bundle Bundles): nothing to unbundle", filepath.Join(ext, Declared))
	}
	declared, err := marshal(entries, "  ")
	if err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("%w (give -debug a directory that does not exist yet)", err)
	}
	err = filepath.WalkDir(ext, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(ext, path)
		if err != nil || rel == "." {
			return err
		}
		to := filepath.Join(dir, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("copying %s: not a regular file", path)
		case filepath.ToSlash(rel) == Declared:
			return os.WriteFile(to, declared, 0o644)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("copying %s to %s: %w", ext, dir, err)
	}
	return nil
}

// marshal is json.Marshal (indented by indent) that leaves <, > and &
// as they are: "<all_urls>" stays readable.
func marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
