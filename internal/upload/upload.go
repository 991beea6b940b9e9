// Package upload reads the files an agent may put in a page's file inputs:
// regular files under the directories the user allowed, within size caps.
package upload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// is under none of the allowed directories. Its message says no more:
	// not where a link leads, nor whether a path outside exists.
	ErrOutside = errors.New("not under an allowed directory")
	// ErrNotFile means a path names a directory, device, pipe or socket.
	ErrNotFile = errors.New("not a regular file")
	// ErrTooLarge means a file, or the files together, exceed the caps.
	ErrTooLarge = errors.New("too large to upload")
	// ErrCount means no path, or more than MaxFiles.
	ErrCount = errors.New("wrong number of files")
)

// Dirs are the directories the user allowed uploads from, resolved and
// opened once (an os.Root each): every file is read through those handles,
// so renaming or replacing a directory's parent later cannot lead a read
// anywhere else. A nil *Dirs allows none. Its methods are safe for
// concurrent use.
type Dirs struct {
	dirs  []string   // absolute, symbolic links resolved, as at New
	roots []*os.Root // roots[i] is dirs[i], opened at New
}

// New resolves dirs (made absolute, symbolic links followed), checks that
// each is a directory and opens it. It returns a nil *Dirs for no dirs.
// Close releases the directories.
func New(dirs []string) (*Dirs, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	d := &Dirs{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		if !fi.IsDir() {
			d.Close()
			return nil, fmt.Errorf("upload directory %q is not a directory", dir)
		}
		root, err := os.OpenRoot(real)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("upload directory %q: %w", dir, err)
		}
		d.dirs = append(d.dirs, real)
		d.roots = append(d.roots, root)
	}
	return d, nil
}

// Close closes the allowed directories; Read fails afterwards. It may be
// called on a nil *Dirs, and more than once.
func (d *Dirs) Close() error {
	if d == nil {
		return nil
	}
	for _, r := range d.roots {
		r.Close()
	}
	return nil
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

// Read reads the regular file at path, an absolute path that lies under an
// allowed directory, either as written or with its symbolic links and ".."
// resolved. The file is opened through the directory's os.Root, so no link
// (one swapped in meanwhile included) leads outside it. Files over
// MaxFileBytes are refused. A path outside gets ErrOutside whether or not it
// exists and wherever its links lead.
func (d *Dirs) Read(path string) (File, error) {
	if d == nil {
		return File{}, ErrNoDirs
	}
	if !filepath.IsAbs(path) {
		return File{}, fmt.Errorf("%q: %w", path, ErrNotAbsolute)
	}
	outside := fmt.Errorf("%q: %w", path, ErrOutside)
	clean := filepath.Clean(path)
	i, rel, ok := d.within(clean)
	if !ok {
		// A path outside as written may lead inside through links. Whatever
		// fails on the way is reported as outside: an error here would say
		// what exists outside.
		real, err := filepath.EvalSymlinks(clean)
		if err != nil {
			return File{}, outside
		}
		if i, rel, ok = d.within(real); !ok {
			return File{}, outside
		}
	}
	f, err := d.roots[i].OpenFile(rel, openFlags, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{}, fmt.Errorf("%q: %w", path, fs.ErrNotExist)
	case errors.Is(err, fs.ErrPermission):
		return File{}, fmt.Errorf("%q: %w", path, fs.ErrPermission)
	case err != nil:
		return File{}, outside // a link that leads out of the directory, or a loop
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

// within returns the index of the allowed directory p lies under
// (lexically) and p's path relative to it.
func (d *Dirs) within(p string) (i int, rel string, ok bool) {
	for i, dir := range d.dirs {
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return i, rel, true
	}
	return 0, "", false
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
