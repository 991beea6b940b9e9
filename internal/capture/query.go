package capture

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Page sizes.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Filter selects the entries of one kind. Empty fields select everything.
type Filter struct {
	Kind Kind // required
	// Also lists more kinds read with Kind, merged in sequence order into
	// one timeline (observe actions reads actions with navigations). The
	// level, method and status filters, and ErrorGroups, take one kind.
	Also  []Kind
	TabID *int64 // only this tab's entries (-1: entries from outside any tab)
	// Tabs, when non-nil, keeps only the entries of these tabs (empty: none);
	// ExceptTabs drops the entries of its tabs; with TabID all apply.
	// observe scopes an agent's reads with them.
	Tabs       []int64
	ExceptTabs []int64
	// MinLevel keeps logs at this level or above (debug < info = log <
	// warn < error); Level keeps logs of exactly this level. Logs only.
	MinLevel string
	Level    string
	// Text is a substring, ignoring ASCII case, of the entry's text: a log's
	// message and source; an error's message, source and resource URL; a
	// request's URL and network error; an action's selector, name, text and
	// value; a navigation's from and to; a vital's name.
	Text string
	// URL is a substring, ignoring ASCII case, of the entry's URL: a
	// request's URL; a navigation's from or to; an error's resource URL or
	// page URL; else the page URL.
	URL string
	// Method and Status select requests (network only): Method exactly,
	// ignoring case; Status is a code ("500"), a class ("4xx"), a
	// comparison (">=400", ">399", "<=299", "<300"), a range ("400-499"),
	// or "failed" (no response, or a network error).
	Method string
	Status string
	// Conn keeps the events of one WebSocket connection, by its id
	// (WSConn.ID); websocket entries only.
	Conn uint64
	// Since is the cursor: nil reads the newest Limit entries; a value reads
	// the entries after it, oldest first (0 reads from the oldest buffered).
	Since *uint64
	// Limit is the page size: 0 means DefaultLimit, at most MaxLimit.
	Limit int
}

// Page is one page of entries, oldest first.
type Page struct {
	Entries []View `json:"entries"`
	// NextCursor is the Since of the next read: with HasMore it continues
	// this page, else it returns only entries stored after this read.
	NextCursor uint64 `json:"next_cursor"`
	// HasMore says more matching entries follow NextCursor (a read with
	// Since only).
	HasMore bool `json:"has_more"`
	// Earlier says older matching entries exist than this page shows (a
	// read without Since returns the newest); Since 0 reads from the oldest.
	Earlier bool `json:"earlier,omitempty"`
	// Dropped counts the kind's entries lost since start or the last Clear
	// (evicted by the daemon, or lost before reaching it) that this read
	// could have returned: a read of some tabs counts only those tabs', and
	// the losses of no known tab.
	Dropped int64 `json:"dropped"`
	// DroppedTabUnknown says how many of Dropped are of no known tab (the
	// extension could not name it, or past the tabs the daemon tells
	// apart), so they may not be this read's.
	DroppedTabUnknown int64 `json:"dropped_tab_unknown,omitempty"`
	// Missed says entries after Since that this read could have returned
	// were evicted before it.
	Missed bool `json:"missed,omitempty"`
	// Hidden counts the matching entries in the range read that noise rules
	// hid.
	Hidden int `json:"hidden,omitempty"`
	// Lean says what this read lacks because pages were loaded while no
	// agent was at work (lean.go): the bodies of the requests listed that
	// came from them, or a vitals read's tabs whose page is lean now.
	Lean string `json:"lean,omitempty"`
}

// matcher is a validated Filter.
type matcher struct {
	kind    Kind
	rings   []int // by Kind.index: Kind's, then Also's
	tab     *int64
	tabs    []int64 // nil: any
	except  []int64
	minRank int // -1: any
	level   string
	text    string // lower case
	url     string // lower case
	method  string // upper case
	status  *statusRange
	conn    uint64
	limit   int
}

var levelRank = map[string]int{"debug": 0, "info": 1, "log": 1, "warn": 2, "error": 3}

