package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
