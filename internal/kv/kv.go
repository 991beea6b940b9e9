// Package kv is the small key-value store behind configure store/load: JSON
// values under string keys, bounded, saved atomically to one file in the
// state directory so they survive daemon restarts.
package kv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// FileName is the store's file in the state directory.
const FileName = "kv.json"

// Defaults for zero Options fields.
const (
	DefaultMaxKeys  = 1000
	DefaultMaxValue = 64 << 10 // bytes of one compacted JSON value
	DefaultMaxTotal = 4 << 20  // bytes of all keys and values
	// MaxKeyLen is the longest key, in bytes.
	MaxKeyLen = 256
)

// Errors callers branch on; each says what to do next.
var (
	ErrNotFound      = errors.New("no value is stored under this key: list the keys to see what is stored")
	ErrBadKey        = errors.New("invalid key: use 1 to 256 bytes of text without control characters")
	ErrBadValue      = errors.New("invalid value: a value must be JSON (a string, number, object, array, true, false or null)")
	ErrValueTooLarge = errors.New("value too large: store it in smaller pieces under several keys")
	ErrTooManyKeys   = errors.New("too many keys: delete some first")
	ErrFull          = errors.New("store full: delete some values first")
)

// Options bound a Store; zero fields take the defaults.
type Options struct {
	MaxKeys  int
	MaxValue int
	MaxTotal int
}

// Entry is one stored value.
type Entry struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// KeyInfo describes one stored value without it.
type KeyInfo struct {
	Key       string    `json:"key"`
	Bytes     int       `json:"bytes"` // of the compacted JSON value
	UpdatedAt time.Time `json:"updated_at"`
}

// Store is a bounded key-value store persisted to one file. Every change is
// written to disk (a temporary file renamed over the old one, mode 0600)
// before it returns; a change that cannot be written is undone in memory
// too, so memory and disk agree. All methods are safe for concurrent use.
type Store struct {
	path string
	opts Options
	now  func() time.Time

	mu    sync.Mutex
	items map[string]item // guarded by mu
	total int             // bytes of keys and values; guarded by mu
}

type item struct {
	Value     json.RawMessage `json:"value"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// file is the on-disk shape.
type file struct {
	Version int             `json:"version"`
	Items   map[string]item `json:"items"`
}

// Open returns the store saved at path, or an empty one when the file does
// not exist yet (it is created by the first change). It fails when the file
// cannot be read or is not a store, saying how to recover.
func Open(path string, o Options) (*Store, error) {
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if o.MaxValue <= 0 {
		o.MaxValue = DefaultMaxValue
	}
	if o.MaxTotal <= 0 {
		o.MaxTotal = DefaultMaxTotal
	}
	s := &Store{path: path, opts: o, now: time.Now, items: map[string]item{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening the key-value store: %w", err)
	}
	defer f.Close()
	// A file written by this package is at most MaxTotal plus the
	// encoding's overhead per key.
	limit := int64(2*o.MaxTotal + 256*o.MaxKeys + 1<<20)
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the key-value store %s: %w", path, err)
	}
	broken := func(why string) error {
		return fmt.Errorf("the key-value store %s is %s; move it aside to start with an empty store", path, why)
	}
	if int64(len(b)) > limit {
		return nil, broken(fmt.Sprintf("larger than %d bytes", limit))
	}
	var fl file
	if err := json.Unmarshal(b, &fl); err != nil {
		return nil, broken("not valid JSON (" + err.Error() + ")")
	}
	if fl.Version != 1 {
		return nil, broken(fmt.Sprintf("of an unknown version %d", fl.Version))
	}
	for k, it := range fl.Items {
		if checkKey(k) != nil || !json.Valid(it.Value) {
			return nil, broken(fmt.Sprintf("holding an invalid entry %.60q", k))
		}
		s.items[k] = it
		s.total += len(k) + len(it.Value)
	}
	return s, nil
}

func checkKey(k string) error {
	if k == "" || len(k) > MaxKeyLen || !utf8.ValidString(k) || strings.ContainsFunc(k, unicode.IsControl) {
		return ErrBadKey
	}
	return nil
}

// Put stores value (any JSON, kept compacted) under key, replacing what was
// there, and saves the store. It fails with ErrBadKey, ErrBadValue,
// ErrValueTooLarge, ErrTooManyKeys, ErrFull, or an error saving the file (the
// store is then unchanged).
func (s *Store) Put(key string, value json.RawMessage) (KeyInfo, error) {
	if err := checkKey(key); err != nil {
		return KeyInfo{}, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, value); err != nil || len(value) == 0 {
		return KeyInfo{}, ErrBadValue
	}
	v := json.RawMessage(buf.Bytes())
	if len(v) > s.opts.MaxValue {
		return KeyInfo{}, fmt.Errorf("%w (%d bytes, the limit is %d)", ErrValueTooLarge, len(v), s.opts.MaxValue)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed := s.items[key]
	if !existed && len(s.items) >= s.opts.MaxKeys {
		return KeyInfo{}, fmt.Errorf("%w (the limit is %d keys)", ErrTooManyKeys, s.opts.MaxKeys)
	}
	total := s.total + len(key) + len(v)
	if existed {
		total -= len(key) + len(old.Value)
	}
	if total > s.opts.MaxTotal {
		return KeyInfo{}, fmt.Errorf("%w (%d bytes stored, the limit is %d)", ErrFull, s.total, s.opts.MaxTotal)
	}
	it := item{Value: v, UpdatedAt: s.now().UTC()}
	s.items[key] = it
	if err := s.saveLocked(); err != nil {
		if existed {
			s.items[key] = old
		} else {
			delete(s.items, key)
		}
		return KeyInfo{}, err
	}
	s.total = total
	return KeyInfo{Key: key, Bytes: len(v), UpdatedAt: it.UpdatedAt}, nil
}

// Get returns the value under key, or ErrNotFound.
func (s *Store) Get(key string) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[key]
	if !ok {
		return Entry{}, fmt.Errorf("%w: %.80q", ErrNotFound, key)
	}
	return Entry{Key: key, Value: slices.Clone(it.Value), UpdatedAt: it.UpdatedAt}, nil
}

// Delete removes key and saves the store. Deleting a missing key fails with
// ErrNotFound and changes nothing.
func (s *Store) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[key]
	if !ok {
		return fmt.Errorf("%w: %.80q", ErrNotFound, key)
	}
	delete(s.items, key)
	if err := s.saveLocked(); err != nil {
		s.items[key] = it
		return err
	}
	s.total -= len(key) + len(it.Value)
	return nil
}

// List describes every stored value, sorted by key.
func (s *Store) List() []KeyInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]KeyInfo, 0, len(s.items))
	for k, it := range s.items {
		out = append(out, KeyInfo{Key: k, Bytes: len(it.Value), UpdatedAt: it.UpdatedAt})
	}
	slices.SortFunc(out, func(a, b KeyInfo) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// saveLocked writes the store to a temporary file in the same directory,
// syncs it and renames it over the store's file, so a crash leaves either
// the old or the new file whole. s.mu must be held.
func (s *Store) saveLocked() error {
	b, err := json.Marshal(file{Version: 1, Items: s.items})
	if err != nil {
		return fmt.Errorf("encoding the key-value store: %w", err)
	}
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, ".kv-*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("saving the key-value store: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(b); err != nil {
		return fmt.Errorf("saving the key-value store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("saving the key-value store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving the key-value store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("saving the key-value store: %w", err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}