func (f Filter) compile() (*matcher, error) {
	m := &matcher{kind: f.Kind, tab: f.TabID, tabs: slices.Clone(f.Tabs), except: slices.Clone(f.ExceptTabs), minRank: -1, level: f.Level,
		text: strings.ToLower(f.Text), url: strings.ToLower(f.URL), method: strings.ToUpper(f.Method), limit: f.Limit}
	for _, k := range append([]Kind{f.Kind}, f.Also...) {
		i := k.index()
		if i < 0 {
			return nil, fmt.Errorf("%w: unknown kind %q: use log, error, network, action, nav, vital or websocket", ErrBadFilter, k)
		}
		if !slices.Contains(m.rings, i) {
			m.rings = append(m.rings, i)
		}
	}
	if f.MinLevel != "" || f.Level != "" {
		if f.Kind != KindLog || len(m.rings) > 1 {
			return nil, fmt.Errorf("%w: min_level and level filter logs only; drop them for %s entries", ErrBadFilter, f.Kind)
		}
		for _, l := range []string{f.MinLevel, f.Level} {
			if _, ok := levelRank[l]; l != "" && !ok {
				return nil, fmt.Errorf("%w: level %q is not one of %s", ErrBadFilter, clipReason(l), strings.Join(logLevels, ", "))
			}
		}
		if f.MinLevel != "" {
			m.minRank = levelRank[f.MinLevel]
		}
	}
	if f.Method != "" || f.Status != "" {
		if f.Kind != KindNetwork || len(m.rings) > 1 {
			return nil, fmt.Errorf("%w: method and status filter network requests only; drop them for %s entries", ErrBadFilter, f.Kind)
		}
		if f.Status != "" {
			st, err := parseStatus(f.Status)
			if err != nil {
				return nil, err
			}
			m.status = &st
		}
	}
	if f.Conn != 0 {
		if f.Kind != KindWebSocket || len(m.rings) > 1 {
			return nil, fmt.Errorf("%w: conn filters websocket entries only; drop it for %s entries", ErrBadFilter, f.Kind)
		}
		m.conn = f.Conn
	}
	if len(f.Text) > maxFilterString || len(f.URL) > maxFilterString || len(f.Method) > maxMethod {
		return nil, fmt.Errorf("%w: text and url are at most %d bytes, method %d", ErrBadFilter, maxFilterString, maxMethod)
	}
	switch {
	case f.Limit == 0:
		m.limit = DefaultLimit
	case f.Limit < 0 || f.Limit > MaxLimit:
		return nil, fmt.Errorf("%w: limit %d is out of range: use 1 to %d (default %d)", ErrBadFilter, f.Limit, MaxLimit, DefaultLimit)
	}
	return m, nil
}

// readsTab says the filter's tab fields let tab's entries through.
func (m *matcher) readsTab(tab int64) bool {
	if m.tab != nil && tab != *m.tab || m.tabs != nil && !slices.Contains(m.tabs, tab) {
		return false
	}
	return !slices.Contains(m.except, tab)
}

// tabScope is readsTab, or nil when the filter reads every tab.
func (m *matcher) tabScope() func(int64) bool {
	if m.tab == nil && m.tabs == nil && len(m.except) == 0 {
		return nil
	}
	return m.readsTab
}

func (m *matcher) match(e *entry) bool {
	if !m.readsTab(e.tab) {
		return false
	}
	switch r := e.rec.(type) {
	case *logRec:
		if m.level != "" && r.level != m.level {
			return false
		}
		if m.minRank >= 0 && levelRank[r.level] < m.minRank {
			return false
		}
	case *netRec:
		if m.method != "" && r.method != m.method {
			return false
		}
		if m.status != nil && !m.status.match(r) {
			return false
		}
	case *wsRec:
		if m.conn != 0 && r.conn != m.conn {
			return false
		}
	}
	if m.text != "" && !anyText(e, func(s string) bool { return containsFold(s, m.text) }) {
		return false
	}
	if m.url != "" && !anyURL(e, func(s string) bool { return containsFold(s, m.url) }) {
		return false
	}
	return true
}

// statusRange selects requests by status: lo <= status <= hi, or, with
// failed, requests without a response or with a network error.
type statusRange struct {
	lo, hi int
	failed bool
}

