package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestSettleCleanClick: a click whose page answers at once that the action
// left nothing to run settles a few ms after that answer (issue 33), and
// what only the browser can report still makes it into the click's effects:
// a navigation a handler started by script (location.href, replace), which
// the page cannot announce, and a route pushed by history.pushState. Each
// kind is clicked ten times.
func TestSettleCleanClick(t *testing.T) {
	e := ready(t)
	e.open("/hands/scripted.html")
	for i := range 10 {
		eff := effectsOf(t, "click", e.ok("click", map[string]any{"role": "button", "name": "Count"}))
		if eff["settled"] != true || eff["navigated"] != nil {
			t.Fatalf("run %d: the quiet click's effects %v, want settled and nothing else", i, eff)
		}
		for _, b := range []struct{ name, url string }{
			{"Go by script", "/hands/next.html"},
			{"Replace by script", "/hands/next.html?replaced"},
		} {
			eff := effectsOf(t, "click", e.ok("click", map[string]any{"role": "button", "name": b.name}))
			if eff["navigated"] != true || !strings.HasSuffix(fmt.Sprint(eff["url"]), b.url) || eff["settled"] != true || eff["title"] != "Next page" {
				t.Fatalf("run %d: %q (location set by the handler): effects %v, want navigated to %s, its title, settled", i, b.name, eff, b.url)
			}
			e.ok("navigate", map[string]any{"url": e.site.URL + "/hands/scripted.html"})
		}
		eff = effectsOf(t, "click", e.ok("click", map[string]any{"role": "button", "name": "Push a route"}))
		if eff["navigated"] != true || !strings.HasSuffix(fmt.Sprint(eff["url"]), "/hands/scripted.html?step=2") || eff["settled"] != true {
			t.Fatalf("run %d: pushState: effects %v, want navigated to ?step=2, settled", i, eff)
		}
		e.ok("navigate", map[string]any{"url": e.site.URL + "/hands/scripted.html"})
	}
}
