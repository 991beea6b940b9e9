// Package annotate holds draw-mode sessions (seed 004): what the user marked
// on the page, as the extension posts it to /draw-mode/complete, checked and
// capped, kept in a store bounded by count and bytes.
package annotate

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits on one posted session. Every field is capped so that a session,
// inlined in a command result, stays far under a tool response's 10 000
// tokens.
const (
	MaxItems     = 20   // annotations per session (max_items' ceiling)
	MaxNote      = 500  // characters of a note
	MaxText      = 200  // characters of an element's text, name, selector, ...
	MaxStyles    = 8    // computed styles per element
	MaxURL       = 2000 // characters of the page url
	MaxReason    = 200  // characters of a cancellation reason
	MaxSessions  = 50   // sessions a Store keeps
	MaxStoreSize = 1 << 20
)

// Rect is a rectangle in CSS pixels of the viewport at the time of drawing.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Element describes the element under an annotation.
type Element struct {
	Selector string            `json:"selector,omitempty"`
	Ref      string            `json:"ref,omitempty"`
	Role     string            `json:"role,omitempty"`
	Name     string            `json:"name,omitempty"`
	Tag      string            `json:"tag,omitempty"`
	Text     string            `json:"text,omitempty"`
	Styles   map[string]string `json:"styles,omitempty"`
}

// Annotation is one mark the user made. A post carries its cropped
// screenshot as Crop; the session, once KeepCrops stored it, as Screenshot.
// ScreenshotError says why an annotation has none.
type Annotation struct {
	Note            string      `json:"note"`
	Rect            Rect        `json:"rect"`
	Element         *Element    `json:"element,omitempty"`
	Crop            *Crop       `json:"crop,omitempty"`
	Screenshot      *Screenshot `json:"screenshot,omitempty"`
	ScreenshotError string      `json:"screenshot_error,omitempty"`
}

// Viewport is the page's viewport and scroll position when Done was pressed.
type Viewport struct {
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	ScrollX float64 `json:"scroll_x,omitempty"`
	ScrollY float64 `json:"scroll_y,omitempty"`
}

// Post is the body of POST /draw-mode/complete: the annotations of a
// finished session, or its cancellation.
type Post struct {
	CorrelationID string       `json:"correlation_id"`
	Cancelled     bool         `json:"cancelled,omitempty"`
	Reason        string       `json:"reason,omitempty"`
	URL           string       `json:"url,omitempty"`
	Title         string       `json:"title,omitempty"`
	Viewport      Viewport     `json:"viewport"`
	Annotations   []Annotation `json:"annotations"`
}

// Session is a finished session as the agent reads it.
type Session struct {
	CorrelationID string       `json:"correlation_id"`
	URL           string       `json:"url"`
	Title         string       `json:"title,omitempty"`
	Viewport      Viewport     `json:"viewport"`
	Count         int          `json:"count"`
	Annotations   []Annotation `json:"annotations"`
	FinishedAt    time.Time    `json:"finished_at"`
}