func (r statusRange) match(n *netRec) bool {
	if r.failed {
		return n.status == 0 || n.err != ""
	}
	return r.lo <= n.status && n.status <= r.hi
}

// parseStatus parses a Filter.Status.
func parseStatus(s string) (statusRange, error) {
	bad := fmt.Errorf(`%w: status %q: use a code ("500"), a class ("4xx"), a comparison (">=400", "<300"), a range ("400-499") or "failed"`, ErrBadFilter, clipReason(s))
	s = strings.ToLower(strings.TrimSpace(s))
	code := func(v string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		return n, err == nil && n >= 0 && n <= 999 && !strings.HasPrefix(strings.TrimSpace(v), "+")
	}
	switch {
	case s == "failed":
		return statusRange{failed: true}, nil
	case len(s) == 3 && s[1:] == "xx" && s[0] >= '1' && s[0] <= '5':
		lo := int(s[0]-'0') * 100
		return statusRange{lo: lo, hi: lo + 99}, nil
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		rest, ok := strings.CutPrefix(s, op)
		if !ok {
			continue
		}
		n, ok := code(rest)
		if !ok {
			return statusRange{}, bad
		}
		switch op {
		case ">=":
			return statusRange{lo: n, hi: 999}, nil
		case "<=":
			return statusRange{lo: 0, hi: n}, nil
		case ">":
			return statusRange{lo: n + 1, hi: 999}, nil
		default:
			return statusRange{lo: 0, hi: n - 1}, nil
		}
	}
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, ok1 := code(a)
		hi, ok2 := code(b)
		if !ok1 || !ok2 || lo > hi {
			return statusRange{}, bad
		}
		return statusRange{lo: lo, hi: hi}, nil
	}
	n, ok := code(s)
	if !ok {
		return statusRange{}, bad
	}
	return statusRange{lo: n, hi: n}, nil
}

// collected is a read taken under the lock, rendered after it.
type collected struct {
	entries []entry // copies, oldest first
	tail    bool    // read without a cursor
	more    bool    // HasMore (with a cursor) or Earlier (without)
	next    uint64
	dropped int64
	unknown int64 // dropped from no known tab
	missed  bool
	hidden  int
	// leanNow are, for a vitals read, the tabs it covers whose page is
	// lean now.
	leanNow []int64
	vitals  bool // a vitals read
	// leanPages says, by sequence number, what the store knows now of the
	// pages of the tabs the lean requests read came from.
	leanPages map[uint64]pageNow
}

// collectLocked reads up to limit entries m selects: after *since, or the
// newest when since is nil. s.mu must be held.
func (s *Store) collectLocked(m *matcher, since *uint64, limit int) collected {
	c := collected{tail: since == nil}
	buffered := 0
	var evicted uint64 // the highest sequence number lost from what m reads
	for _, i := range m.rings {
		n, unknown, last := s.rings[i].losses(m.tabScope())
		c.dropped += n
		c.unknown += unknown
		evicted = max(evicted, last)
		buffered += s.rings[i].n
	}
	c.entries = make([]entry, 0, min(limit, buffered))
	take := func(e *entry) bool { // false when the page is full
		if !m.match(e) {
			return true
		}
		if s.noisyLocked(e) {
			c.hidden++
			return true
		}
		if len(c.entries) == limit {
			c.more = true
			return false
		}
		c.entries = append(c.entries, *e)
		return true
	}
	if since == nil {
		s.walkLocked(m.rings, nil, take)
		slices.Reverse(c.entries)
		c.next = s.seq
	} else {
		s.walkLocked(m.rings, since, take)
		c.next = max(*since, s.seq)
		if c.more {
			c.next = c.entries[len(c.entries)-1].seq
		}
		c.missed = *since < evicted
	}
	s.leanLocked(m, &c)
	return c
}

// leanLocked notes in c the tabs whose page is lean now that c's lean note
// needs. s.mu must be held.
func (s *Store) leanLocked(m *matcher, c *collected) {
	if len(s.lean) == 0 {
		return
	}
	if m.kind == KindVital {
		c.vitals = true
		c.leanNow = s.leanTabsLocked(m.tabScope())
		return
	}
	for i := range c.entries {
		e := &c.entries[i]
		if r, ok := e.rec.(*netRec); ok && r.bodiesDropped() {
			if c.leanPages == nil {
				c.leanPages = map[uint64]pageNow{}
			}
			c.leanPages[e.seq] = s.leanNowLocked(e.tab, e.ts)
		}
	}
}

