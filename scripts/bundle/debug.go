package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
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
// capture/main/full.js's sourceURL no longer names pristine.js too.
// Both modes' files are unbundled (each entry's js and idle_js); a bundle
// with a Define declares its sources with the definitions applied, not
// minified (written to debug/<bundle>/<source>), so the idle copy of
// the capture is lean there too; and an ES module source is declared
// bundled with what it imports, not minified (a content script is a
// classic script), also there.
func debugCopy(ext, dir string, bundles []Bundle) error {
	sources := map[string][]string{}
	defined := map[string]string{} // a file the copy adds (under debug/) → its text
	for _, b := range bundles {
		for _, src := range b.Sources {
			text, err := os.ReadFile(filepath.Join(ext, src))
			if err != nil {
				return fmt.Errorf("reading %s: %w", src, err)
			}
			out, module, err := bundleModule(ext, src, b.Define, false, slices.Contains(b.KeepNames, src))
			if err != nil {
				return err
			}
			switch {
			case module:
				if m := sourceURL.FindStringSubmatch(string(text)); m != nil {
					out += "\n//# sourceURL=" + m[1] + "\n"
				}
			case len(b.Define) == 0:
				sources[b.Out] = append(sources[b.Out], src)
				continue
			default:
				if out, err = define(src, string(text), b.Define); err != nil {
					return err
				}
			}
			to := path.Join("debug", strings.TrimSuffix(path.Base(b.Out), ".js"), src)
			defined[to] = out
			sources[b.Out] = append(sources[b.Out], to)
		}
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
		for _, key := range []string{"js", "idle_js"} {
			if e[key] == nil {
				continue
			}
			var js []string
			if err := json.Unmarshal(e[key], &js); err != nil {
				return fmt.Errorf("reading %s[%d].%s: %w", Declared, i, key, err)
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
			if e[key], err = marshal(out, ""); err != nil {
				return err
			}
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
	for rel, text := range defined {
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// define returns src (a classic script named name) with define's names
// replaced by their values and the branches that makes dead dropped,
// readable (not minified), keeping the sourceURL it declares.
func define(name, src string, define map[string]string) (string, error) {
	res := api.Transform(src, api.TransformOptions{
		Sourcefile: name,
		Loader:     api.LoaderJS,
		Engines:    []api.Engine{{Name: api.EngineChrome, Version: "120"}},
		Define:     define,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return "", fmt.Errorf("defining %s in %s: %s", strings.Join(slices.Sorted(maps.Keys(define)), ", "), name, strings.Join(msgs, "\n"))
	}
	out := string(res.Code)
	if m := sourceURL.FindStringSubmatch(src); m != nil && !sourceURL.MatchString(out) {
		out += "//# sourceURL=" + m[1] + "\n"
	}
	return out, nil
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
