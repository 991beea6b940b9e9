package kv_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/kv"
)

func open(t *testing.T, dir string, o kv.Options) *kv.Store {
	t.Helper()
	s, err := kv.Open(filepath.Join(dir, kv.FileName), o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPersisted(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, kv.Options{})
	if _, err := s.Get("plan"); !errors.Is(err, kv.ErrNotFound) {
		t.Fatalf("empty store: got %v, want ErrNotFound", err)
	}
	info, err := s.Put("plan", json.RawMessage(`{ "step": 2,
		"todo": ["fix cart"] }`))
	if err != nil {
		t.Fatal(err)
	}
	if info.Bytes != len(`{"step":2,"todo":["fix cart"]}`) {
		t.Errorf("got %d bytes, want the compacted value's length", info.Bytes)
	}
	if _, err := s.Put("note", json.RawMessage(`"ünïcode ✓"`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("plan", json.RawMessage(`{"step":3}`)); err != nil {
		t.Fatal(err)
	}

	fi, err := os.Stat(filepath.Join(dir, kv.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want 0600", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".kv-*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	again := open(t, dir, kv.Options{})
	for key, want := range map[string]string{"plan": `{"step":3}`, "note": `"ünïcode ✓"`} {
		e, err := again.Get(key)
		if err != nil || string(e.Value) != want || e.UpdatedAt.IsZero() {
			t.Errorf("after reopening, %s: got %s, %v; want %s", key, e.Value, err, want)
		}
	}
	if l := again.List(); len(l) != 2 || l[0].Key != "note" || l[1].Key != "plan" {
		t.Errorf("got list %+v, want note and plan, sorted", l)
	}
	if err := again.Delete("plan"); err != nil {
		t.Fatal(err)
	}
	if err := again.Delete("plan"); !errors.Is(err, kv.ErrNotFound) {
		t.Errorf("deleting twice: got %v, want ErrNotFound", err)
	}
	if l := open(t, dir, kv.Options{}).List(); len(l) != 1 || l[0].Key != "note" {
		t.Errorf("after delete and reopen: got %+v, want only note", l)
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name  string
		opts  kv.Options
		fill  map[string]string
		key   string
		value string
		want  error
	}{
		{"empty key", kv.Options{}, nil, "", `1`, kv.ErrBadKey},
		{"long key", kv.Options{}, nil, strings.Repeat("k", kv.MaxKeyLen+1), `1`, kv.ErrBadKey},
		{"control character", kv.Options{}, nil, "a\nb", `1`, kv.ErrBadKey},
		{"invalid utf-8 key", kv.Options{}, nil, "a\xff", `1`, kv.ErrBadKey},
		{"not json", kv.Options{}, nil, "k", `{oops}`, kv.ErrBadValue},
		{"two values", kv.Options{}, nil, "k", `1 2`, kv.ErrBadValue},
		{"empty value", kv.Options{}, nil, "k", ``, kv.ErrBadValue},
		{"value too large", kv.Options{MaxValue: 10}, nil, "k", `"0123456789"`, kv.ErrValueTooLarge},
		{"value at the limit", kv.Options{MaxValue: 12}, nil, "k", `"0123456789"`, nil},
		{"too many keys", kv.Options{MaxKeys: 2}, map[string]string{"a": `1`, "b": `2`}, "c", `3`, kv.ErrTooManyKeys},
		{"replacing at the key limit", kv.Options{MaxKeys: 2}, map[string]string{"a": `1`, "b": `2`}, "b", `3`, nil},
		{"full", kv.Options{MaxTotal: 20}, map[string]string{"a": `"0123456789"`}, "b", `"01234"`, kv.ErrFull},
		{"replacing frees its own bytes", kv.Options{MaxTotal: 20}, map[string]string{"a": `"0123456789"`}, "a", `"0123456789abcde"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, t.TempDir(), tt.opts)
			for k, v := range tt.fill {
				if _, err := s.Put(k, json.RawMessage(v)); err != nil {
					t.Fatal(err)
				}
			}
			before := s.List()
			_, err := s.Put(tt.key, json.RawMessage(tt.value))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if err != nil && len(s.List()) != len(before) {
				t.Errorf("a refused put changed the store")
			}
		})
	}
}

func TestSaveFailureChangesNothing(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, kv.Options{})
	if _, err := s.Put("a", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	// Replace the directory with a file, so no temporary file can be made.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	if _, err := s.Put("b", json.RawMessage(`2`)); err == nil {
		t.Fatal("put with an unwritable directory: got nil, want an error")
	}
	if _, err := s.Put("a", json.RawMessage(`5`)); err == nil {
		t.Fatal("replace with an unwritable directory: got nil, want an error")
	}
	if err := s.Delete("a"); err == nil {
		t.Fatal("delete with an unwritable directory: got nil, want an error")
	}
	if e, err := s.Get("a"); err != nil || string(e.Value) != `1` {
		t.Errorf("got %s, %v; want the old value kept", e.Value, err)
	}
	if _, err := s.Get("b"); !errors.Is(err, kv.ErrNotFound) {
		t.Errorf("got %v, want the failed put undone", err)
	}
}

func TestOpenBrokenFile(t *testing.T) {
	for name, content := range map[string]string{
		"not json":        `{"version":1,"items":`,
		"unknown version": `{"version":9,"items":{}}`,
		"missing value":   `{"version":1,"items":{"k":{}}}`,
		"bad key":         `{"version":1,"items":{"":{"value":1}}}`,
		"too large":       `{"version":1,"items":{"k":{"value":"` + strings.Repeat("x", 4<<20) + `"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), kv.FileName)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := kv.Open(path, kv.Options{MaxTotal: 1 << 20, MaxKeys: 10})
			if err == nil || !strings.Contains(err.Error(), "move it aside") {
				t.Errorf("got %v, want an error saying to move the file aside", err)
			}
		})
	}
}

func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, kv.Options{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				key := "w" + strconv.Itoa(w) + "-" + strconv.Itoa(i)
				if _, err := s.Put(key, json.RawMessage(strconv.Itoa(i))); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Get(key); err != nil {
					t.Error(err)
				}
				s.List()
			}
		}()
	}
	wg.Wait()
	if n := len(open(t, dir, kv.Options{}).List()); n != 100 {
		t.Errorf("after reopening: got %d keys, want 100", n)
	}
}
