package capture

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"
)

// tabState is what the tab events said about one tab. Guarded by Store.mu.
type tabState struct {
	id     int64
	window int64
	url    text
	title  text
	status string
	active bool
	// owner is the MCP client that owns the tab, ownerName its name, group
	// the title of the tab's group ("" for none).
	owner, ownerName, group string
	lastSeen                int64 // ms since the epoch, daemon clock
}

// applyTabLocked applies a tab event: "removed" forgets the tab, "activated"
// makes it the active tab of its window, "updated" changes the fields it
// carries. The table holds at most MaxTabs tabs; the least recently seen
// goes first. s.mu must be held.
func (s *Store) applyTabLocked(u *tabUpdate) {
	if u.typ == "removed" {
		delete(s.tabs, u.tab)
		delete(s.lean, u.tab)
		return
	}
	t := s.tabs[u.tab]
	if t == nil {
		if len(s.tabs) >= MaxTabs {
			s.forgetOldestTabLocked()
		}
		t = &tabState{id: u.tab}
		s.tabs[u.tab] = t
	}
	t.lastSeen = u.received
	if u.window != 0 {
		t.window = u.window
	}
	if u.url.s != "" {
		t.url = u.url
	}
	if u.title.s != "" {
		t.title = u.title
	}
	if u.status != "" {
		t.status = u.status
	}
	for _, f := range []struct{ to, from *string }{{&t.owner, u.owner}, {&t.ownerName, u.ownerName}, {&t.group, u.group}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	active := u.typ == "activated" || (u.active != nil && *u.active)
	if active {
		for _, o := range s.tabs {
			if o != t && o.window == t.window {
				o.active = false
			}
		}
		t.active = true
	} else if u.active != nil {
		t.active = false
	}
}

func (s *Store) forgetOldestTabLocked() {
	var oldest *tabState
	for _, t := range s.tabs {
		if oldest == nil || t.lastSeen < oldest.lastSeen {
			oldest = t
		}
	}
	if oldest != nil {
		delete(s.tabs, oldest.id)
	}
}

// Tab is one browser tab as the extension last reported it.
type Tab struct {
	TabID    int64  `json:"tab_id"`
	WindowID int64  `json:"window_id,omitempty"`
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
	// Status is "loading" or "complete" (the document's load state), or
	// empty when not reported yet.
	Status string `json:"status,omitempty"`
	Active bool   `json:"active"`
	// Owner names the agent (MCP client) that opened the tab with new_tab;
	// Mine says that agent is the caller. Group is the title of the tab's
	// tab group.
	Owner    string    `json:"owner,omitempty"`
	Mine     bool      `json:"mine,omitempty"`
	Group    string    `json:"group,omitempty"`
	LastSeen time.Time `json:"last_seen"`
}

// Tab list limits: a tab list renders at most maxTabsListed tabs, with
// titles and URLs clipped, and no more than fit the page budget.
const (
	maxTabsListed = 100
	tabTitleClip  = 120
	tabURLClip    = 300
)

// TabList is the answer of Tabs.
type TabList struct {
	Tabs []Tab `json:"tabs"`
	// Total is how many tabs are known; only the most recently seen are
	// listed (at most 100, and as many as fit the page budget).
	Total int `json:"total"`
}

// Tabs returns the known tabs, most recently seen first (at most 100, with
// long titles and URLs clipped, and as many as fit the page budget). The
// tabs client owns are marked Mine.
func (s *Store) Tabs(client string) TabList {
	s.mu.Lock()
	all := make([]tabState, 0, len(s.tabs))
	for _, t := range s.tabs {
		all = append(all, *t)
	}
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b tabState) int {
		return cmp.Or(cmp.Compare(b.lastSeen, a.lastSeen), cmp.Compare(a.id, b.id))
	})
	out := TabList{Tabs: []Tab{}, Total: len(all)}
	used := 0
	for _, t := range all[:min(len(all), maxTabsListed)] {
		v := t.view(tabURLClip, tabTitleClip)
		v.Mine = client != "" && t.owner == client
		b, _ := json.Marshal(v) // escapes HTML: never shorter than the MCP layer's encoding
		if used += len(b) + 1; used > s.budget() {
			break
		}
		out.Tabs = append(out.Tabs, v)
	}
	return out
}

// PageInfo returns the tab tabID, or with nil the active tab most recently
// seen (else the tab most recently seen). It fails with ErrUnknownTab or, when
// no tab is known at all, ErrNoTab.
func (s *Store) PageInfo(tabID *int64) (Tab, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tabID != nil {
		t := s.tabs[*tabID]
		if t == nil {
			return Tab{}, ErrUnknownTab
		}
		return t.view(keepPageURL, keepTabTitle), nil
	}
	var best *tabState
	for _, t := range s.tabs {
		switch {
		case best == nil,
			t.active && !best.active,
			t.active == best.active && t.lastSeen > best.lastSeen,
			t.active == best.active && t.lastSeen == best.lastSeen && t.id < best.id:
			best = t
		}
	}
	if best == nil {
		return Tab{}, ErrNoTab
	}
	return best.view(keepPageURL, keepTabTitle), nil
}

func (t *tabState) view(urlClip, titleClip int) Tab {
	v := Tab{TabID: t.id, WindowID: t.window, URL: clip(t.url, urlClip), Title: clip(t.title, titleClip),
		Status: t.status, Active: t.active, Group: t.group, LastSeen: time.UnixMilli(t.lastSeen).UTC()}
	if t.owner != "" {
		v.Owner = cmp.Or(t.ownerName, t.owner)
	}
	return v
}
