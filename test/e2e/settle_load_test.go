//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The tests in this file navigate to pages that keep working right after
// their load event (a script redirect, a render that waits on a timer after
// its data came back, a clock that never stops), and assert what the
// agent reads first after navigate: no sleeps, no retries.

// TestSettleLoadRedirect: an auth guard sends the page to sign-in 50 ms
// after load. navigate's result names the sign-in page, and observe page
// and get_text agree at once.
func TestSettleLoadRedirect(t *testing.T) {
	e := ready(t)
	e.open("/a")
	r := e.ok("navigate", map[string]any{"url": e.site.URL + "/play/bounce.html"})
	if !strings.HasSuffix(fmt.Sprint(r["url"]), "/play/login.html") || r["title"] != "Sign in" || r["settled"] != nil {
		t.Errorf("navigate to a page that redirects after load: %v, want the sign-in page (url /play/login.html, title Sign in), settled", r)
	}
	if p := e.pageOf(r["tab_id"]); !strings.HasSuffix(fmt.Sprint(p["url"]), "/play/login.html") || p["title"] != "Sign in" {
		t.Errorf("observe page right after navigate: %v, want the sign-in page", p)
	}
	if got := e.pageText("h1", nil); got != "Sign in" {
		t.Errorf("get_text right after navigate: %q, want %q", got, "Sign in")
	}
}

// TestSettleLoadTimerRender: the page fetches its data while loading (200
// ms) and renders it 300 ms after it came back. The first read after
// navigate has the rendered text, not "Loading…".
func TestSettleLoadTimerRender(t *testing.T) {
	e := ready(t)
	e.open("/a")
	r := e.ok("navigate", map[string]any{"url": e.site.URL + "/play/lateshow.html"})
	if !strings.HasSuffix(fmt.Sprint(r["url"]), "/play/lateshow.html") || r["settled"] != nil {
		t.Errorf("navigate: %v, want /play/lateshow.html, settled", r)
	}
	if got := e.pageText("#body", nil); got != "3 orders shipped" {
		t.Errorf("get_text right after navigate: %q, want the rendered %q", got, "3 orders shipped")
	}
}

// TestSettleLoadNeverQuiet: a clock that sets a 50 ms timer forever. navigate
// still completes within the settle cap (2 s after load, with a wide
// margin for a busy machine) and says the page did not go quiet; clicks
// afterwards are not held up by the clock the load started, nor by its
// ticks during a click's fetch.
func TestSettleLoadNeverQuiet(t *testing.T) {
	e := ready(t)
	e.open("/a")
	start := time.Now()
	r := e.ok("navigate", map[string]any{"url": e.site.URL + "/play/ticker.html"})
	took := time.Since(start)
	pending := fmt.Sprint(r["pending"])
	if r["settled"] != false || !strings.Contains(pending, "timer(s) the page set while loading") {
		t.Errorf("navigate to a page that never goes quiet: %v, want settled false with the page's timers pending", r)
	}
	if took < 2*time.Second || took > 10*time.Second {
		t.Errorf("navigate took %v, want the 2 s cap (and not much more)", took)
	}
	c := e.ok("click", map[string]any{"role": "button", "name": "Say"})
	if eff := effectsOf(t, "click", c); eff["settled"] != true {
		t.Errorf("click on the ticking page: effects %v, want settled (the load's clock is not the click's)", eff)
	}
	// A click whose fetch is in flight while the clock ticks: the tick set
	// meanwhile is waited for once, the clock is not adopted for good.
	c = e.ok("click", map[string]any{"role": "button", "name": "Search"})
	if eff := effectsOf(t, "click", c); eff["settled"] != true || e.pageText("#said", nil) != "2 found" {
		t.Errorf("click Search: effects %v, want settled with the answer rendered", eff)
	}
	c = e.ok("click", map[string]any{"role": "button", "name": "Say"})
	if eff := effectsOf(t, "click", c); eff["settled"] != true {
		t.Errorf("click after the search: effects %v, want settled (the clock ticking during the search is not the click's)", eff)
	}
}
