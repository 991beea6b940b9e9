// Package output keeps large command results in memory under a byte budget
// and reads them back whole, by character slice, or by query-driven
// extraction, every piece carrying its provenance (character offsets and the
// SHA-256 of the stored content).
//
// All offsets in this package count characters (Unicode code points), never
// bytes, and no operation ever splits a character.
package output

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Defaults of Options.
const (
	DefaultByteBudget     = 256 << 20
	DefaultInlineTokens   = 10000
	DefaultMaxOutputBytes = 10 << 20
	DefaultChunkChars     = 8000
	DefaultMaxSnippets    = 20
	DefaultSliceChars     = 2000
	DefaultCacheEntries   = 256

	// MaxSnippetsLimit is the largest ExtractRequest.MaxSnippets honoured.
	MaxSnippetsLimit = 100
	// MaxQueryChars is the longest extraction query accepted.
	MaxQueryChars = 2000

	previewHead     = 400
	previewTail     = 200
	rememberEvicted = 4096
	minChunkChars   = 20
)

// Errors callers branch on. Returned errors wrap them with the id and with
// what to do next; match them with errors.Is.
var (
	// ErrNotFound: no output was ever stored under the id (or it was
	// forgotten long ago).
	ErrNotFound = errors.New("output not found: check the correlation id, it comes from the command's result")
	// ErrEvicted: the output was stored but dropped to stay under the
	// store's memory budget.
	ErrEvicted = errors.New("output evicted to stay under the memory budget: run the command again for a fresh result")
	// ErrTooLarge: raw mode was asked for an output above the inline threshold.
	ErrTooLarge = errors.New("output too large to return whole: use mode \"slice\" or \"extract\"")
	// ErrAnchorNotFound: a slice anchor, or the requested match of it, does
	// not occur in the output.
	ErrAnchorNotFound = errors.New("anchor not found")
	// ErrBadRequest: the request itself is invalid (missing query, negative
	// length, start past the end, ...).
	ErrBadRequest = errors.New("bad request")
)

// Options configure a Store. Zero (or negative) fields take the defaults in
// parentheses.
type Options struct {
	// ByteBudget bounds the bytes held (256 MiB): content plus each entry's
	// index, handle and bookkeeping, so many tiny outputs are bounded too; the least
	// recently used outputs are evicted beyond it.
	ByteBudget int64
	// InlineTokens is the inline threshold in estimated tokens (10 000):
	// raw is refused above it, and slices and extraction results stay under it.
	InlineTokens int
	// MaxOutputBytes caps one output (10 MiB, never above ByteBudget or 2 GiB);
	// content beyond it is cut at a character boundary and the Handle says so.
	MaxOutputBytes int
	// Tokenizer estimates the tokens of a text (characters/4 rounded up).
	Tokenizer func(string) int
	// Extractor answers Extract (the local extractor, NewLocalExtractor).
	Extractor Extractor
	// Parallelism bounds the chunks processed at once (GOMAXPROCS).
	Parallelism int
	// ChunkChars is the chunk size in characters (8000) for extractors that
	// do not implement ChunkSizer.
	ChunkChars int
	// CacheEntries bounds the extraction result cache (256), LRU.
	CacheEntries int
}

// Handle describes a stored output and the modes that read it. It holds no
// reference to the stored content.
type Handle struct {
	ID              string `json:"id"`
	Chars           int    `json:"chars"`
	Bytes           int    `json:"bytes"`
	EstimatedTokens int    `json:"estimated_tokens"`
	// SHA256 is the hex SHA-256 of the stored content (after truncation).
	SHA256 string `json:"sha256"`
	// Preview is the first 400 characters and, for longer content, the last
	// 200, separated by a line that says how many characters lie between.
	Preview string `json:"preview"`
	// Truncated is true when the output was cut at MaxOutputBytes;
	// OriginalBytes is then its size before the cut.
	Truncated     bool `json:"truncated"`
	OriginalBytes int  `json:"original_bytes,omitempty"`
	// Modes lists the retrieval modes that work: "raw" (under the inline
	// threshold only), "slice" and "extract".
	Modes []string `json:"modes"`
}

// StoreStats is a snapshot of a Store's occupancy.
type StoreStats struct {
	Entries      int   `json:"entries"`
	Bytes        int64 `json:"bytes"`
	Budget       int64 `json:"budget"`
	Evictions    int64 `json:"evictions"`
	CacheEntries int   `json:"cache_entries"`
	CacheHits    int64 `json:"cache_hits"`
}

// Store holds outputs by id under a byte budget, least recently used evicted
// first. It is safe for concurrent use; extraction runs outside its lock on
// immutable content, so a slow extraction never blocks other callers.
type Store struct {
	opts  Options // defaults applied; immutable after New
	local Extractor
	cache *resultCache

	mu        sync.Mutex
	entries   map[string]*list.Element // of *entry; guarded by mu
	lru       *list.List               // front is most recently used; guarded by mu
	bytes     int64                    // content bytes held; guarded by mu
	evictions int64                    // guarded by mu
	evicted   evictedSet               // guarded by mu
}