// leanNote is the Lean line of a page showing c.entries[lo:hi].
func leanNote(c collected, lo, hi int) string {
	if c.vitals {
		return leanVitalsNote(c.leanNow)
	}
	n := 0
	var lean, unknown []int64
	for i := lo; i < hi; i++ {
		e := &c.entries[i]
		if r, ok := e.rec.(*netRec); ok && r.bodiesDropped() {
			n++
			switch c.leanPages[e.seq] {
			case pageLean:
				lean = appendNew(lean, e.tab)
			case pageUnknown:
				unknown = appendNew(unknown, e.tab)
			}
		}
	}
	return leanRequestsNote(n, lean, unknown)
}

// appendNew appends tab to tabs unless it is there.
func appendNew(tabs []int64, tab int64) []int64 {
	if slices.Contains(tabs, tab) {
		return tabs
	}
	return append(tabs, tab)
}

// walkLocked calls visit on the entries of rings in sequence order until it
// returns false: the entries after *since, oldest first, or with since nil
// every entry, newest first. s.mu must be held.
func (s *Store) walkLocked(rings []int, since *uint64, visit func(*entry) bool) {
	if len(rings) == 1 { // the common case, without the merge
		r := s.rings[rings[0]]
		if since == nil {
			for i := r.n - 1; i >= 0 && visit(r.at(i)); i-- {
			}
			return
		}
		for i := r.first(*since); i < r.n && visit(r.at(i)); i++ {
		}
		return
	}
	pos := make([]int, len(rings)) // the next index to visit in each ring
	for j, ri := range rings {
		r := s.rings[ri]
		if since == nil {
			pos[j] = r.n - 1
		} else {
			pos[j] = r.first(*since)
		}
	}
	for {
		var next *entry
		from := -1
		for j, ri := range rings {
			r := s.rings[ri]
			if pos[j] < 0 || pos[j] >= r.n {
				continue
			}
			e := r.at(pos[j])
			if next == nil || (since != nil && e.seq < next.seq) || (since == nil && e.seq > next.seq) {
				next, from = e, j
			}
		}
		if next == nil || !visit(next) {
			return
		}
		if since == nil {
			pos[from]--
		} else {
			pos[from]++
		}
	}
}

// budget is the JSON size a page's entries may take.
func (s *Store) budget() int { return max(1024, s.opts.PageTokens*4-512) }

// page renders c within the page budget. When entries must be left out,
// a read with a cursor keeps the oldest (and continues after them), a read
// without keeps the newest.
func (s *Store) page(c collected) Page {
	p := Page{Entries: []View{}, NextCursor: c.next, Dropped: c.dropped, DroppedTabUnknown: c.unknown, Missed: c.missed, Hidden: c.hidden}
	if c.tail {
		p.Earlier = c.more
	} else {
		p.HasMore = c.more
	}
	if len(c.entries) == 0 {
		if c.vitals {
			p.Lean = leanNote(c, 0, 0)
		}
		return p
	}
	lo, hi, views := fit(len(c.entries), 1, s.budget(), c.tail, func(lo, hi int, lv clipLevel) []View {
		return renderList(c.entries[lo:hi], lv)
	})
	p.Entries = views
	p.Lean = leanNote(c, lo, hi)
	if c.tail && lo > 0 {
		p.Earlier = true
	}
	if !c.tail && hi < len(c.entries) {
		p.HasMore = true
		p.NextCursor = c.entries[hi-1].seq
	}
	return p
}

// Query returns one page of the entries f selects, hiding those noise rules
// match. It fails only with ErrBadFilter (wrapped with the reason).
func (s *Store) Query(f Filter) (Page, error) {
	m, err := f.compile()
	if err != nil {
		return Page{}, err
	}
	s.mu.Lock()
	c := s.collectLocked(m, f.Since, m.limit)
	s.mu.Unlock()
	return s.page(c), nil
}

