//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newBFSite serves a page the browser may keep in its back/forward cache
// (no Cache-Control: no-store, no unload handler, no open connection) and
// a page to go to from it:
//
//	GET /bf/shop.html   "Shop": logs "bf loaded"; every pageshow is pushed
//	                    to window.shown (its persisted flag) and a restore
//	                    logs "bf restored"; the Count button logs
//	                    "bf clicked N" and fetches /bf/api/count?n=N, whose
//	                    answer it shows in #n; the Next link goes to
//	                    /bf/next.html
//	GET /bf/next.html   "Next"
//	GET /bf/api/count   ?n, as text, 100 ms later
func newBFSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head><body>%s</body></html>", title, body)
	}
	mux.HandleFunc("GET /bf/shop.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, "Shop", `<h1>Shop</h1><button id="count">Count</button> <output id="n">0</output> <a id="next" href="/bf/next.html">Next</a>
<script>
window.shown = [];
addEventListener('pageshow', (e) => {
  shown.push(e.persisted);
  if (e.persisted) console.log('bf restored');
});
console.log('bf loaded');
let n = 0;
document.getElementById('count').addEventListener('click', () => {
  const k = ++n;
  console.log('bf clicked ' + k);
  fetch('/bf/api/count?n=' + k).then((r) => r.text()).then((t) => { document.getElementById('n').textContent = t; });
});
</script>`)
	})
	mux.HandleFunc("GET /bf/next.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, "Next", `<h1>Next</h1>`)
	})
	mux.HandleFunc("GET /bf/api/count", func(w http.ResponseWriter, r *http.Request) {
		if later(r, 100*time.Millisecond) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprint(w, r.URL.Query().Get("n"))
		}
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestBackToCachedPage: the agent clicks on a page, navigates away and
// goes back; the page comes back from the back/forward cache (its
// pageshow says persisted). back settles (the restored page's relay
// answers the flush), and what the page does after the restore (a log in
// its pageshow handler, a click's log and fetch) is read by the first
// observe after each action, while what it did before it was left is
// there exactly once.
func TestBackToCachedPage(t *testing.T) {
	e := ready(t)
	site := newBFSite(t)
	shop, next := site.URL+"/bf/shop.html", site.URL+"/bf/next.html"

	tab := e.ok("new_tab", map[string]any{"url": shop})["tab_id"]
	c := e.ok("click", map[string]any{"tab_id": tab, "selector": "#count"})
	if eff := effectsOf(t, "click", c); eff["settled"] != true {
		t.Errorf("click Count before leaving: effects %v, want settled", eff)
	}
	e.ok("navigate", map[string]any{"tab_id": tab, "url": next})

	start := time.Now()
	r := e.ok("back", map[string]any{"tab_id": tab})
	t.Logf("back to the cached page took %v", time.Since(start))
	logs := e.observe(map[string]any{"what": "logs", "tab_id": tab, "limit": 100})

	e.restoredFromCache(tab)
	if r["url"] != shop || r["settled"] != nil || r["capture"] != nil {
		t.Errorf("back to the cached page: %v, want url %s, settled, capture complete", r, shop)
	}
	if n := count(logs, "bf restored"); n != 1 {
		t.Errorf("observe logs right after back: the restored page's pageshow log %d times, want once:\n%s", n, logs.Raw)
	}

	c = e.ok("click", map[string]any{"tab_id": tab, "selector": "#count"})
	if eff := effectsOf(t, "click", c); eff["settled"] != true || requestTo(requestsOf(eff), "/bf/api/count") == nil {
		t.Errorf("click Count on the restored page: effects %v, want settled with its fetch of /bf/api/count", eff)
	}
	if got := e.pageText("#n", map[string]any{"tab_id": tab}); got != "2" {
		t.Errorf("get_text #n after the second click: %q, want 2", got)
	}
	logs = e.observe(map[string]any{"what": "logs", "tab_id": tab, "limit": 100})
	for _, line := range []string{"bf loaded", "bf clicked 1", "bf restored", "bf clicked 2"} {
		if n := count(logs, line); n != 1 {
			t.Errorf("observe logs right after the click on the restored page: %q %d times, want once", line, n)
		}
	}
	net := e.observe(map[string]any{"what": "network", "tab_id": tab, "limit": 100})
	for _, n := range []string{"1", "2"} {
		got := where(net.Entries, func(v ev) bool { return strings.HasSuffix(v.str("url"), "/bf/api/count?n="+n) })
		if len(got) != 1 || got[0].num("status") != 200 {
			t.Errorf("observe network: the fetch of count n=%s %v, want it once, status 200", n, got)
		}
	}
	// The largest paint of the shop is reported as it is left (pagehide),
	// as it enters the cache: once, as the top frame's.
	vit := e.observe(map[string]any{"what": "vitals", "tab_id": tab, "limit": 100})
	lcp, at := 0, ""
	for _, v := range vit.Entries {
		if u := v.str("page_url"); u != "" {
			at = u
		}
		if v.str("name") == "LCP" && at == shop {
			lcp++
			if _, framed := v["frame_id"]; framed {
				t.Errorf("observe vitals: the shop's LCP is stamped as another frame's: %v", v)
			}
		}
	}
	if lcp != 1 {
		t.Errorf("observe vitals: the shop's LCP %d times, want once:\n%s", lcp, vit.Raw)
	}
	if t.Failed() {
		t.Logf("logs:\n%s\nnetwork:\n%s", logs.Raw, net.Raw)
	}
}

// TestBackToCachedPageLeftByLink: the agent leaves the shop by clicking
// its Next link and goes back. The shop's relay noted the link followed
// (to answer a flush that a navigation is coming); back, restoring the
// page from the back/forward cache, settles with nothing pending and no
// word of a navigation still to begin. (The relay forgets the link at the
// restore: extension/test/relay-leave.test.js. Here, a link not yet
// announced would be announced to back's first probe, and its settler's
// own probe would find it gone: only a settler's pass longer.)
func TestBackToCachedPageLeftByLink(t *testing.T) {
	e := ready(t)
	site := newBFSite(t)
	shop, next := site.URL+"/bf/shop.html", site.URL+"/bf/next.html"

	tab := e.ok("new_tab", map[string]any{"url": shop})["tab_id"]
	c := e.ok("click", map[string]any{"tab_id": tab, "selector": "#next"})
	if eff := effectsOf(t, "click", c); eff["navigated"] != true || eff["url"] != next {
		t.Fatalf("click Next: effects %v, want navigated to %s", eff, next)
	}

	start := time.Now()
	r := e.ok("back", map[string]any{"tab_id": tab})
	t.Logf("back to the cached page left by a link took %v: %v", time.Since(start), r)

	e.restoredFromCache(tab)
	if r["url"] != shop || r["settled"] != nil || r["pending"] != nil || r["capture"] != nil {
		t.Errorf("back to the cached page: %v, want url %s, settled with nothing pending, capture complete", r, shop)
	}
	if strings.Contains(fmt.Sprint(r), "navigation") {
		t.Errorf("back to the cached page: %v, want no word of a navigation still to begin", r)
	}
}

// TestUserBackToPageLeftByLink: the agent leaves the shop by clicking its
// Next link and the user goes back, so no command of the agent's asks the
// restored page anything before its next action. That action, a click on
// the shop's heading with settle_ms 800, settles: it does not wait 1 s
// (the settler's NAV_START_MS, past its cap) for the navigation of the
// link followed before the page entered the back/forward cache.
func TestUserBackToPageLeftByLink(t *testing.T) {
	e := ready(t)
	site := newBFSite(t)
	shop, next := site.URL+"/bf/shop.html", site.URL+"/bf/next.html"

	tab := e.ok("new_tab", map[string]any{"url": shop})["tab_id"]
	c := e.ok("click", map[string]any{"tab_id": tab, "selector": "#next"})
	if eff := effectsOf(t, "click", c); eff["navigated"] != true || eff["url"] != next {
		t.Fatalf("click Next: effects %v, want navigated to %s", eff, next)
	}
	s := e.pageSession(next)
	if err := s.Evaluate(e.ctx, "history.back()", nil); err != nil {
		t.Fatalf("the user goes back: %v", err)
	}
	var shown []bool
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := s.Evaluate(e.ctx, `location.pathname === "/bf/shop.html" && document.readyState === "complete" ? window.shown : null`, &shown)
		if err == nil && len(shown) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shop is not back within 10 s after history.back(): %v", err)
		}
	}
	if len(shown) != 2 || shown[0] || !shown[1] {
		t.Fatalf("the page's pageshow events (persisted flags): %v, want [false true]: it was not restored from the back/forward cache", shown)
	}

	start := time.Now()
	c = e.ok("click", map[string]any{"tab_id": tab, "selector": "h1", "settle_ms": 800})
	t.Logf("the first click on the restored page took %v", time.Since(start))
	if eff := effectsOf(t, "click", c); eff["settled"] != true || eff["navigated"] != nil {
		t.Errorf("click the restored page's heading: effects %v, want settled, not navigated", eff)
	}
}

// count is how many of o's entries have message line.
func count(o observed, line string) int {
	return len(where(o.Entries, func(v ev) bool { return v.str("message") == line }))
}

// restoredFromCache fails the test unless the shop page in tab was shown
// twice, the second time restored from the back/forward cache (its
// pageshow events' persisted flags), saying why Chrome did not restore it.
func (e *env) restoredFromCache(tab any) {
	e.t.Helper()
	var shown []bool
	if err := json.Unmarshal(complete(e.t, e.js("window.shown", map[string]any{"tab_id": tab})).Value, &shown); err != nil || len(shown) != 2 || shown[0] || !shown[1] {
		why := complete(e.t, e.js("JSON.stringify(performance.getEntriesByType('navigation')[0].notRestoredReasons)", map[string]any{"tab_id": tab})).Value
		e.t.Fatalf("the page's pageshow events (persisted flags): %v (%v), want [false true]: it was not restored from the back/forward cache; notRestoredReasons %s", shown, err, why)
	}
}