// entry is one stored output. Its fields never change after Put.
type entry struct {
	id      string
	content string
	idx     runeIndex
	handle  Handle
	cost    int64 // bytes charged to the budget: content, index, handle and bookkeeping
}

// entryOverhead approximates an entry's bookkeeping beyond its strings (the
// entry, its list element and map slot), so that many tiny outputs are
// bounded by the budget too.
const entryOverhead = 512

// ErrExists is returned by Add when an output is already stored under the id.
var ErrExists = errors.New("an output is already stored under this id")

// New returns an empty Store configured by opts.
func New(opts Options) *Store {
	if opts.ByteBudget <= 0 {
		opts.ByteBudget = DefaultByteBudget
	}
	if opts.InlineTokens <= 0 {
		opts.InlineTokens = DefaultInlineTokens
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	opts.MaxOutputBytes = int(min(int64(opts.MaxOutputBytes), opts.ByteBudget, math.MaxInt32))
	if opts.Parallelism <= 0 {
		opts.Parallelism = runtime.GOMAXPROCS(0)
	}
	if opts.ChunkChars <= 0 {
		opts.ChunkChars = DefaultChunkChars
	}
	opts.ChunkChars = max(opts.ChunkChars, minChunkChars)
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = DefaultCacheEntries
	}
	local := NewLocalExtractor()
	if opts.Extractor == nil {
		opts.Extractor = local
	}
	return &Store{
		opts:    opts,
		local:   local,
		cache:   newResultCache(opts.CacheEntries),
		entries: make(map[string]*list.Element),
		lru:     list.New(),
		evicted: newEvictedSet(rememberEvicted),
	}
}

// EstimateTokens estimates the tokens of text with the configured Tokenizer,
// or as its characters divided by 4, rounded up.
func (s *Store) EstimateTokens(text string) int {
	if s.opts.Tokenizer != nil {
		return s.opts.Tokenizer(text)
	}
	return (utf8.RuneCountInString(text) + 3) / 4
}

// tokens is EstimateTokens for a text whose character count is known.
func (s *Store) tokens(text string, chars int) int {
	if s.opts.Tokenizer != nil {
		return s.opts.Tokenizer(text)
	}
	return (chars + 3) / 4
}

// Oversize reports whether text is above the inline threshold, that is
// whether it should be stored and handed back by reference.
func (s *Store) Oversize(text string) bool {
	return s.EstimateTokens(text) > s.opts.InlineTokens
}

// Fits reports whether every text of at most n characters is within the
// inline threshold, so that a caller holding a text no longer than n need
// not make it to ask Oversize: true when the estimate is the default one
// (a token per four characters) and n characters are within it; false
// with a Tokenizer, which may count differently.
func (s *Store) Fits(n int) bool {
	return s.opts.Tokenizer == nil && (n+3)/4 <= s.opts.InlineTokens
}

// InlineTokens returns the inline threshold in estimated tokens.
func (s *Store) InlineTokens() int { return s.opts.InlineTokens }

// Put stores content under id (a correlation id), replacing any output
// already stored under it, and returns its Handle. Content above
// MaxOutputBytes is cut at a character boundary; invalid UTF-8 is replaced
// by U+FFFD first, so what is stored is exactly what a JSON reader sees.
// Storing may evict the least recently used outputs, never this one.
func (s *Store) Put(id string, content string) (Handle, error) {
	return s.put(id, content, true)
}

// Add is Put that never replaces: it fails with ErrExists when an output is
// already stored under id. Callers that store on behalf of an event that may
// be duplicated (a result posted twice) use it, so the first one's content
// and handle stay consistent.
func (s *Store) Add(id string, content string) (Handle, error) {
	return s.put(id, content, false)
}

// Delete drops the output stored under id, if any; a later read gets
// ErrNotFound. It is used to undo an Add whose event was then refused.
func (s *Store) Delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[id]; ok {
		s.removeLocked(el)
	}
}