// Head returns the newest sequence number assigned: a cursor that reads only
// entries stored from now on.
func (s *Store) Head() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Wait blocks until an entry f selects is stored after the cursor (f.Since,
// or Head when nil) and returns the page read from the cursor. It wakes when
// entries are stored, without polling. When ctx ends first it returns the
// page as it stands (usually empty, with NextCursor past everything it
// looked at) and ctx.Err(). It fails with ErrBadFilter, or ErrClosed after
// Close.
func (s *Store) Wait(ctx context.Context, f Filter) (Page, error) {
	m, err := f.compile()
	if err != nil {
		return Page{}, err
	}
	s.mu.Lock()
	cursor := s.seq
	if f.Since != nil {
		cursor = *f.Since
	}
	scanned := cursor // entries up to here have been checked
	for {
		if s.closed {
			s.mu.Unlock()
			return Page{}, ErrClosed
		}
		found := false
		s.walkLocked(m.rings, &scanned, func(e *entry) bool {
			found = m.match(e) && !s.noisyLocked(e)
			return !found
		})
		if found {
			c := s.collectLocked(m, &cursor, m.limit)
			s.mu.Unlock()
			return s.page(c), nil
		}
		scanned = max(scanned, s.seq)
		if s.notify == nil {
			s.notify = make(chan struct{})
		}
		ch := s.notify
		s.mu.Unlock()
		if s.opts.OnWait != nil {
			s.opts.OnWait()
		}
		select {
		case <-ch:
			s.mu.Lock()
		case <-ctx.Done():
			s.mu.Lock()
			c := s.collectLocked(m, &cursor, m.limit)
			s.mu.Unlock()
			p := s.page(c)
			if len(p.Entries) > 0 {
				return p, nil
			}
			return p, ctx.Err()
		}
	}
}

// ErrorGroup is the errors sharing a message and source (and, for failed
// resource loads, the resource URL), described by the latest of them.
type ErrorGroup struct {
	Count     int    `json:"count"`
	FirstSeen int64  `json:"first_seen"` // ms since the epoch
	LastSeen  int64  `json:"last_seen"`
	LastID    uint64 `json:"last_id"` // the latest entry's id
	// The latest entry, as ErrorView renders it.
	TabID       int64  `json:"tab_id"`
	PageURL     string `json:"page_url,omitempty"`
	Type        string `json:"type"`
	Message     string `json:"message"`
	Source      string `json:"source,omitempty"`
	Line        int64  `json:"line,omitempty"`
	Column      int64  `json:"column,omitempty"`
	Element     string `json:"element,omitempty"`
	ResourceURL string `json:"resource_url,omitempty"`
	Stack       string `json:"stack,omitempty"`
}

// GroupPage is the answer of ErrorGroups: groups, most recently seen first.
type GroupPage struct {
	Groups []ErrorGroup `json:"groups"`
	// Omitted counts the groups left out (Limit, or the page budget): the
	// least recently seen.
	Omitted int `json:"omitted,omitempty"`
	// NextCursor reads only errors stored after this read.
	NextCursor        uint64 `json:"next_cursor"`
	Dropped           int64  `json:"dropped"`
	DroppedTabUnknown int64  `json:"dropped_tab_unknown,omitempty"`
	Missed            bool   `json:"missed,omitempty"`
	Hidden            int    `json:"hidden,omitempty"`
}

// ErrorGroups groups the error entries f selects (all of them, or those
// after f.Since) and returns the f.Limit most recently seen groups. f.Kind
// must be KindError or empty. It fails only with ErrBadFilter.
func (s *Store) ErrorGroups(f Filter) (GroupPage, error) {
	if f.Kind == "" {
		f.Kind = KindError
	}
	if f.Kind != KindError || len(f.Also) > 0 {
		return GroupPage{}, fmt.Errorf("%w: error groups are for kind error only, not %q", ErrBadFilter, f.Kind)
	}
	m, err := f.compile()
	if err != nil {
		return GroupPage{}, err
	}
	s.mu.Lock()
	since := uint64(0)
	if f.Since != nil {
		since = *f.Since
	}
	c := s.collectLocked(m, &since, s.rings[m.rings[0]].n)
	s.mu.Unlock()
	return s.groups(c, m.limit), nil
}

// WaitErrorGroups blocks like Wait until an error f selects arrives after
// the cursor (f.Since, or Head when nil), then returns the groups of the
// errors after the cursor. When ctx ends first it returns an empty page and
// ctx.Err().
func (s *Store) WaitErrorGroups(ctx context.Context, f Filter) (GroupPage, error) {
	if f.Kind == "" {
		f.Kind = KindError
	}
	if f.Since == nil {
		h := s.Head()
		f.Since = &h
	}
	p, err := s.Wait(ctx, f)
	if err != nil {
		return GroupPage{Groups: []ErrorGroup{}, NextCursor: p.NextCursor, Dropped: p.Dropped, DroppedTabUnknown: p.DroppedTabUnknown, Missed: p.Missed}, err
	}
	return s.ErrorGroups(f)
}

type group struct {
	key        string
	count      int
	first      int64
	last       *entry
	lastSeenTS int64
}

func (s *Store) groups(c collected, limit int) GroupPage {
	byKey := map[string]*group{}
	var order []*group
	for i := range c.entries {
		e := &c.entries[i]
		r := e.rec.(*errorRec)
		key := r.typ + "\x00" + r.message.s + "\x00" + r.source.s
		if r.typ == "resource" {
			key += "\x00" + r.resourceURL.s
		}
		g := byKey[key]
		if g == nil {
			g = &group{key: key, first: e.ts}
			byKey[key] = g
			order = append(order, g)
		}
		g.count++
		g.first = min(g.first, e.ts)
		g.last = e // entries are in sequence order: the last one seen wins
		g.lastSeenTS = max(g.lastSeenTS, e.ts)
	}
	slices.SortStableFunc(order, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.lastSeenTS, a.lastSeenTS), cmp.Compare(b.last.seq, a.last.seq))
	})
	p := GroupPage{Groups: []ErrorGroup{}, NextCursor: c.next, Dropped: c.dropped, DroppedTabUnknown: c.unknown, Missed: c.missed, Hidden: c.hidden}
	shown := order[:min(len(order), limit)]
	if len(shown) > 0 {
		_, hi, gs := fit(len(shown), 1, s.budget(), false, func(lo, hi int, lv clipLevel) []ErrorGroup {
			out := make([]ErrorGroup, 0, hi-lo)
			for _, g := range shown[lo:hi] {
				v := render(g.last, lv, true, false).(*ErrorView)
				out = append(out, ErrorGroup{Count: g.count, FirstSeen: g.first, LastSeen: g.lastSeenTS, LastID: g.last.seq,
					TabID: v.TabID, PageURL: v.PageURL, Type: v.Type, Message: v.Message, Source: v.Source, Line: v.Line,
					Column: v.Column, Element: v.Element, ResourceURL: v.ResourceURL, Stack: v.Stack})
			}
			return out
		})
		p.Groups = gs
		shown = shown[:hi]
	}
	p.Omitted = len(order) - len(shown)
	return p
}

