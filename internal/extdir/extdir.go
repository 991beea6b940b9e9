// Package extdir writes the browser extension that the gasoline binary
// carries to a stable folder of the state directory, for Chrome's "Load
// unpacked", and tells whether the folder holds this binary's extension.
package extdir

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gasoline-mcp/gasoline/extension"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Name is the folder, inside the state directory, that holds the extension.
const Name = "extension"

// stampFile records what Install wrote, beside the folder: a file inside it
// would be part of the extension Chrome loads.
const stampFile = "extension.json"

// Stamp says which extension a folder holds.
type Stamp struct {
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of every file's path and content, in path order
}

// Dir is the extension folder of the state directory dir.
func Dir(stateDir string) string { return filepath.Join(stateDir, Name) }

// Embedded is the stamp of the extension this binary carries, version being
// the binary's.
func Embedded(version string) (Stamp, error) {
	sum, err := digest(extension.Files)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Version: version, SHA256: sum}, nil
}

// Installed is the stamp of the extension last written to stateDir, ok false
// when none was (or its stamp is unreadable).
func Installed(stateDir string) (s Stamp, ok bool) {
	raw, err := os.ReadFile(filepath.Join(stateDir, stampFile))
	if err != nil || json.Unmarshal(raw, &s) != nil || s.SHA256 == "" {
		return Stamp{}, false
	}
	if fi, err := os.Stat(filepath.Join(Dir(stateDir), "manifest.json")); err != nil || !fi.Mode().IsRegular() {
		return Stamp{}, false
	}
	return s, true
}

// Result is what Install did.
type Result struct {
	Dir      string
	Now      Stamp
	Previous Stamp // zero when the folder held no extension
	Changed  bool  // the files differ from what the folder held
}

// Install writes the embedded extension to the extension folder of
// stateDir (created 0700 when absent), replacing what the folder held as a
// whole: a new folder is written beside it and renamed into place, so Chrome
// never loads a half-written extension. Writing the same files again
// changes nothing but the stamp's version. It is not safe to run twice at
// once on one state directory.
func Install(stateDir, version string) (Result, error) {
	sd, err := state.Open(stateDir)
	if err != nil {
		return Result{}, err
	}
	now, err := Embedded(version)
	if err != nil {
		return Result{}, fmt.Errorf("reading the embedded extension: %w", err)
	}
	res := Result{Dir: Dir(sd.Path), Now: now}
	prev, had := Installed(sd.Path)
	if had {
		res.Previous = prev
	}
	clean(sd.Path)
	if !had || prev.SHA256 != now.SHA256 || !sameFiles(res.Dir, now.SHA256) {
		if err := replace(sd.Path, res.Dir); err != nil {
			return Result{}, err
		}
		res.Changed = true
	}
	raw, err := json.MarshalIndent(now, "", "  ")
	if err != nil {
		return Result{}, err
	}
	if err := sd.WriteFile(stampFile, append(raw, '\n')); err != nil {
		return Result{}, fmt.Errorf("writing %s: %w", stampFile, err)
	}
	return res, nil
}

// replace writes the extension to a new folder beside dir, then swaps it in.
func replace(stateDir, dir string) error {
	suffix := randSuffix()
	tmp := filepath.Join(stateDir, Name+".new-"+suffix)
	if err := write(tmp); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("writing the extension to %s: %w", tmp, err)
	}
	old := filepath.Join(stateDir, Name+".old-"+suffix)
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		os.RemoveAll(tmp)
		return fmt.Errorf("moving the old extension aside (is a program holding %s open?): %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		os.RemoveAll(tmp)
		return fmt.Errorf("moving the new extension into %s: %w", dir, err)
	}
	os.RemoveAll(old)
	return nil
}

// write copies every embedded file into dir, which must not exist.
func write(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(extension.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.Mkdir(dst, 0o755)
		}
		data, err := fs.ReadFile(extension.Files, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// sameFiles reports whether dir still holds exactly the files whose digest
// is sum: a user may have edited or deleted files of the installed folder.
func sameFiles(dir, sum string) bool {
	got, err := digest(os.DirFS(dir))
	return err == nil && got == sum
}

// clean removes the folders an interrupted Install left behind.
func clean(stateDir string) {
	entries, err := os.ReadDir(stateDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && (strings.HasPrefix(n, Name+".new-") || strings.HasPrefix(n, Name+".old-")) {
			os.RemoveAll(filepath.Join(stateDir, n))
		}
	}
}

// digest hashes every regular file's slash path and content, in path order.
func digest(fsys fs.FS) (string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func randSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
