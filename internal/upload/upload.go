// Package upload reads the files an agent may put in a page's file inputs:
// regular files under the directories the user allowed, within size caps.
package upload

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
)

// Caps on one upload; the daemon sends the files' content to the extension
// in the command's parameters (base64), which the tracker bounds too.
const (
	MaxFiles      = 4
	MaxFileBytes  = 10 << 20
	MaxTotalBytes = 20 << 20
)

// EnvDirs is the environment variable that allows upload directories when
// no --upload-dir flag does: a list separated like PATH. A daemon the
// bridge starts inherits it from the MCP client's configuration.
const EnvDirs = "GASOLINE_UPLOAD_DIRS"

// Errors of Read and ReadAll, each wrapped with the path it is about.
var (
	// ErrNoDirs means the user allowed no directory.
	ErrNoDirs = errors.New("no upload directory is allowed")
	// ErrNotAbsolute means a path is relative.
	ErrNotAbsolute = errors.New("the path is not absolute")
	// ErrOutside means a path, with its symbolic links and ".." resolved,
	// is under none of the allowed directories.
	ErrOutside = errors.New("the file is outside the allowed upload directories")
	// ErrNotFile means a path names a directory, device, pipe or socket.
	ErrNotFile = errors.New("not a regular file")
	// ErrTooLarge means a file, or the files together, exceed the caps.
	ErrTooLarge = errors.New("too large to upload")
	// ErrCount means no path, or more than MaxFiles.
	ErrCount = errors.New("wrong number of files")
)

// Dirs are the directories the user allowed uploads from, resolved once.
// A nil *Dirs allows none. Its methods are safe for concurrent use.
type Dirs struct {
	dirs []string // absolute, symbolic links resolved
}

// New resolves dirs (made absolute, symbolic links followed) and checks
// that each is a directory. It returns a nil *Dirs for no dirs.
func New(dirs []string) (*Dirs, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	d := &Dirs{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("upload directory %q is not a directory", dir)
		}
		d.dirs = append(d.dirs, real)
	}
	return d, nil
}

// Dirs returns the allowed directories, resolved; none for a nil d.
func (d *Dirs) Dirs() []string {
	if d == nil {
		return nil
	}
	return append([]string(nil), d.dirs...)
}

// File is one file read for an upload. Data encodes as base64 in JSON.
type File struct {
	Name         string `json:"name"` // the base name of the path as given
	Type         string `json:"type"` // its MIME type by extension; "" when unknown
	Size         int    `json:"size"`
	LastModified int64  `json:"last_modified"` // Unix milliseconds
	Data         []byte `json:"data"`
}

// ReadAll reads the files at paths (1 to MaxFiles, at most MaxTotalBytes
// together), each as Read does.
func (d *Dirs) ReadAll(paths []string) ([]File, error) {
	if d == nil {
		return nil, ErrNoDirs
	}
	if len(paths) == 0 || len(paths) > MaxFiles {
		return nil, fmt.Errorf("%w: %d paths, want 1 to %d", ErrCount, len(paths), MaxFiles)
	}
	var out []File
	total := 0
	for _, p := range paths {
		f, err := d.Read(p)
		if err != nil {
			return nil, err
		}
		total += f.Size
		if total > MaxTotalBytes {
			return nil, fmt.Errorf("%w: the files come to more than %d MB together", ErrTooLarge, MaxTotalBytes>>20)
		}
		out = append(out, f)
	}
	return out, nil
}

// Read reads the regular file at path, an absolute path that, with its
// symbolic links and ".." resolved, lies under an allowed directory. The
// file is opened through an os.Root of that directory, so a link swapped in
// after the check cannot lead outside it either. Files over MaxFileBytes
// are refused.
func (d *Dirs) Read(path string) (File, error) {
	if d == nil {
		return File{}, ErrNoDirs
	}
	if !filepath.IsAbs(path) {
		return File{}, fmt.Errorf("%q: %w", path, ErrNotAbsolute)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil {
		return File{}, fmt.Errorf("%q: %w", path, err)
	}
	dir, rel, ok := d.within(real)
	if !ok {
		if real != filepath.Clean(path) {
			return File{}, fmt.Errorf("%q (which resolves to %q): %w", path, real, ErrOutside)
		}
		return File{}, fmt.Errorf("%q: %w", path, ErrOutside)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return File{}, fmt.Errorf("%q: %w", path, err)
	}
	defer root.Close()
	f, err := root.OpenFile(rel, openFlags, 0)
	if err != nil {
		return File{}, fmt.Errorf("%q: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return File{}, fmt.Errorf("%q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return File{}, fmt.Errorf("%q: %w", path, ErrNotFile)
	}
	if fi.Size() > MaxFileBytes {
		return File{}, fmt.Errorf("%q is %.1f MB: %w (at most %d MB a file)", path, float64(fi.Size())/(1<<20), ErrTooLarge, MaxFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return File{}, fmt.Errorf("reading %q: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return File{}, fmt.Errorf("%q grew past %d MB: %w", path, MaxFileBytes>>20, ErrTooLarge)
	}
	name := filepath.Base(path)
	return File{Name: name, Type: typeOf(name), Size: len(data), LastModified: fi.ModTime().UnixMilli(), Data: data}, nil
}

// within returns the allowed directory real lies under and real's path
// relative to it.
func (d *Dirs) within(real string) (dir, rel string, ok bool) {
	for _, dir := range d.dirs {
		rel, err := filepath.Rel(dir, real)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return dir, rel, true
	}
	return "", "", false
}

// typeOf is a file's MIME type by its extension, without parameters, as a
// browser's file picker gives it; "" when the extension is unknown.
func typeOf(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	t, _, _ := strings.Cut(mime.TypeByExtension(ext), ";")
	if t = strings.TrimSpace(t); t == "" {
		t = commonTypes[ext]
	}
	return t
}

// commonTypes are types of files often uploaded that Go knows only from
// the system's MIME tables, which a machine may lack.
var commonTypes = map[string]string{
	".txt": "text/plain", ".csv": "text/csv", ".md": "text/markdown", ".zip": "application/zip",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