// findLocked returns the buffered entry with sequence number id, or nil.
// s.mu must be held.
func (s *Store) findLocked(id uint64) *entry {
	if id == 0 {
		return nil
	}
	for _, r := range s.rings {
		if i := r.first(id - 1); i < r.n && r.at(i).seq == id {
			return r.at(i)
		}
	}
	return nil
}

// Entry returns one entry by id in full detail: long fields clipped far
// less than in a list, and a request's headers. It fails with
// ErrUnknownEntry.
func (s *Store) Entry(id uint64) (View, error) {
	s.mu.Lock()
	e := s.findLocked(id)
	var c entry
	if e != nil {
		c = *e
	}
	s.mu.Unlock()
	if e == nil {
		return nil, fmt.Errorf("%w: id %d", ErrUnknownEntry, id)
	}
	_, _, v := fit(1, 0, s.budget(), false, func(_, _ int, lv clipLevel) View { return render(&c, lv, true, true) })
	return v, nil
}

// Body is one captured request or response body, in full as stored.
type Body struct {
	ID       uint64 `json:"id"`
	Part     string `json:"part"` // request or response
	Method   string `json:"method"`
	URL      string `json:"url"`
	Status   int    `json:"status"`
	MimeType string `json:"mime_type,omitempty"`
	Text     string `json:"text"`
	Chars    int    `json:"chars"` // len(Text) in chars
	Size     int64  `json:"size"`  // the body's full size in bytes
	// Truncated says Text is only the first body-cap bytes of the body.
	Truncated bool `json:"truncated"`
}

