package capture

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Lean pages. A page (top document) loaded while no agent was at work gets
// a lean capture from the extension: it keeps the request and response
// bodies of failed requests only (netRec.bodiesDropped), no WebSocket
// connections or frames and no web vitals, until it is
// reloaded (refreshed or navigated) while an agent works. Its load nav
// record (frame 0) and each of its network records say "lean": true. The
// store remembers what it last learned of each tab's page (Store.lean):
// lean or full, from the newest of the tab's top-document loads (stored or
// not: nav capture may be off) and of its top frame's page-side requests,
// so a page it saw no load of (the daemon started later, the record was
// lost, the page came back from the back/forward cache) is learned from its
// requests. A tab it knows nothing of is unknown, and the notes claim
// nothing about it. The reads say what is missing and how to get it, in one
// line: a page of requests some of which lack bodies as lean (Page.Lean),
// a vitals read or a WebSocket list covering a tab whose page is lean, such
// a request's body (ErrBodyNotKept). Nothing is added when nothing read is
// lean.

// leanState is what the store knows of a tab's current page.
type leanState struct {
	lean bool   // the page is lean (else full)
	ts   int64  // the time of the newest record that said so (ms since the epoch)
	seen uint64 // Store.leanSeen when learned: the oldest is forgotten first
}

// leanSign is what one record says of its tab's current page: a top
// document's load, or a page-side request of the top frame.
type leanSign struct {
	tab  int64
	ts   int64
	lean bool
}

// leanSignOf returns what e says of its tab's page, if anything.
func leanSignOf(e *entry) (leanSign, bool) {
	if e.frame != 0 || e.tab < 0 {
		return leanSign{}, false
	}
	switch r := e.rec.(type) {
	case *navRec:
		return leanSign{e.tab, e.ts, r.lean}, r.typ == "load"
	case *netRec:
		// a body update may come after the page was left
		return leanSign{e.tab, e.ts, r.lean}, r.source == "page" && !r.bodyUpdate
	}
	return leanSign{}, false
}

// learnLeanLocked records what sign says of its tab's page, unless the
// store knows of a newer record of that tab (a late record of a page left
// since changes nothing). Past MaxTabs tabs, the one learned of longest ago
// is forgotten. s.mu must be held.
func (s *Store) learnLeanLocked(sign leanSign) {
	old, ok := s.lean[sign.tab]
	if ok && sign.ts < old.ts {
		return
	}
	if !ok && len(s.lean) >= MaxTabs {
		gone, first := int64(0), true
		for tab, st := range s.lean {
			if first || st.seen < s.lean[gone].seen {
				gone, first = tab, false
			}
		}
		delete(s.lean, gone)
	}
	s.leanSeen++
	s.lean[sign.tab] = leanState{lean: sign.lean, ts: sign.ts, seen: s.leanSeen}
}

// leanTabsLocked returns the tabs reads (nil: every tab) covers whose page
// is lean now, in order. s.mu must be held.
func (s *Store) leanTabsLocked(reads func(int64) bool) []int64 {
	if len(s.lean) == 0 {
		return nil
	}
	var out []int64
	for tab, st := range s.lean {
		if st.lean && (reads == nil || reads(tab)) {
			out = append(out, tab)
		}
	}
	slices.Sort(out)
	return out
}

// leanNowLocked says what the store knows of tab's page for a lean record
// made at ts: lean still, reloaded at work since, or unknown. s.mu must be
// held.
func (s *Store) leanNowLocked(tab, ts int64) pageNow {
	st, ok := s.lean[tab]
	switch {
	case !ok:
		return pageUnknown
	case st.lean:
		return pageLean
	case st.ts > ts:
		return pageReloaded
	}
	return pageUnknown
}

// pageNow is what the store knows of the page of a tab a lean record came
// from.
type pageNow int

const (
	pageUnknown  pageNow = iota // no record newer than the lean one says
	pageLean                    // the tab's page is lean now
	pageReloaded                // a newer record of the tab came from a page loaded at work
)

// LeanCount counts the requests a read shows that came from one tab's lean
// pages, and says when the newest of them was made (ms since the epoch).
type LeanCount struct {
	N      int
	Newest int64
}

// LeanRequestsNote is the line a read of requests needs when some came from
// lean pages: byTab counts them per tab. It is "" when byTab counts none.
func (s *Store) LeanRequestsNote(byTab map[int64]LeanCount) string {
	n := 0
	var lean, unknown []int64
	s.mu.Lock()
	for tab, k := range byTab {
		if k.N <= 0 {
			continue
		}
		n += k.N
		switch s.leanNowLocked(tab, k.Newest) {
		case pageLean:
			lean = append(lean, tab)
		case pageUnknown:
			unknown = append(unknown, tab)
		}
	}
	s.mu.Unlock()
	return leanRequestsNote(n, lean, unknown)
}

