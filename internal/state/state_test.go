package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestOpenTightensPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("got mode %o, want 700", got)
	}
}

func TestTokenCreatedOnceConcurrently(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadToken(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("before creation: got %v, want fs.ErrNotExist", err)
	}
	toks := make([]string, 8)
	var wg sync.WaitGroup
	for i := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			toks[i], _ = d.LoadOrCreateToken()
		}()
	}
	wg.Wait()
	for _, tok := range toks {
		if tok != toks[0] || len(tok) != 64 {
			t.Fatalf("got tokens %q, want one 64-hex token", toks)
		}
	}
	fi, _ := os.Stat(d.File(TokenFile))
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("token mode %o, want 600", got)
	}
}

func TestMalformedToken(t *testing.T) {
	d, _ := Open(t.TempDir())
	os.WriteFile(d.File(TokenFile), []byte("short\n"), 0o600)
	if _, err := d.ReadToken(); err == nil {
		t.Fatal("got no error for a malformed token")
	}
}

// otherUID is a uid that is not the current user's.
const otherUID = 65534 // nobody

// foreignDir returns a directory owned by another user: one the test chowns
// when it runs as root, else the root directory (which Open never changes,
// since it refuses it first).
func foreignDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return "/"
	}
	dir := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestOpenRefusesAnotherUsersDir(t *testing.T) {
	theirs := foreignDir(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(theirs, link); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"their directory": theirs, "my symlink to their directory": link}
	if os.Geteuid() == 0 {
		// The attack of the issue: a root daemon given a state dir through
		// a symlink another user made.
		mine := t.TempDir()
		theirLink := filepath.Join(t.TempDir(), "their-link")
		if err := os.Symlink(mine, theirLink); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(theirLink, otherUID, otherUID); err != nil {
			t.Fatal(err)
		}
		cases["their symlink to my directory"] = theirLink
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			before, _ := os.Stat(path)
			_, err := Open(path)
			if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "--state-dir") {
				t.Fatalf("Open(%s): got %v, want ErrInsecure saying to use another --state-dir", path, err)
			}
			if _, err := (Dir{Path: path}).ReadToken(); !errors.Is(err, ErrInsecure) {
				t.Errorf("ReadToken: got %v, want ErrInsecure", err)
			}
			if after, _ := os.Stat(path); after.Mode() != before.Mode() {
				t.Errorf("mode changed from %v to %v: Open must not touch a directory it refuses", before.Mode(), after.Mode())
			}
		})
	}
}

func TestTokenOthersMayKnowIsRefused(t *testing.T) {
	type attack struct {
		name  string
		plant func(t *testing.T, path string)
	}
	attacks := []attack{
		{"world-readable token", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("a", 64)), 0o600)
			os.Chmod(path, 0o666)
		}},
		{"group-readable token", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("a", 64)), 0o640)
		}},
		{"token symlinked to a file someone else wrote", func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), "planted")
			os.WriteFile(other, []byte(strings.Repeat("b", 64)), 0o600)
			os.Symlink(other, path)
		}},
	}
	if os.Geteuid() == 0 {
		attacks = append(attacks, attack{"token owned by another user", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("c", 64)), 0o600)
			os.Chown(path, otherUID, otherUID)
		}})
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			d, err := Open(filepath.Join(t.TempDir(), "s"))
			if err != nil {
				t.Fatal(err)
			}
			a.plant(t, d.File(TokenFile))
			for name, read := range map[string]func() (string, error){"ReadToken": d.ReadToken, "LoadOrCreateToken": d.LoadOrCreateToken} {
				tok, err := read()
				if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "rm ") {
					t.Errorf("%s: got %q, %v; want ErrInsecure saying how to replace the token", name, tok, err)
				}
			}
		})
	}
}

func TestOpenFileRefusesSymlink(t *testing.T) {
	d, _ := Open(t.TempDir())
	target := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(target, []byte("keep me\n"), 0o600)
	os.Symlink(target, d.File(LogFile))
	if f, err := d.OpenFile(LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE); !errors.Is(err, ErrInsecure) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("got %v, want ErrInsecure for a symlinked log", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target changed to %q", b)
	}
}

func TestLockIsExclusive(t *testing.T) {
	d, _ := Open(t.TempDir())
	l, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Lock()
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second Lock: got %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := d.Lock()
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	l2.Unlock()
	l2.Unlock() // idempotent
}

func TestSocketPathLength(t *testing.T) {
	if p, ok := (Dir{Path: "/home/u/.gasoline"}).SocketPath(); !ok || p != "/home/u/.gasoline/daemon.sock" {
		t.Errorf("got %q %v, want the socket in the state dir", p, ok)
	}
	if _, ok := (Dir{Path: "/" + strings.Repeat("x", 100)}).SocketPath(); ok {
		t.Error("got ok for a path too long for sun_path")
	}
}