// Body returns the stored body of the network entry id; part is "request"
// or "response". The text is not clipped: a caller with a token budget hands
// a large one to the large-output store. It fails with ErrUnknownEntry,
// ErrNoBody, ErrBodyNotKept (the request, which did not fail, came from a
// page loaded while no agent was at work; a request that sends no body has ErrSendsNoBody, an
// ErrNoBody, for its request part), or ErrBadFilter for another part or
// an entry that is not a request.
func (s *Store) Body(id uint64, part string) (Body, error) {
	if part != "request" && part != "response" {
		return Body{}, fmt.Errorf("%w: body part %q: use \"request\" or \"response\"", ErrBadFilter, clipReason(part))
	}
	s.mu.Lock()
	e := s.findLocked(id)
	var r *netRec
	var kind Kind
	var since time.Time
	now, tab := pageUnknown, int64(0)
	if e != nil {
		tab = e.tab
		r, _ = e.rec.(*netRec)
		kind = e.kind
		if r != nil && r.bodyPending {
			since = s.pending[bodyKey{e.tab, r.requestID}].since
		}
		now = s.leanNowLocked(tab, e.ts)
	}
	s.mu.Unlock()
	switch {
	case e == nil:
		return Body{}, fmt.Errorf("%w: id %d", ErrUnknownEntry, id)
	case r == nil:
		return Body{}, fmt.Errorf("%w: entry %d is a %s entry; bodies belong to network entries", ErrBadFilter, id, kind)
	}
	b := Body{ID: id, Part: part, Method: r.method, URL: r.url.s, Status: r.status, MimeType: r.mimeType,
		Text: r.reqBody.s, Size: r.reqSize, Truncated: r.truncated && int64(len(r.reqBody.s)) < r.reqSize}
	if part == "response" {
		b.Text, b.Size = r.respBody.s, r.respSize
		b.Truncated = r.truncated && int64(len(r.respBody.s)) < r.respSize
	}
	if b.Text == "" && r.bodyPending {
		if since.IsZero() || s.now().Sub(since) > pendingBodyLife {
			return Body{}, fmt.Errorf("%w: entry %d's %s body never arrived (the page was left or closed while reading it)", ErrNoBody, id, part)
		}
		return Body{}, fmt.Errorf("%w: entry %d's %s body; wait for it with wait_ms", ErrBodyPending, id, part)
	}
	if b.Text == "" && part == "request" && r.sendsNoBody() {
		return Body{}, fmt.Errorf("%w (entry %d is a %s request); its response body may have one", ErrSendsNoBody, id, r.method)
	}
	if b.Text == "" && r.bodiesDropped() {
		return Body{}, bodyNotKept(id, tab, now)
	}
	if b.Text == "" {
		return Body{}, fmt.Errorf("%w: entry %d has no %s body (not a text type, empty, or captured by the browser only, or capture of bodies is off)", ErrNoBody, id, part)
	}
	b.Chars = utf8.RuneCountInString(b.Text)
	return b, nil
}

// pendingBodyLife is how long after its first half arrived a body still
// said to be coming is waited for; past it the page is taken to have stopped reading
// it (it navigated away or closed).
const pendingBodyLife = time.Minute

// WaitBody is Body, but while the page is still reading the body
// (ErrBodyPending) it blocks until the body arrives or ctx ends, when it
// returns ErrBodyPending. It wakes when entries are stored, without
// polling.
func (s *Store) WaitBody(ctx context.Context, id uint64, part string) (Body, error) {
	for {
		s.mu.Lock()
		if s.notify == nil {
			s.notify = make(chan struct{})
		}
		ch, closed := s.notify, s.closed
		s.mu.Unlock()
		b, err := s.Body(id, part)
		if !errors.Is(err, ErrBodyPending) {
			return b, err
		}
		if closed {
			return Body{}, ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return b, err
		}
	}
}
