// Package capture buffers what the extension captures in the user's tabs
// (console logs, errors, network requests, user actions, navigations, web
// vitals and tab state) and answers filtered, paginated, token-bounded
// queries over it for the observe tool.
package capture

import (
	"container/list"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// Kind is the kind of a buffered entry; each kind has its own ring.
type Kind string

// The buffered kinds. "tab" events update the tab table instead of a ring.
const (
	KindLog     Kind = "log"
	KindError   Kind = "error"
	KindNetwork Kind = "network"
	KindAction  Kind = "action"
	KindNav     Kind = "nav"
	KindVital   Kind = "vital"
	// KindWebSocket entries are a WebSocket's life and frames (websocket.go);
	// network's capture switch governs them.
	KindWebSocket Kind = "websocket"
)

// Kinds lists the buffered kinds in a fixed order.
var Kinds = []Kind{KindLog, KindError, KindNetwork, KindAction, KindNav, KindVital, KindWebSocket}

const numKinds = 7

// index returns k's position in Kinds, or -1.
func (k Kind) index() int {
	switch k {
	case KindLog:
		return 0
	case KindError:
		return 1
	case KindNetwork:
		return 2
	case KindAction:
		return 3
	case KindNav:
		return 4
	case KindVital:
		return 5
	case KindWebSocket:
		return 6
	}
	return -1
}

// ParseKind returns the Kind named s, or an error naming the kinds.
func ParseKind(s string) (Kind, error) {
	k := Kind(s)
	if k.index() < 0 {
		return "", fmt.Errorf("%w: unknown kind %q: use log, error, network, action, nav or vital", ErrBadFilter, s)
	}
	return k, nil
}

// Defaults for zero Options fields.
const (
	DefaultMaxEntries      = 5000
	DefaultMaxBytes        = 8 << 20
	DefaultNetworkMaxBytes = 32 << 20 // network entries carry bodies
	DefaultPageTokens      = 8000
	DefaultMergeWindow     = 10 * time.Second
	DefaultBodyCap         = 256 << 10
	// MaxBodyCap is the largest body cap Configure accepts: a body never
	// travels in a batch larger than apitype.MaxEventsBody anyway.
	MaxBodyCap = 512 << 10
	// MaxTabs bounds the tab table; the least recently seen tab is forgotten
	// first.
	MaxTabs = 1000
)

// Limit bounds one kind's ring; zero fields take the defaults.
type Limit struct {
	MaxEntries int
	MaxBytes   int64 // estimated bytes of the stored entries
}

// Options configure a Store; zero fields take the defaults.
type Options struct {
	// Limits overrides the ring bounds per kind. Kinds not listed get
	// DefaultMaxEntries and DefaultMaxBytes (DefaultNetworkMaxBytes for
	// network).
	Limits map[Kind]Limit
	// PageTokens bounds every rendered page (chars/4); entries are clipped,
	// then dropped from the page, to fit.
	PageTokens int
	// MergeWindow is how far apart a "page" and a "browser" network event
	// of the same request may arrive and still be merged.
	MergeWindow time.Duration
	// RedactHeaders are header names redacted besides SecretHeaders,
	// patterns like theirs.
	RedactHeaders []string
	// Now is the clock for arrival times (merging, tab last-seen, events
	// without ts); nil means time.Now.
	Now func() time.Time
	// OnWait, if set, is called each time a Wait is about to block, without
	// the store's lock: a test hook, so that a test can send what a waiter
	// waits for once it waits rather than after a sleep.
	OnWait func()
}

// Errors callers branch on. Each says what to do next.
var (
	ErrClosed        = errors.New("capture store closed: the daemon is shutting down")
	ErrNotBatch      = errors.New(`body is not an event batch: send {"dropped": {...}, "dropped_by_tab": {...}, "events": [...]}`)
	ErrBatchTooLarge = errors.New("event batch too large: split it into smaller batches")
	ErrBadFilter     = errors.New("invalid filter")
	ErrUnknownEntry  = errors.New("no buffered entry has this id (evicted, cleared or never captured): list the entries again for current ids")
	ErrNoBody        = errors.New("no body was captured for this request")
	ErrBodyPending   = errors.New("the body is still being read by the page")
	ErrBodyNotKept   = errors.New("the body was not kept")
	ErrBadRule       = errors.New("invalid noise rule")
	ErrUnknownRule   = errors.New("no noise rule has this id: list the rules for current ids")
	ErrTooManyRules  = errors.New("too many noise rules: remove some first")
	ErrBadConfig     = errors.New("invalid capture setting")
	ErrNoTab         = errors.New("no tab known: the extension has reported no tab yet (is it paired and capturing?)")
	ErrUnknownTab    = errors.New("no tab with this id is known: list tabs for current ids")
)

// ErrSendsNoBody is the ErrNoBody of the request part of a request that
// sends no body (a GET, a HEAD, a Content-Length of 0), lean or not.
var ErrSendsNoBody = fmt.Errorf("%w: the request sends none", ErrNoBody)

// Store holds the capture buffers: one ring per kind bounded by entry count
// and estimated bytes (oldest evicted first, and counted as dropped), the tab
// table, the noise rules and the capture settings. Every entry gets a
// sequence number, increasing across kinds, that serves as the cursor.
// Create one with New; all methods are safe for concurrent use. Wait blocks
// until ctx ends or Close is called. Its lock is its own (never the
// tracker's).
type Store struct {
	opts Options // defaults applied
	now  func() time.Time

	mu     sync.Mutex
	closed bool                // guarded by mu
	seq    uint64              // last sequence number assigned; guarded by mu
	rings  [numKinds]*ring     // by Kind.index; guarded by mu
	tabs   map[int64]*tabState // by tab id; guarded by mu
	rules  []*noiseRule        // in creation order; guarded by mu
	ruleID int                 // last rule number; guarded by mu
	cfg    settings            // guarded by mu
	merge  mergeIndex          // network entries waiting for their other half; guarded by mu
	// pending maps requests whose bodies are still coming to their entry's
	// sequence number and arrival; guarded by mu.
	pending map[bodyKey]pendingBody
	// ws is the table of WebSocket connections; guarded by mu.
	ws wsTable
	// batches holds the ids of the batches stored lately, so that a batch
	// posted again is stored once; guarded by mu.
	batches recentBatches
	// notify is created by a blocked Wait and closed (and cleared) when
	// entries are stored or Close is called; guarded by mu.
	notify chan struct{}
	// frames is what the extension last said about iframe capture (frames.go); guarded by mu.
	frames Frames
	// held is what the extension last said it holds (held.go); guarded by mu.
	held heldReport
	// lean holds what the store knows of each tab's current top document
	// (lean.go), for at most MaxTabs tabs; guarded by mu.
	lean map[int64]leanState
	// leanSeen counts what lean learned, to forget the oldest first;
	// guarded by mu.
	leanSeen uint64
}

// settings are the capture settings served by GET /capture/config.
type settings struct {
	version int64
	redact  bool
	secrets *Secrets // which headers redact redacts; set once by New
	bodyCap int
	off     [numKinds]bool // capture switched off per kind
}

// New returns an empty Store configured by opts.
func New(opts Options) *Store {
	if opts.PageTokens <= 0 {
		opts.PageTokens = DefaultPageTokens
	}
	if opts.MergeWindow <= 0 {
		opts.MergeWindow = DefaultMergeWindow
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Store{
		opts:    opts,
		now:     opts.Now,
		tabs:    make(map[int64]*tabState),
		pending: make(map[bodyKey]pendingBody),
		lean:    make(map[int64]leanState),
		cfg:     settings{version: 1, redact: true, secrets: NewSecrets(opts.RedactHeaders), bodyCap: DefaultBodyCap},
		ws:      wsTable{byKey: make(map[wsKey]*wsConn)},
		merge: mergeIndex{
			byKey: make(map[mergeKey][]*list.Element),
			order: list.New(),
		},
	}
	for i, k := range Kinds {
		l := opts.Limits[k]
		if l.MaxEntries <= 0 {
			l.MaxEntries = DefaultMaxEntries
		}
		if l.MaxBytes <= 0 {
			l.MaxBytes = DefaultMaxBytes
			if k == KindNetwork {
				l.MaxBytes = DefaultNetworkMaxBytes
			}
		}
		s.rings[i] = newRing(l)
	}
	return s
}

// Close wakes every blocked Wait, which returns ErrClosed; later Waits and
// ingests fail with ErrClosed too. Reads keep working. Close may be called
// more than once.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.wakeLocked()
}

// wakeLocked wakes blocked Waits. s.mu must be held.
func (s *Store) wakeLocked() {
	if s.notify != nil {
		close(s.notify)
		s.notify = nil
	}
}

// KindStats describes one ring.
type KindStats struct {
	Kind       Kind  `json:"kind"`
	Entries    int   `json:"entries"`
	Bytes      int64 `json:"bytes"`
	MaxEntries int   `json:"max_entries"`
	MaxBytes   int64 `json:"max_bytes"`
	// Dropped counts entries lost for this kind: evicted by the daemon, plus
	// the extension's reported losses, since start or the last Clear of the
	// whole kind.
	Dropped int64 `json:"dropped"`
}

// Stats is a snapshot of the store's size.
type Stats struct {
	Seq        uint64      `json:"seq"` // the newest sequence number assigned
	Kinds      []KindStats `json:"kinds"`
	Tabs       int         `json:"tabs"`
	NoiseRules int         `json:"noise_rules"`
}

// Stats returns the current sizes and counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Seq: s.seq, Tabs: len(s.tabs), NoiseRules: len(s.rules)}
	for i, k := range Kinds {
		r := s.rings[i]
		st.Kinds = append(st.Kinds, KindStats{Kind: k, Entries: r.n, Bytes: r.bytes,
			MaxEntries: r.limit.MaxEntries, MaxBytes: r.limit.MaxBytes, Dropped: r.dropped})
	}
	return st
}

