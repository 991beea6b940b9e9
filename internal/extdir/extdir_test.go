package extdir

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/gasoline-mcp/gasoline/extension"
)

func TestInstallWritesTheEmbeddedExtension(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	res, err := Install(state, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Previous != (Stamp{}) {
		t.Fatalf("first install: got changed %v previous %+v, want changed and no previous", res.Changed, res.Previous)
	}
	if res.Dir != filepath.Join(state, Name) {
		t.Fatalf("got dir %s, want %s", res.Dir, filepath.Join(state, Name))
	}
	// Every embedded file is there, byte for byte.
	n := 0
	err = fs.WalkDir(extension.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(extension.Files, p)
		got, err := os.ReadFile(filepath.Join(res.Dir, filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if string(got) != string(want) {
			t.Errorf("%s differs from the embedded file", p)
		}
		n++
		return nil
	})
	if err != nil || n < 20 {
		t.Fatalf("walked %d files (err %v), want the whole extension", n, err)
	}
	// The manifest keeps its key, so Chrome gives the folder the extension
	// id the daemon pins.
	var m map[string]any
	raw, _ := os.ReadFile(filepath.Join(res.Dir, "manifest.json"))
	if err := json.Unmarshal(raw, &m); err != nil || m["key"] == nil {
		t.Fatalf("installed manifest has no key (err %v)", err)
	}
	if s, ok := Installed(state); !ok || s != res.Now || s.Version != "1.2.3" {
		t.Fatalf("Installed = %+v, %v; want %+v", s, ok, res.Now)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode: %v %v, want 0700", fi.Mode(), err)
	}
}

func TestInstallAgain(t *testing.T) {
	state := t.TempDir()
	if _, err := Install(state, "1.0.0"); err != nil {
		t.Fatal(err)
	}
	t.Run("same files", func(t *testing.T) {
		res, err := Install(state, "1.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed || res.Previous.Version != "1.0.0" || res.Now.Version != "1.0.1" {
			t.Fatalf("got %+v, want unchanged files, previous 1.0.0, now 1.0.1", res)
		}
	})
	t.Run("a file edited by hand is written again", func(t *testing.T) {
		p := filepath.Join(state, Name, "manifest.json")
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(state, Name, "stray.js"), []byte("x"), 0o644)
		res, err := Install(state, "1.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if !res.Changed {
			t.Fatal("got unchanged, want the edited folder written again")
		}
		want, _ := fs.ReadFile(extension.Files, "manifest.json")
		if got, _ := os.ReadFile(p); string(got) != string(want) {
			t.Fatal("manifest.json not restored")
		}
		if _, err := os.Stat(filepath.Join(state, Name, "stray.js")); !os.IsNotExist(err) {
			t.Fatalf("a file the embedded extension lacks survived: %v", err)
		}
	})
	t.Run("leftovers of an interrupted install are removed", func(t *testing.T) {
		left := filepath.Join(state, Name+".new-abc")
		os.MkdirAll(left, 0o755)
		if _, err := Install(state, "1.0.1"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Fatalf("%s survived: %v", left, err)
		}
	})
}

func TestInstalledWithoutFolder(t *testing.T) {
	state := t.TempDir()
	if _, ok := Installed(state); ok {
		t.Fatal("Installed reports an extension in an empty state dir")
	}
	if _, err := Install(state, "1"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(Dir(state))
	if _, ok := Installed(state); ok {
		t.Fatal("Installed reports an extension whose folder is gone")
	}
}