func (s *Store) put(id string, content string, replace bool) (Handle, error) {
	if id == "" {
		return Handle{}, fmt.Errorf("%w: storing an output needs an id", ErrBadRequest)
	}
	originalBytes := len(content)
	if !utf8.ValidString(content) {
		content = strings.ToValidUTF8(content, "\uFFFD")
	}
	truncated := false
	if len(content) > s.opts.MaxOutputBytes {
		cut := s.opts.MaxOutputBytes
		for cut > 0 && !utf8.RuneStart(content[cut]) {
			cut--
		}
		content = strings.Clone(content[:cut])
		truncated = true
	}

	e := &entry{id: id, content: content, idx: newRuneIndex(content)}
	sum := sha256.Sum256([]byte(content))
	h := Handle{
		ID:              id,
		Chars:           e.idx.n,
		Bytes:           len(content),
		EstimatedTokens: s.tokens(content, e.idx.n),
		SHA256:          hex.EncodeToString(sum[:]),
		Preview:         preview(content, &e.idx),
		Truncated:       truncated,
	}
	if truncated {
		h.OriginalBytes = originalBytes
	}
	if h.EstimatedTokens <= s.opts.InlineTokens {
		h.Modes = []string{"raw", "slice", "extract"}
	} else {
		h.Modes = []string{"slice", "extract"}
	}
	e.handle = h
	e.cost = int64(len(content)+len(h.Preview)+len(h.SHA256)+2*len(id)+4*len(e.idx.marks)) + entryOverhead

	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[id]; ok {
		if !replace {
			return Handle{}, fmt.Errorf("output %q: %w", id, ErrExists)
		}
		s.removeLocked(el)
	}
	s.evicted.forget(id)
	s.entries[id] = s.lru.PushFront(e)
	s.bytes += e.cost
	for s.bytes > s.opts.ByteBudget && s.lru.Len() > 1 {
		old := s.lru.Back()
		s.removeLocked(old)
		s.evicted.add(old.Value.(*entry).id)
		s.evictions++
	}
	return cloneHandle(h), nil
}

func (s *Store) removeLocked(el *list.Element) {
	e := el.Value.(*entry)
	s.lru.Remove(el)
	delete(s.entries, e.id)
	s.bytes -= e.cost
}

// get returns the entry stored under id and marks it most recently used.
func (s *Store) get(id string) (*entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.entries[id]
	if !ok {
		if s.evicted.has(id) {
			return nil, fmt.Errorf("output %q: %w", id, ErrEvicted)
		}
		return nil, fmt.Errorf("output %q: %w", id, ErrNotFound)
	}
	s.lru.MoveToFront(el)
	return el.Value.(*entry), nil
}

// Handle returns the Handle of the output stored under id and marks it most
// recently used.
func (s *Store) Handle(id string) (Handle, error) {
	e, err := s.get(id)
	if err != nil {
		return Handle{}, err
	}
	return cloneHandle(e.handle), nil
}

// Raw returns the whole output stored under id when it is under the inline
// threshold. Above it, Raw returns an error wrapping ErrTooLarge that states
// the size and names the modes that work.
func (s *Store) Raw(id string) (string, error) {
	e, err := s.get(id)
	if err != nil {
		return "", err
	}
	if e.handle.EstimatedTokens > s.opts.InlineTokens {
		return "", fmt.Errorf("output %q holds %d chars (~%d tokens), above the %d-token inline limit: %w (slice: start+length or anchor+window; extract: a query)",
			id, e.handle.Chars, e.handle.EstimatedTokens, s.opts.InlineTokens, ErrTooLarge)
	}
	return e.content, nil
}

// Content returns the whole output stored under id, whatever its size: for
// the MCP resource it is offered as, which the client reads, rather than a
// tool result in the agent's context (see Raw).
func (s *Store) Content(id string) (string, error) {
	e, err := s.get(id)
	if err != nil {
		return "", err
	}
	return e.content, nil
}

// Stats returns a snapshot of the store's occupancy.
func (s *Store) Stats() StoreStats {
	s.mu.Lock()
	st := StoreStats{
		Entries:   len(s.entries),
		Bytes:     s.bytes,
		Budget:    s.opts.ByteBudget,
		Evictions: s.evictions,
	}
	s.mu.Unlock()
	st.CacheEntries, st.CacheHits = s.cache.stats()
	return st
}

func cloneHandle(h Handle) Handle {
	h.Modes = slices.Clone(h.Modes)
	return h
}

// preview returns the head of content and, for long content, its tail. The
// result is a fresh string: it never pins the stored content in memory.
func preview(content string, idx *runeIndex) string {
	if idx.n <= previewHead+previewTail {
		return strings.Clone(content)
	}
	head := content[:idx.byteAt(content, previewHead)]
	tail := content[idx.byteAt(content, idx.n-previewTail):]
	return head + fmt.Sprintf("\n[… %d chars omitted …]\n", idx.n-previewHead-previewTail) + tail
}

// evictedSet remembers the most recently evicted ids, up to a bound, so that
// they get ErrEvicted rather than ErrNotFound.
type evictedSet struct {
	gen  map[string]uint64
	ring []evictedID
	next int
	seq  uint64
}

type evictedID struct {
	id  string
	gen uint64
}

func newEvictedSet(n int) evictedSet {
	return evictedSet{gen: make(map[string]uint64), ring: make([]evictedID, n)}
}

func (e *evictedSet) add(id string) {
	e.seq++
	if old := e.ring[e.next]; old.id != "" && e.gen[old.id] == old.gen {
		delete(e.gen, old.id)
	}
	e.ring[e.next] = evictedID{id: id, gen: e.seq}
	e.gen[id] = e.seq
	e.next = (e.next + 1) % len(e.ring)
}

func (e *evictedSet) has(id string) bool {
	_, ok := e.gen[id]
	return ok
}

func (e *evictedSet) forget(id string) { delete(e.gen, id) }
