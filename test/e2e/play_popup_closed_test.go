//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestPlayPopupClosedItself: after the user's click (Chrome lets the next
// popup through), the agent clicks a button whose popup (an SSO window)
// closes itself as soon as it loads. The click's effects list the popup's
// tab, with its url and closed: the agent learns a window came and went.
func TestPlayPopupClosedItself(t *testing.T) {
	e := ready(t)
	e.open("/play/popup-close.html")
	p := e.userPage("/play/popup-close.html")
	var box struct{ X, Y float64 }
	p.eval(`(() => { const r = document.querySelector('h1').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
	p.clickAsync(box.X, box.Y)

	r := e.ok("click", map[string]any{"role": "button", "name": "Sign in with SSO"})
	eff := effectsOf(t, "click", r)
	tabs, _ := eff["new_tabs"].([]any)
	if len(tabs) != 1 || eff["dialogs"] != nil {
		t.Fatalf("click a popup that closes itself: effects %v, want its tab and no blocked popup", eff)
	}
	if nt, _ := tabs[0].(map[string]any); !strings.HasSuffix(fmt.Sprint(nt["url"]), "/play/sso.html") || nt["closed"] != true {
		t.Errorf("the popup in effects: %v, want /play/sso.html, closed", nt)
	}
}

// TestPlayPopupClosedAtOnce: as TestPlayPopupClosedItself, with a window
// the page opens, writes and closes in the same click handler (a receipt
// printed at once): the click's effects still list it, closed.
func TestPlayPopupClosedAtOnce(t *testing.T) {
	e := ready(t)
	e.open("/play/popup-close.html")
	p := e.userPage("/play/popup-close.html")
	var box struct{ X, Y float64 }
	p.eval(`(() => { const r = document.querySelector('h1').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
	p.clickAsync(box.X, box.Y)

	r := e.ok("click", map[string]any{"role": "button", "name": "Print the receipt"})
	eff := effectsOf(t, "click", r)
	tabs, _ := eff["new_tabs"].([]any)
	if len(tabs) != 1 || eff["dialogs"] != nil {
		t.Fatalf("click a popup the page closes at once: effects %v, want its tab and no blocked popup", eff)
	}
	if nt, _ := tabs[0].(map[string]any); nt["closed"] != true {
		t.Errorf("the popup in effects: %v, want closed", nt)
	}
}
