//go:build unix

package upload

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree makes an allowed directory with files and links in a fresh temp dir:
//
//	allowed/report.txt         "hello"
//	allowed/sub/photo.png      8 bytes
//	allowed/big.zz9            MaxFileBytes+1 (sparse)
//	allowed/exact.zz9          MaxFileBytes (sparse)
//	allowed/dir/               a directory
//	allowed/fifo               a named pipe
//	allowed/out-link    →      ../secret.txt
//	allowed/in-link     →      sub/photo.png
//	secret.txt                 outside
//	outside-link        →      allowed/report.txt
func tree(t *testing.T) (base, allowed string) {
	t.Helper()
	base = t.TempDir()
	allowed = filepath.Join(base, "allowed")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(allowed, "sub"), 0o755))
	must(os.MkdirAll(filepath.Join(allowed, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(allowed, "report.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(allowed, "sub", "photo.png"), []byte("\x89PNG\r\n\x1a\n"), 0o644))
	must(os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret"), 0o644))
	for name, size := range map[string]int64{"big.zz9": MaxFileBytes + 1, "exact.zz9": MaxFileBytes} {
		f, err := os.Create(filepath.Join(allowed, name))
		must(err)
		must(f.Truncate(size))
		must(f.Close())
	}
	must(syscall.Mkfifo(filepath.Join(allowed, "fifo"), 0o644))
	must(os.Symlink("../secret.txt", filepath.Join(allowed, "out-link")))
	must(os.Symlink("sub/photo.png", filepath.Join(allowed, "in-link")))
	must(os.Symlink(filepath.Join(allowed, "report.txt"), filepath.Join(base, "outside-link")))
	return base, allowed
}

func TestRead(t *testing.T) {
	base, allowed := tree(t)
	d, err := New([]string{allowed})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		wantErr  error // nil: reads
		wantName string
		wantType string
		wantData string
	}{
		{"a file", filepath.Join(allowed, "report.txt"), nil, "report.txt", "text/plain", "hello"},
		{"in a subdirectory", filepath.Join(allowed, "sub", "photo.png"), nil, "photo.png", "image/png", "\x89PNG\r\n\x1a\n"},
		{"a link that stays inside", filepath.Join(allowed, "in-link"), nil, "in-link", "", "\x89PNG\r\n\x1a\n"},
		{"a link from outside to inside", filepath.Join(base, "outside-link"), nil, "outside-link", "", "hello"},
		{"dot-dot that comes back", filepath.Join(allowed, "sub", "..", "report.txt"), nil, "report.txt", "text/plain", "hello"},
		{"exactly the cap", filepath.Join(allowed, "exact.zz9"), nil, "exact.zz9", "", ""},
		{"outside", filepath.Join(base, "secret.txt"), ErrOutside, "", "", ""},
		{"dot-dot out", allowed + "/../secret.txt", ErrOutside, "", "", ""},
		{"a link that leads out", filepath.Join(allowed, "out-link"), ErrOutside, "", "", ""},
		{"the directory itself", allowed, ErrOutside, "", "", ""},
		{"relative", "allowed/report.txt", ErrNotAbsolute, "", "", ""},
		{"missing", filepath.Join(allowed, "nope.txt"), fs.ErrNotExist, "", "", ""},
		{"a directory", filepath.Join(allowed, "dir"), ErrNotFile, "", "", ""},
		{"a pipe", filepath.Join(allowed, "fifo"), ErrNotFile, "", "", ""},
		{"over the cap", filepath.Join(allowed, "big.zz9"), ErrTooLarge, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := d.Read(tt.path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Read(%q): got %v, want %v", tt.path, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.path) {
					t.Errorf("error %q does not name the path %q", err, tt.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read(%q): %v", tt.path, err)
			}
			if f.Name != tt.wantName || f.Type != tt.wantType || f.Size != len(f.Data) {
				t.Errorf("got name %q type %q size %d (%d bytes), want %q %q", f.Name, f.Type, f.Size, len(f.Data), tt.wantName, tt.wantType)
			}
			if tt.wantData != "" && string(f.Data) != tt.wantData {
				t.Errorf("got data %q, want %q", f.Data, tt.wantData)
			}
			if f.LastModified <= 0 {
				t.Errorf("got last_modified %d, want the file's mtime", f.LastModified)
			}
		})
	}
}

func TestReadAll(t *testing.T) {
	_, allowed := tree(t)
	d, err := New([]string{filepath.Join(allowed, "sub"), allowed})
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(allowed, "report.txt")
	exact := filepath.Join(allowed, "exact.zz9")
	tests := []struct {
		name    string
		paths   []string
		wantErr error
		want    int
	}{
		{"one", []string{small}, nil, 1},
		{"the most files", []string{small, small, small, small}, nil, 4},
		{"under the total", []string{exact, small}, nil, 2},
		{"none", nil, ErrCount, 0},
		{"too many", []string{small, small, small, small, small}, ErrCount, 0},
		{"over the total", []string{exact, exact, small}, ErrTooLarge, 0},
		{"one refused refuses all", []string{small, "/etc/passwd"}, ErrOutside, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := d.ReadAll(tt.paths)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
			if len(files) != tt.want {
				t.Errorf("got %d files, want %d", len(files), tt.want)
			}
		})
	}
}

func TestNoDirs(t *testing.T) {
	d, err := New(nil)
	if err != nil || d != nil {
		t.Fatalf("New(nil): got %v, %v; want nil, nil", d, err)
	}
	if _, err := d.ReadAll([]string{"/etc/hostname"}); !errors.Is(err, ErrNoDirs) {
		t.Errorf("ReadAll with no dirs: got %v, want ErrNoDirs", err)
	}
	if got := d.Dirs(); got != nil {
		t.Errorf("Dirs: got %v, want none", got)
	}
}

func TestNew(t *testing.T) {
	base, allowed := tree(t)
	link := filepath.Join(base, "link-to-allowed")
	if err := os.Symlink(allowed, link); err != nil {
		t.Fatal(err)
	}
	d, err := New([]string{link})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Dirs(); len(got) != 1 || got[0] != mustReal(t, allowed) {
		t.Errorf("Dirs: got %v, want the link resolved to %s", got, allowed)
	}
	// A file reached through the allowed link is read; one outside is not.
	if f, err := d.Read(filepath.Join(link, "report.txt")); err != nil || !bytes.Equal(f.Data, []byte("hello")) {
		t.Errorf("Read through the allowed link: %v", err)
	}
	for _, bad := range []string{filepath.Join(base, "nope"), filepath.Join(allowed, "report.txt")} {
		if _, err := New([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("New(%q): got %v, want an error naming it", bad, err)
		}
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRefusalsRevealNothing: a refused path gets the same answer whether
// it exists or not, and no answer names where a link leads.
func TestRefusalsRevealNothing(t *testing.T) {
	base, allowed := tree(t)
	d, err := New([]string{allowed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := os.Symlink(filepath.Join(base, "missing.txt"), filepath.Join(allowed, "dangling-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "missing.txt"), filepath.Join(base, "dangling-outside")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		filepath.Join(base, "secret.txt"),                // exists outside
		filepath.Join(base, "missing.txt"),               // does not
		filepath.Join(base, "nodir", "missing.txt"),      // nor does its directory
		filepath.Join(allowed, "out-link"),               // a link inside to a file outside
		filepath.Join(allowed, "dangling-out"),           // a link inside to nothing outside
		filepath.Join(base, "dangling-outside"),          // a link outside to nothing
		filepath.Join(allowed, "out-link", "x"),          // through the link
		filepath.Join(allowed, "..", "secret.txt"),       // dot-dot out
		filepath.Join(allowed, "sub", "..", "..", "zzz"), // dot-dot out to nothing
	} {
		_, err := d.Read(p)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("Read(%q): got %v, want ErrOutside", p, err)
			continue
		}
		if want := fmt.Sprintf("%q: not under an allowed directory", p); err.Error() != want {
			t.Errorf("Read(%q): message %q, want exactly %q", p, err, want)
		}
	}
}

// TestParentSwapped is the race of issue 16: while the allowed directory's
// parent is swapped for another holding a directory of the same name, no
// read returns the other directory's file.
func TestParentSwapped(t *testing.T) {
	base := t.TempDir()
	parent := filepath.Join(base, "p")
	for dir, content := range map[string]string{parent: "allowed file", filepath.Join(base, "evil"): "outside secret"} {
		if err := os.MkdirAll(filepath.Join(dir, "allowed"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "allowed", "f.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := New([]string{filepath.Join(parent, "allowed")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	path := filepath.Join(parent, "allowed", "f.txt")

	stop := make(chan struct{})
	swapped := make(chan int)
	go func() {
		n := 0
		defer func() { swapped <- n }()
		orig, evil := filepath.Join(base, "p-orig"), filepath.Join(base, "evil")
		for {
			select {
			case <-stop:
				return
			default:
			}
			// p becomes a link to evil, then the original again.
			if os.Rename(parent, orig) != nil || os.Symlink(evil, parent) != nil {
				t.Error("swapping the parent failed")
				return
			}
			n++
			if os.Remove(parent) != nil || os.Rename(orig, parent) != nil {
				t.Error("restoring the parent failed")
				return
			}
		}
	}()
	reads, refused := 0, 0
	for range 20000 {
		f, err := d.Read(path)
		switch {
		case err != nil:
			refused++ // mid-swap the path may lead nowhere: refused, never elsewhere
		case string(f.Data) != "allowed file":
			t.Fatalf("read %q through the allowed directory while its parent was swapped", f.Data)
		default:
			reads++
		}
	}
	close(stop)
	n := <-swapped
	t.Logf("20000 reads during %d swaps: %d read the allowed file, %d refused, none escaped", n, reads, refused)
	if n == 0 {
		t.Errorf("the parent was never swapped: the test proved nothing")
	}
}