// Check validates p and caps its free text in place. It returns an error
// saying what is wrong for what cannot be capped (a missing id, too many
// annotations, a malformed rectangle). A bad crop is dropped, not an
// error: its annotation says why (checkCrops).
func (p *Post) Check() error {
	if !strings.HasPrefix(p.CorrelationID, "ann_") || len(p.CorrelationID) > 64 {
		return fmt.Errorf("correlation_id %q is not a draw-mode id (ann_…)", clip(p.CorrelationID, 64))
	}
	p.Reason = clip(p.Reason, MaxReason)
	if p.Cancelled {
		return nil
	}
	if len(p.Annotations) > MaxItems {
		return fmt.Errorf("%d annotations; at most %d are accepted", len(p.Annotations), MaxItems)
	}
	p.URL, p.Title = clip(p.URL, MaxURL), clip(p.Title, MaxText)
	if bad(p.Viewport.Width) || bad(p.Viewport.Height) || bad(p.Viewport.ScrollX) || bad(p.Viewport.ScrollY) {
		return fmt.Errorf("viewport has a negative or non-finite size or scroll")
	}
	for i := range p.Annotations {
		a := &p.Annotations[i]
		a.Note = clip(a.Note, MaxNote)
		r := a.Rect
		if bad(r.Width) || bad(r.Height) || r.X != r.X || r.Y != r.Y || abs(r.X) > 1e7 || abs(r.Y) > 1e7 {
			return fmt.Errorf("annotation %d: rect must have finite x, y and a non-negative width and height", i+1)
		}
		if e := a.Element; e != nil {
			e.Selector, e.Ref, e.Role, e.Name = clip(e.Selector, MaxText), clip(e.Ref, 32), clip(e.Role, 64), clip(e.Name, MaxText)
			e.Tag, e.Text = clip(e.Tag, 32), clip(e.Text, MaxText)
			styles := map[string]string{}
			for k, v := range e.Styles {
				if len(styles) == MaxStyles {
					break
				}
				styles[clip(k, 40)] = clip(v, 100)
			}
			e.Styles = styles
			if len(styles) == 0 {
				e.Styles = nil
			}
		}
	}
	if p.Annotations == nil {
		p.Annotations = []Annotation{}
	}
	p.checkCrops()
	return nil
}

func bad(f float64) bool { return f != f || f < 0 || f > 1e7 }

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Store keeps finished sessions, newest last, bounded by count and by the
// bytes of their encodings (oldest evicted first). Its methods are safe for
// concurrent use.
type Store struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	size     int
	entries  []entry
	// readEarly holds sessions read before they were added: the daemon
	// completes a session (which wakes its waiters) before it adds it here,
	// so the agent's read can come first. At most max ids.
	readEarly []string
}

type entry struct {
	client string
	read   bool
	s      Session
	bytes  int
}

// NewStore returns a store keeping at most max sessions and maxBytes of
// them (0: MaxSessions, MaxStoreSize).
func NewStore(max, maxBytes int) *Store {
	if max <= 0 {
		max = MaxSessions
	}
	if maxBytes <= 0 {
		maxBytes = MaxStoreSize
	}
	return &Store{max: max, maxBytes: maxBytes}
}

// Add keeps s, finished for client, and returns its encoding.
func (st *Store) Add(client string, s Session) json.RawMessage {
	b, _ := json.Marshal(s)
	st.mu.Lock()
	defer st.mu.Unlock()
	read := false
	for i, id := range st.readEarly {
		if id == s.CorrelationID {
			read = true
			st.readEarly = append(st.readEarly[:i], st.readEarly[i+1:]...)
			break
		}
	}
	st.entries = append(st.entries, entry{client: client, s: s, bytes: len(b), read: read})
	st.size += len(b)
	for len(st.entries) > 1 && (len(st.entries) > st.max || st.size > st.maxBytes) {
		st.size -= st.entries[0].bytes
		st.entries = st.entries[1:]
	}
	return b
}

// MarkRead records that the session id was read by its agent, also when
// it has not been added yet.
func (st *Store) MarkRead(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := range st.entries {
		if st.entries[i].s.CorrelationID == id {
			st.entries[i].read = true
			return
		}
	}
	st.readEarly = append(st.readEarly, id)
	if len(st.readEarly) > st.max {
		st.readEarly = st.readEarly[1:]
	}
}

// TakeUnread returns client's newest unread session, marking it read.
func (st *Store) TakeUnread(client string) (Session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.entries) - 1; i >= 0; i-- {
		if e := &st.entries[i]; e.client == client && !e.read {
			e.read = true
			return e.s, true
		}
	}
	return Session{}, false
}

// Latest returns client's newest session, read or not, marking it read.
// Another client's sessions are not client's to read, as their crops are
// not (result.Keeper.Owns).
func (st *Store) Latest(client string) (Session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.entries) - 1; i >= 0; i-- {
		if e := &st.entries[i]; e.client == client {
			e.read = true
			return e.s, true
		}
	}
	return Session{}, false
}

// Len and Bytes report what the store holds.
func (st *Store) Len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.entries)
}

// Bytes is the size of the sessions kept, encoded.
func (st *Store) Bytes() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.size
}