// Clear removes the buffered entries of kind ("" for every kind) and of the
// tab tabID (nil for every tab), and returns how many it removed. Clearing a
// kind for every tab also resets its dropped counter. Removed entries are
// gone for good (noise rules, by contrast, only hide).
func (s *Store) Clear(kind Kind, tabID *int64) (int, error) {
	if kind != "" && kind.index() < 0 {
		return 0, fmt.Errorf("%w: unknown kind %q: use log, error, network, action, nav or vital, or none for all", ErrBadFilter, kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := 0
	for i, k := range Kinds {
		if kind != "" && k != kind {
			continue
		}
		r := s.rings[i]
		removed += r.removeIf(func(e *entry) bool { return tabID == nil || e.tab == *tabID },
			func(e *entry) { s.merge.remove(e) })
		if tabID == nil {
			r.resetDropped()
		}
	}
	if kind == "" || kind == KindWebSocket {
		s.forgetWSLocked(tabID)
	}
	return removed, nil
}

// Config returns the capture settings as GET /capture/config serves them.
func (s *Store) Config() apitype.CaptureConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.wire()
}

func (c settings) wire() apitype.CaptureConfig {
	out := apitype.CaptureConfig{Version: c.version, RedactHeaders: c.redact, RedactNames: c.secrets.Extra(), BodyCap: c.bodyCap,
		Kinds: make(map[string]bool, numKinds)}
	for i, k := range Kinds {
		if k != KindWebSocket { // network's switch is the WebSockets'
			out.Kinds[string(k)] = !c.off[i]
		}
	}
	return out
}

// Settings is a change to the capture settings; nil and absent fields keep
// their value.
type Settings struct {
	RedactHeaders *bool
	BodyCap       *int          // bytes, 0 to MaxBodyCap; 0 captures no bodies
	Kinds         map[Kind]bool // capture on or off per kind
}

// Configure applies u and returns the resulting settings. The version grows
// only when something changed, so the extension re-reads the settings only
// then. An invalid u changes nothing. Entries already buffered keep what they
// were captured with.
func (s *Store) Configure(u Settings) (apitype.CaptureConfig, error) {
	if u.BodyCap != nil && (*u.BodyCap < 0 || *u.BodyCap > MaxBodyCap) {
		return apitype.CaptureConfig{}, fmt.Errorf("%w: body_cap %d is out of range: use 0 (no bodies) to %d bytes", ErrBadConfig, *u.BodyCap, MaxBodyCap)
	}
	for k := range u.Kinds {
		if k.index() < 0 {
			return apitype.CaptureConfig{}, fmt.Errorf("%w: unknown kind %q: use log, error, network, action, nav or vital", ErrBadConfig, k)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.cfg
	if u.RedactHeaders != nil {
		next.redact = *u.RedactHeaders
	}
	if u.BodyCap != nil {
		next.bodyCap = *u.BodyCap
	}
	for k, on := range u.Kinds {
		next.off[k.index()] = !on
	}
	if next != s.cfg {
		next.version++
		s.cfg = next
	}
	return s.cfg.wire(), nil
}
