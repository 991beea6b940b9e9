//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestPlayPopupBlocked: an agent clicks buttons whose handlers call
// window.open, at once and from a 200 ms timer. An agent's click is a
// script's (no user activation), so Chrome's popup blocker opens nothing
// and window.open returns null; a user's click would have opened the
// popup. Each click's result says so (also for a noopener open, whose
// null says nothing by itself), with the url the popup would have
// shown and what to do instead, without the agent waiting or looking
// again. A target=_blank link, which does open a tab, is reported as the
// new tab, not as a blocked popup.
func TestPlayPopupBlocked(t *testing.T) {
	e := ready(t)
	e.open("/play/popup.html")

	for _, c := range []struct{ button, url string }{
		{"Print now", "/play/print.html?n=1"},
		{"Print later", "/play/print.html?n=2"},
		{"Print a copy", "/play/print.html?n=3"}, // noopener: null whether or not it opened
	} {
		r := e.ok("click", map[string]any{"role": "button", "name": c.button})
		eff := effectsOf(t, "click", r)
		dialogs, _ := eff["dialogs"].([]any)
		if len(dialogs) != 1 || eff["new_tabs"] != nil || eff["settled"] != true {
			t.Errorf("click %q: effects %v, want one blocked popup, no new tab, settled", c.button, eff)
			continue
		}
		d, _ := dialogs[0].(map[string]any)
		answered := fmt.Sprint(d["answered"])
		if d["type"] != "popup" || d["message"] != e.site.URL+c.url || !strings.HasPrefix(answered, "blocked") || !strings.Contains(answered, `"new_tab"`) {
			t.Errorf("click %q: effects.dialogs[0] %v, want a popup to %s, blocked, saying to open it with new_tab", c.button, d, e.site.URL+c.url)
		}
	}
	if got := e.pageText("#log", nil); got != "now null later null copy null" {
		t.Errorf("the page logged %q: window.open should have returned null both times", got)
	}

	r := e.ok("click", map[string]any{"role": "link", "name": "Open a ticket"})
	eff := effectsOf(t, "click", r)
	if tabs, _ := eff["new_tabs"].([]any); len(tabs) != 1 || eff["dialogs"] != nil {
		t.Errorf("click a target=_blank link: effects %v, want the one new tab and no blocked popup", eff)
	}
}

// TestPlayPopupAfterUserClick: the user has just clicked the page (a
// transient activation, about 5 s), so Chrome lets the next popup
// through, even from the agent's click. A noopener window.open then opens
// its tab and still returns null: the click's result lists the new tab and
// no blocked popup.
func TestPlayPopupAfterUserClick(t *testing.T) {
	e := ready(t)
	e.open("/play/popup.html")
	p := e.userPage("/play/popup.html")
	var box struct{ X, Y float64 }
	p.eval(`(() => { const r = document.querySelector('h1').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
	p.clickAsync(box.X, box.Y)

	r := e.ok("click", map[string]any{"role": "button", "name": "Print a copy"})
	eff := effectsOf(t, "click", r)
	tabs, _ := eff["new_tabs"].([]any)
	if len(tabs) != 1 || eff["dialogs"] != nil {
		t.Fatalf("click a noopener window.open after the user's click: effects %v, want the one new tab and no blocked popup", eff)
	}
	if nt, _ := tabs[0].(map[string]any); !strings.HasSuffix(fmt.Sprint(nt["url"]), "/play/print.html?n=3") {
		t.Errorf("the new tab in effects: %v, want /play/print.html?n=3", nt)
	}
	if got := e.pageText("#log", nil); got != "copy null" {
		t.Errorf("the page logged %q: a noopener window.open returns null even when it opens", got)
	}
}

// TestPlayPopupLongURLAfterUserClick: as TestPlayPopupAfterUserClick, with
// a noopener popup whose url is over 300 characters (the runtime clips a
// reported message to 200). The tab it opened is listed, and the popup is
// not also listed as blocked.
func TestPlayPopupLongURLAfterUserClick(t *testing.T) {
	e := ready(t)
	e.open("/play/popup.html")
	p := e.userPage("/play/popup.html")
	var box struct{ X, Y float64 }
	p.eval(`(() => { const r = document.querySelector('h1').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
	p.clickAsync(box.X, box.Y)

	r := e.ok("click", map[string]any{"role": "button", "name": "Print the full history"})
	eff := effectsOf(t, "click", r)
	tabs, _ := eff["new_tabs"].([]any)
	if len(tabs) != 1 || eff["dialogs"] != nil {
		t.Fatalf("click a noopener window.open of a long url after the user's click: effects %v, want the one new tab and no blocked popup", eff)
	}
	if nt, _ := tabs[0].(map[string]any); !strings.HasSuffix(fmt.Sprint(nt["url"]), "/play/print.html?n=4&rows="+strings.Repeat("0123456789", 30)) {
		t.Errorf("the new tab in effects: %v, want /play/print.html?n=4&rows=...", nt)
	}
	if got := e.pageText("#log", nil); got != "long null" {
		t.Errorf("the page logged %q: a noopener window.open returns null even when it opens", got)
	}
}
