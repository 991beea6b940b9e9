package capture

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Lean pages. A page (top document) loaded while no agent was at work gets
// a lean capture from the extension: it keeps no request or response
// bodies, no WebSocket connections or frames and no web vitals, until it is
// reloaded (refreshed or navigated) while an agent works. Its load nav
// record (frame 0) and each of its network records say "lean": true. The
// store remembers which tabs show such a page now (Store.lean, set and
// cleared by each top-document load), and the reads say what is missing and
// how to get it, in one line: a page of requests some of which are lean
// (Page.Lean), a vitals read or a WebSocket list covering a tab whose page
// is lean, a lean request's body (ErrBodyNotKept). Nothing is added when
// nothing read is lean.

// noteLoadLocked records whether tab e.tab's new top document is lean, when
// e is a top-document load. s.mu must be held.
func (s *Store) noteLoadLocked(e *entry, r *navRec) {
	if r.typ != "load" || e.frame != 0 || e.tab < 0 {
		return
	}
	if !r.lean {
		delete(s.lean, e.tab)
		return
	}
	if _, ok := s.lean[e.tab]; !ok && len(s.lean) >= MaxTabs {
		var gone int64
		for tab := range s.lean { // a tab the tab table forgot, else any
			if gone = tab; s.tabs[tab] == nil {
				break
			}
		}
		delete(s.lean, gone)
	}
	s.lean[e.tab] = struct{}{}
}

// leanTabsLocked returns the tabs reads (nil: every tab) covers whose page
// is lean now, in order. s.mu must be held.
func (s *Store) leanTabsLocked(reads func(int64) bool) []int64 {
	if len(s.lean) == 0 {
		return nil
	}
	var out []int64
	for tab := range s.lean {
		if reads == nil || reads(tab) {
			out = append(out, tab)
		}
	}
	slices.Sort(out)
	return out
}

// LeanRequestsNote is the line a read of requests needs when some came from
// lean pages: byTab counts them per tab. It is "" when byTab counts none.
func (s *Store) LeanRequestsNote(byTab map[int64]int) string {
	n := 0
	var tabs []int64
	s.mu.Lock()
	for tab, k := range byTab {
		n += k
		if _, ok := s.lean[tab]; ok && k > 0 {
			tabs = append(tabs, tab)
		}
	}
	s.mu.Unlock()
	slices.Sort(tabs)
	return leanRequestsNote(n, tabs)
}

// leanRequestsNote says n requests came from lean pages; stillLean are the
// tabs among theirs whose page is still lean (refreshing them gets bodies).
func leanRequestsNote(n int, stillLean []int64) string {
	if n == 0 {
		return ""
	}
	s := strconv.Itoa(n) + " requests came from pages loaded while no agent was at work: their bodies were not kept"
	if n == 1 {
		s = "1 request came from a page loaded while no agent was at work: its bodies were not kept"
	}
	if len(stillLean) == 0 {
		return s + "; requests made since the page was reloaded have them"
	}
	if len(stillLean) == 1 {
		return s + "; refresh the page (" + refreshCall(stillLean) + ") to capture bodies"
	}
	return s + "; refresh the pages of tabs " + tabList(stillLean) + " (" + refreshCall(stillLean) + ") to capture bodies"
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

// bodyNotKept is Body's error for a lean request of tab, whose page is
// still lean or not.
func bodyNotKept(id uint64, tab int64, stillLean bool) error {
	if stillLean {
		return fmt.Errorf("%w: entry %d came from tab %d's page, loaded while no agent was at work (such a page keeps no bodies until it is reloaded); "+
			"refresh it (%s), redo what sent the request, and read the new request's body", ErrBodyNotKept, id, tab, refreshCall([]int64{tab}))
	}
	return fmt.Errorf("%w: entry %d came from a page loaded while no agent was at work; tab %d has been reloaded (or closed) since, "+
		`so its newer requests have bodies: find the request again with observe({what:"network"})`, ErrBodyNotKept, id, tab)
}