// leanRequestsNote says n requests came from lean pages. lean are the tabs
// among theirs whose page is still lean (refreshing them gets bodies),
// unknown those the store cannot tell were reloaded at work since; the
// others were.
func leanRequestsNote(n int, lean, unknown []int64) string {
	if n == 0 {
		return ""
	}
	s := strconv.Itoa(n) + " requests came from pages loaded while no agent was at work: their bodies were not kept"
	if n == 1 {
		s = "1 request came from a page loaded while no agent was at work: its bodies were not kept"
	}
	tabs := slices.Concat(lean, unknown)
	slices.Sort(tabs)
	switch {
	case len(tabs) == 0:
		return s + "; requests made since the page was reloaded have them"
	case len(unknown) > 0 && len(tabs) == 1:
		return s + "; requests made after the page is reloaded while you work have them (" + refreshCall(tabs) + ")"
	case len(unknown) > 0:
		return s + "; requests made after a page is reloaded while you work have them (" + refreshCall(tabs) + " on tabs " + tabList(tabs) + ")"
	case len(tabs) == 1:
		return s + "; refresh the page (" + refreshCall(tabs) + ") to capture bodies"
	}
	return s + "; refresh the pages of tabs " + tabList(tabs) + " (" + refreshCall(tabs) + ") to capture bodies"
}

// leanPagesNote says the pages of tabs are lean, so what (e.g. "web
// vitals") is not captured there; "" for no tab.
func leanPagesNote(tabs []int64, what string) string {
	switch len(tabs) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("tab %d's page was loaded while no agent was at work: its %s not captured until it is reloaded (%s)",
			tabs[0], what, refreshCall(tabs))
	}
	return fmt.Sprintf("tabs %s show pages loaded while no agent was at work: their %s not captured until each is reloaded (%s)",
		tabList(tabs), what, refreshCall(tabs))
}

// leanVitalsNote is a vitals read's line for the lean pages of tabs.
func leanVitalsNote(tabs []int64) string {
	n := leanPagesNote(tabs, "web vitals are")
	switch {
	case n == "":
		return ""
	case len(tabs) == 1:
		return n + fmt.Sprintf(`; analyze({what:"performance", tab_id:%d}) measures it now`, tabs[0])
	}
	return n + `; analyze({what:"performance", tab_id}) measures one now`
}

// leanWebSocketNote is a WebSocket list's line for the lean pages of tabs.
func leanWebSocketNote(tabs []int64) string { return leanPagesNote(tabs, "WebSocket traffic is") }

// refreshCall is the interact call that reloads tabs: the one, or any of
// them (the caller names them).
func refreshCall(tabs []int64) string {
	if len(tabs) == 1 {
		return fmt.Sprintf(`interact({action:"refresh", tab_id:%d})`, tabs[0])
	}
	return `interact({action:"refresh", tab_id})`
}

// maxLeanTabsListed bounds the tabs a note names.
const maxLeanTabsListed = 5

// tabList names tabs: "3, 5, 8", or the first few "and N more".
func tabList(tabs []int64) string {
	var b strings.Builder
	for i, t := range tabs[:min(len(tabs), maxLeanTabsListed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(t, 10))
	}
	if len(tabs) > maxLeanTabsListed {
		fmt.Fprintf(&b, " and %d more", len(tabs)-maxLeanTabsListed)
	}
	return b.String()
}

// leanBody is a lean request's NetworkView.Body in full detail.
const leanBody = "not kept: its page was loaded while no agent was at work; a reload of the page while you work captures bodies"

// bodyNotKept is Body's error for a lean request of tab, given what the
// store knows of the tab's page now.
func bodyNotKept(id uint64, tab int64, now pageNow) error {
	switch now {
	case pageLean:
		return fmt.Errorf("%w: entry %d came from tab %d's page, loaded while no agent was at work (such a page keeps the bodies of failed requests only until it is reloaded); "+
			"refresh it (%s), redo what sent the request, and read the new request's body", ErrBodyNotKept, id, tab, refreshCall([]int64{tab}))
	case pageReloaded:
		return fmt.Errorf("%w: entry %d came from a page loaded while no agent was at work; tab %d has been reloaded while you work since, "+
			`so its newer requests have bodies: find the request again with observe({what:"network"})`, ErrBodyNotKept, id, tab)
	}
	return fmt.Errorf("%w: entry %d came from tab %d's page, loaded while no agent was at work (such a page keeps the bodies of failed requests only); "+
		`requests made after the page is reloaded while you work have them: find the request again with observe({what:"network"}), `+
		"or refresh the tab (%s) and redo what sent it", ErrBodyNotKept, id, tab, refreshCall([]int64{tab}))
}

// bodiesDropped reports whether r came from a lean page that did not keep
// its bodies: such a page keeps those of a failed request only (status 400
// or more, or an error: no response), as a bug report needs them, and the
// extension reads them only then (extension/capture/main/network.js).
func (r *netRec) bodiesDropped() bool { return r.lean && r.status < 400 && r.err == "" }

// sendsNoBody reports whether r's request carries no body by its method
// (GET, HEAD) or its Content-Length of 0: it has none to keep, lean or not.
func (r *netRec) sendsNoBody() bool {
	if r.method == "GET" || r.method == "HEAD" {
		return true
	}
	for _, h := range r.reqHeaders {
		if strings.EqualFold(h.name, "content-length") {
			return strings.TrimSpace(h.value) == "0"
		}
	}
	return false
}
