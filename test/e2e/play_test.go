//go:build unix

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The tests in this file play an agent doing everyday tasks on pages that
// behave like real ones (a login that sets a cookie and redirects, a save
// that fails slowly, a debounced search, a client-side route change, a
// boot script that throws), and assert what the agent would conclude from
// the first read after each action: no sleeps, no retries.

// playPages serves testdata/play and the endpoints its pages use:
//
//	POST /play/login       sets a session cookie, 303 to /play/dashboard.html
//	POST /play/widget-login  a page that tells its parent who signed in
//	GET  /play/api/stats   {"orders":7} 300 ms later; 401 without the cookie
//	GET  /play/api/report  502 {"error":"upstream timed out"} 800 ms later
//	POST /play/api/save    500 {"error":"disk full"} 800 ms later
//	GET  /play/api/search  the names containing ?q=, 100 ms later
//	GET  /play/api/route   the text of route ?name=, 200 ms later
//	GET  /play/report.csv  an attachment
//	POST /play/ticket      a page "Ticket received: <subject>"
func playPages() http.Handler {
	return routedPages(map[string]http.HandlerFunc{
		"POST /play/login": func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			if r.PostForm.Get("email") == "" {
				http.Error(w, "email missing", http.StatusBadRequest)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cr3t-session", Path: "/play", HttpOnly: true})
			http.Redirect(w, r, "/play/dashboard.html", http.StatusSeeOther)
		},
		"POST /play/widget-login": func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			email := strings.NewReplacer("<", "", "&", "", "'", "", "\\", "").Replace(r.PostForm.Get("email"))
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Signed in</title></head><body><p>Welcome</p><script>parent.postMessage({signedIn: '%s'}, location.origin)</script></body></html>`, email)
		},
		"/play/api/stats": func(w http.ResponseWriter, r *http.Request) {
			if c, err := r.Cookie("session"); err != nil || c.Value != "s3cr3t-session" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":"not signed in"}`)
				return
			}
			if later(r, 300*time.Millisecond) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"orders":7}`)
			}
		},
		"/play/api/report": func(w http.ResponseWriter, r *http.Request) {
			if later(r, 800*time.Millisecond) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, `{"error":"upstream timed out"}`)
			}
		},
		"POST /play/api/save": func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if later(r, 800*time.Millisecond) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `{"error":"disk full"}`)
			}
		},
		"/play/api/search": func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query().Get("q")
			var hits []string
			for _, n := range []string{"gasoline", "gas-meter", "python3-doc", "chromium"} {
				if strings.Contains(n, q) {
					hits = append(hits, fmt.Sprintf("%q", n))
				}
			}
			if later(r, 100*time.Millisecond) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, "["+strings.Join(hits, ",")+"]")
			}
		},
		"/play/api/route": func(w http.ResponseWriter, r *http.Request) {
			texts := map[string]string{"home": `{"title":"Home","text":"Welcome back"}`, "orders": `{"title":"Orders","text":"3 orders shipped"}`}
			body, ok := texts[r.URL.Query().Get("name")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			if later(r, 200*time.Millisecond) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, body)
			}
		},
		"/play/report.csv": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
			io.WriteString(w, "id,total\n1,42\n")
		},
		"POST /play/ticket": func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Ticket</title></head><body><h1>Ticket received: %s</h1></body></html>`,
				strings.NewReplacer("<", "&lt;", "&", "&amp;").Replace(r.PostForm.Get("subject")))
		},
	})
}

// routedPages serves the pages of a play or truth test: every answer is
// not to be cached; a request goes to the route for its "METHOD /path",
// else to the one for its path (any method), else a GET is served from
// testdata and anything else is 404.
func routedPages(routes map[string]http.HandlerFunc) http.Handler {
	files := http.FileServer(http.Dir("testdata"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if h := routes[r.Method+" "+r.URL.Path]; h != nil {
			h(w, r)
		} else if h := routes[r.URL.Path]; h != nil {
			h(w, r)
		} else if r.Method == http.MethodGet {
			files.ServeHTTP(w, r)
		} else {
			http.NotFound(w, r)
		}
	})
}

// later waits d and reports true, or reports false when the client gave up
// on r first.
func later(r *http.Request, d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

// requestsOf returns the requests an action's effects list.
func requestsOf(eff map[string]any) []map[string]any {
	var out []map[string]any
	reqs, _ := eff["requests"].([]any)
	for _, q := range reqs {
		if m, ok := q.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// requestTo is the request to path among reqs, or nil.
func requestTo(reqs []map[string]any, path string) map[string]any {
	for _, q := range reqs {
		if strings.Contains(fmt.Sprint(q["url"]), path) {
			return q
		}
	}
	return nil
}

// TestPlaySignInDashboard: an agent signs in; the form POSTs, gets a
// cookie and a 303 to a dashboard that fetches its data (answered 300 ms
// later) and renders it. Right after the click's result the agent is on
// the dashboard, observe network lists the data request with its 200, and
// the rendered count is on the page; no 401, no error.
func TestPlaySignInDashboard(t *testing.T) {
	e := ready(t)
	e.open("/play/login.html")
	cursor := e.observe(map[string]any{"what": "network", "limit": 1}).NextCursor

	e.ok("fill", map[string]any{"role": "textbox", "name": "Email", "text": "ada@example.com"})
	e.ok("fill", map[string]any{"selector": "input[type=password]", "text": "hunter2hunter2"})
	r := e.ok("click", map[string]any{"role": "button", "name": "Sign in"})
	eff := effectsOf(t, "click", r)
	if eff["navigated"] != true || !strings.HasSuffix(fmt.Sprint(eff["url"]), "/play/dashboard.html") || eff["settled"] != true {
		t.Errorf("click Sign in: effects %v, want navigated to /play/dashboard.html, settled", eff)
	}
	if got := e.pageText("#orders", nil); got != "7 open orders" {
		t.Errorf("get_text right after signing in: %q, want the dashboard's data %q", got, "7 open orders")
	}
	net := e.observe(map[string]any{"what": "network", "url": "/play/api/stats", "since": cursor})
	if len(net.Entries) != 1 || net.Entries[0].num("status") != 200 {
		t.Errorf("observe network right after signing in: want the dashboard's data request once, status 200:\n%s", net.Raw)
	}
	if errs := e.observe(map[string]any{"what": "errors", "since": cursor}); len(errs.Entries) != 0 {
		t.Errorf("observe errors after a clean sign in: %s, want none", errs.Raw)
	}
}

// TestPlaySaveFails: Save's request answers 500 after 800 ms and the page
// shows an error banner. The click's own result lists the request with
// its 500 and counts it failed; the banner and the failed request are
// both readable right after.
func TestPlaySaveFails(t *testing.T) {
	e := ready(t)
	e.open("/play/editor.html")
	cursor := e.observe(map[string]any{"what": "network", "limit": 1}).NextCursor

	r := e.ok("click", map[string]any{"role": "button", "name": "Save"})
	eff := effectsOf(t, "click", r)
	save := requestTo(requestsOf(eff), "/play/api/save")
	if eff["settled"] != true || save == nil || save["status"] != 500.0 || save["method"] != "POST" {
		t.Errorf("click Save: effects %v, want the POST /play/api/save with status 500, settled", eff)
	}
	if got := e.pageText("[role=alert]", nil); got != "Could not save: disk full" {
		t.Errorf("get_text of the banner right after the click: %q, want %q", got, "Could not save: disk full")
	}
	net := e.observe(map[string]any{"what": "network", "status": ">=400", "since": cursor})
	fails := where(net.Entries, func(v ev) bool { return strings.Contains(v.str("url"), "/play/api/save") })
	if len(fails) != 1 || fails[0].num("status") != 500 || fails[0].str("method") != "POST" {
		t.Fatalf("observe network right after the click: %v, want the failed save once, POST 500:\n%s", fails, net.Raw)
	}
	body := e.call("observe", map[string]any{"what": "network", "id": fails[0].num("id"), "body": "response"})
	if !strings.Contains(string(body.Raw), "disk full") {
		t.Errorf("the failed save's response body read right after: %s, want it", body.Raw)
	}
}

// TestPlayDebouncedSearch: typing into a search box whose handler waits
// 300 ms before its XHR. The fill's result follows the debounce and lists
// the search request with its status; the hits are on the page right
// after; a second fill replaces them, and so does type, key by key.
func TestPlayDebouncedSearch(t *testing.T) {
	e := ready(t)
	e.open("/play/search.html")

	r := e.ok("fill", map[string]any{"role": "searchbox", "name": "Package", "text": "gas"})
	eff := effectsOf(t, "fill", r)
	q := requestTo(requestsOf(eff), "/play/api/search?q=gas")
	if eff["settled"] != true || q == nil || q["status"] != 200.0 {
		t.Errorf("fill the search box: effects %v, want the debounced search request with status 200, settled", eff)
	}
	if got := e.pageText("#hits", nil); got != "gasoline\ngas-meter" {
		t.Errorf("get_text of the hits right after the fill: %q, want %q", got, "gasoline\ngas-meter")
	}
	e.ok("fill", map[string]any{"role": "searchbox", "name": "Package", "text": "doc"})
	if got := e.pageText("#hits", nil); got != "python3-doc" {
		t.Errorf("get_text of the hits right after the second fill: %q, want %q", got, "python3-doc")
	}
	// type: every key restarts the debounce; only the last one searches.
	e.ok("fill", map[string]any{"role": "searchbox", "name": "Package", "text": ""})
	r = e.ok("type", map[string]any{"role": "searchbox", "name": "Package", "text": "chrom"})
	eff = effectsOf(t, "type", r)
	if q := requestTo(requestsOf(eff), "/play/api/search?q=chrom"); eff["settled"] != true || q == nil || q["status"] != 200.0 {
		t.Errorf("type into the search box: effects %v, want the search for the whole text with status 200, settled", eff)
	}
	if got := e.pageText("#hits", nil); got != "chromium" {
		t.Errorf("get_text of the hits right after typing: %q, want %q", got, "chromium")
	}
}

// TestPlaySPARoute: a client-side route change (pushState, then a fetch
// that fills the view and sets the title). The click's effects show the
// new url and the data request; observe page right after has the new url
// and title, and the view's text is the loaded one; back and forward
// (popstate, which fetches again) read the loaded view too.
func TestPlaySPARoute(t *testing.T) {
	e := ready(t)
	e.open("/play/spa.html")

	r := e.ok("click", map[string]any{"role": "link", "name": "Orders"})
	eff := effectsOf(t, "click", r)
	q := requestTo(requestsOf(eff), "/play/api/route?name=orders")
	if eff["settled"] != true || q == nil || q["status"] != 200.0 || !strings.HasSuffix(fmt.Sprint(r["url"]), "/play/spa.html?route=orders") {
		t.Errorf("click Orders: url %v effects %v, want the new route's url and its data request with status 200, settled", r["url"], eff)
	}
	if got := e.pageText("#body", nil); got != "3 orders shipped" {
		t.Errorf("get_text right after the route change: %q, want %q", got, "3 orders shipped")
	}
	if p := e.pageOf(r["tab_id"]); !strings.HasSuffix(fmt.Sprint(p["url"]), "?route=orders") || p["title"] != "Shop · Orders" {
		t.Errorf("observe page right after the route change: url %v title %v, want ?route=orders titled %q", p["url"], p["title"], "Shop · Orders")
	}

	// back: the page's popstate handler fetches the old route's data again.
	r = e.ok("back", nil)
	if !strings.HasSuffix(fmt.Sprint(r["url"]), "/play/spa.html") {
		t.Errorf("back: url %v, want /play/spa.html", r["url"])
	}
	if got := e.pageText("#body", nil); got != "Welcome back" {
		t.Errorf("get_text right after back: %q, want %q", got, "Welcome back")
	}
	e.ok("forward", nil)
	if got := e.pageText("#body", nil); got != "3 orders shipped" {
		t.Errorf("get_text right after forward: %q, want %q", got, "3 orders shipped")
	}
}

// TestPlayBootThrows: a page whose DOMContentLoaded handler throws. Right
// after navigate completes, observe errors has the SyntaxError, and the
// handler's work before the throw is on the page.
func TestPlayBootThrows(t *testing.T) {
	e := ready(t)
	e.open("/a")
	cursor := e.observe(map[string]any{"what": "errors", "limit": 1}).NextCursor
	e.ok("navigate", map[string]any{"url": e.site.URL + "/play/boot.html"})
	errs := e.observe(map[string]any{"what": "errors", "since": cursor})
	if len(where(errs.Entries, func(v ev) bool { return strings.Contains(v.str("message"), "JSON") })) != 1 {
		t.Errorf("observe errors right after navigate: want the DOMContentLoaded handler's JSON error once:\n%s", errs.Raw)
	}
	if got := e.pageText("#state", nil); got != "booting" {
		t.Errorf("get_text right after navigate: %q, want %q", got, "booting")
	}
}

// TestPlayNewTabForm: a link with target=_blank opens a form in a new tab.
// The click's effects name the new tab (id, url, title, loaded), so the
// agent can fill and send the form there; the submit's result is the
// confirmation page.
func TestPlayNewTabForm(t *testing.T) {
	e := ready(t)
	e.open("/play/home.html")

	r := e.ok("click", map[string]any{"role": "link", "name": "Open a ticket"})
	eff := effectsOf(t, "click", r)
	tabs, _ := eff["new_tabs"].([]any)
	if len(tabs) != 1 || eff["settled"] != true || eff["navigated"] != nil {
		t.Fatalf("click a target=_blank link: effects %v, want the one new tab, settled, this tab not navigated", eff)
	}
	nt := tabs[0].(map[string]any)
	if !strings.HasSuffix(fmt.Sprint(nt["url"]), "/play/ticket.html") || nt["title"] != "New ticket" {
		t.Errorf("the new tab in effects: %v, want /play/ticket.html titled %q (loaded)", nt, "New ticket")
	}
	tab := nt["tab_id"]
	e.ok("fill", map[string]any{"tab_id": tab, "role": "textbox", "name": "Subject", "text": "Printer on fire"})
	r = e.ok("click", map[string]any{"tab_id": tab, "role": "button", "name": "Send"})
	if eff := effectsOf(t, "click", r); eff["navigated"] != true || eff["settled"] != true {
		t.Errorf("click Send in the new tab: effects %v, want navigated, settled", eff)
	}
	if got := e.pageText("h1", map[string]any{"tab_id": tab}); got != "Ticket received: Printer on fire" {
		t.Errorf("get_text in the new tab after sending: %q, want %q", got, "Ticket received: Printer on fire")
	}
}

// TestPlayDownloadStays: links that download a file (an attachment, and
// one with the download attribute) leave the page where it is. The click's
// effects never say navigated; the attachment's says which navigation did
// not happen and why, and the page reads as before.
func TestPlayDownloadStays(t *testing.T) {
	e := ready(t)
	e.open("/play/home.html")

	r := e.ok("click", map[string]any{"role": "link", "name": "Export CSV"})
	eff := effectsOf(t, "click", r)
	failed, _ := eff["navigation_failed"].(map[string]any)
	if eff["navigated"] != nil || eff["settled"] != true || failed == nil ||
		!strings.HasSuffix(fmt.Sprint(failed["url"]), "/play/report.csv") || failed["error"] != "net::ERR_ABORTED" {
		t.Errorf("click a link to an attachment: effects %v, want not navigated, navigation_failed for /play/report.csv with net::ERR_ABORTED, settled", eff)
	}
	if !strings.HasSuffix(fmt.Sprint(r["url"]), "/play/home.html") || e.pageText("h1", nil) != "Support" {
		t.Errorf("after the attachment: url %v, want the page unchanged at /play/home.html", r["url"])
	}
	r = e.ok("click", map[string]any{"role": "link", "name": "Download report"})
	if eff := effectsOf(t, "click", r); eff["navigated"] != nil || eff["settled"] != true {
		t.Errorf("click a download link: effects %v, want not navigated, settled", eff)
	}
}

// TestPlayLargeDocInSlices: the agent reads a large real page (Debian
// python3-doc's library/stdtypes.html, ~700 KB of HTML, ~166 000 chars of
// text) through execute_js. The result is stored behind a handle; read
// back slice by slice it is exactly the page's text (the page's own
// SHA-256 of it), an anchored slice finds a method's documentation, and
// every extract snippet is the text at its offsets.
func TestPlayLargeDocInSlices(t *testing.T) {
	pages, _ := filepath.Glob("/usr/share/doc/python3*/html/library/stdtypes.html")
	if len(pages) == 0 {
		t.Fatal("no /usr/share/doc/python3*/html/library/stdtypes.html: apt-get install python3-doc")
	}
	docs := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(filepath.Dir(pages[0]))))) // 127.0.0.1
	defer docs.Close()
	e := ready(t)
	e.open("/a")
	e.ok("navigate", map[string]any{"url": docs.URL + "/library/stdtypes.html"})

	truth := str(t, complete(t, e.js(`(async () => {
		const text = document.body.innerText;
		const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
		return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
	})()`, nil)))
	r := e.js("document.body.innerText", nil)
	var out struct {
		Output struct {
			ID    string `json:"id"`
			Chars int    `json:"chars"`
		} `json:"output"`
	}
	if err := json.Unmarshal(r.Value, &out); err != nil || out.Output.ID == "" || out.Output.Chars < 100000 {
		t.Fatalf("execute_js of the page's text: %.600s, want a stored output handle of over 100 000 chars", r)
	}

	type piece struct {
		Start, End, Total int
		Text              string
	}
	slice := func(args map[string]any) piece {
		t.Helper()
		a := map[string]any{"what": "command_result", "correlation_id": r.CorrelationID, "mode": "slice"}
		for k, v := range args {
			a[k] = v
		}
		s := e.call("observe", a)
		var p struct {
			Start, End int
			Total      int `json:"total_chars"`
			Text       string
		}
		if err := json.Unmarshal(s.Raw, &p); err != nil {
			t.Fatalf("slice %v: %s: %v", args, s.Raw, err)
		}
		return piece{p.Start, p.End, p.Total, p.Text}
	}
	var whole strings.Builder
	for at, n := 0, 0; ; n++ {
		p := slice(map[string]any{"start": at, "length": 20000})
		if p.Start != at || p.End <= at || p.Total != out.Output.Chars || n > 100 {
			t.Fatalf("slice from %d: start %d end %d total %d, want to go on from %d of %d", at, p.Start, p.End, p.Total, at, out.Output.Chars)
		}
		whole.WriteString(p.Text)
		if at = p.End; at >= p.Total {
			break
		}
	}
	sum := sha256.Sum256([]byte(whole.String()))
	if got := hex.EncodeToString(sum[:]); got != truth || len([]rune(whole.String())) != out.Output.Chars {
		t.Errorf("the page's text read back in slices: %d chars, sha256 %s; want the %d chars the handle announced, sha256 %s as the page computes it", len([]rune(whole.String())), got, out.Output.Chars, truth)
	}

	p := slice(map[string]any{"anchor": "str.removeprefix(prefix", "window": 400})
	if !strings.Contains(p.Text, "If the string starts with the prefix string, return string[len(prefix):]") {
		t.Errorf("slice anchored on str.removeprefix: %q, want its documentation", p.Text)
	}
	x := e.call("observe", map[string]any{"what": "command_result", "correlation_id": r.CorrelationID, "mode": "extract", "query": "removeprefix", "max_snippets": 5})
	var ex struct {
		Snippets []struct {
			Start, End int
			Text       string
		}
	}
	if err := json.Unmarshal(x.Raw, &ex); err != nil || len(ex.Snippets) == 0 {
		t.Fatalf("extract removeprefix: %.600s, want snippets", x.Raw)
	}
	for _, s := range ex.Snippets {
		if got := slice(map[string]any{"start": s.Start, "length": s.End - s.Start}).Text; got != s.Text || !strings.Contains(s.Text, "removeprefix") {
			t.Errorf("extract snippet at %d..%d: %q, but the text there is %q", s.Start, s.End, s.Text, got)
		}
	}
}

// TestPlayNavigateSlowFailure: a report page whose data request fails with
// 502 after 800 ms, and whose handler then shows a banner and rejects.
// Right after navigate completes the agent reads the banner, the failed
// request with its body, and the unhandled rejection.
func TestPlayNavigateSlowFailure(t *testing.T) {
	e := ready(t)
	e.open("/a")
	cursor := e.observe(map[string]any{"what": "network", "limit": 1}).NextCursor
	e.ok("navigate", map[string]any{"url": e.site.URL + "/play/report.html"})

	if got := e.pageText("[role=alert]", nil); got != "Report unavailable: upstream timed out" {
		t.Errorf("get_text of the banner right after navigate: %q, want %q", got, "Report unavailable: upstream timed out")
	}
	net := e.observe(map[string]any{"what": "network", "status": ">=400", "since": cursor})
	fails := where(net.Entries, func(v ev) bool { return strings.Contains(v.str("url"), "/play/api/report") })
	if len(fails) != 1 || fails[0].num("status") != 502 {
		t.Fatalf("observe network right after navigate: %v, want the failed report request once, status 502:\n%s", fails, net.Raw)
	}
	if body := e.call("observe", map[string]any{"what": "network", "id": fails[0].num("id"), "body": "response"}); !strings.Contains(string(body.Raw), "upstream timed out") {
		t.Errorf("the failed request's body read right after: %s, want it", body.Raw)
	}
	errs := e.observe(map[string]any{"what": "errors", "since": cursor})
	if len(where(errs.Entries, func(v ev) bool { return strings.Contains(v.str("message"), "report failed: 502") })) != 1 {
		t.Errorf("observe errors right after navigate: want the rejection once:\n%s", errs.Raw)
	}
}

// TestPlayWidgetAndFormInNewTab: a sign-in widget in an iframe tells its
// page who signed in once its form has posted; a form with target=_blank
// posts into a new tab. The agent signs in through the frame and reads the
// page's greeting right after the click, then sends the form and reads the
// answer in the tab the click's effects name.
func TestPlayWidgetAndFormInNewTab(t *testing.T) {
	e := ready(t)
	e.open("/play/widget.html")

	e.ok("fill", map[string]any{"frame": "#login", "role": "textbox", "name": "Email", "text": "ada@example.com"})
	r := e.ok("click", map[string]any{"frame": "#login", "role": "button", "name": "Sign in"})
	if eff := effectsOf(t, "click", r); eff["settled"] != true || eff["navigated"] != nil {
		t.Errorf("click Sign in in the widget: effects %v, want settled, the page itself not navigated", eff)
	}
	if got := e.pageText("#who", nil); got != "Signed in as ada@example.com" {
		t.Errorf("get_text of the page's greeting right after signing in in the widget: %q, want %q", got, "Signed in as ada@example.com")
	}

	e.ok("fill", map[string]any{"role": "textbox", "name": "Quick ticket", "text": "Toner low"})
	r = e.ok("click", map[string]any{"role": "button", "name": "Send in a new tab"})
	eff := effectsOf(t, "click", r)
	tabs, _ := eff["new_tabs"].([]any)
	if len(tabs) != 1 || eff["settled"] != true || eff["navigated"] != nil {
		t.Fatalf("submit a form with target=_blank: effects %v, want the one new tab, settled, this tab not navigated", eff)
	}
	nt := tabs[0].(map[string]any)
	if !strings.HasSuffix(fmt.Sprint(nt["url"]), "/play/ticket") || nt["title"] != "Ticket" {
		t.Errorf("the new tab in effects: %v, want /play/ticket titled Ticket (loaded)", nt)
	}
	if got := e.pageText("h1", map[string]any{"tab_id": nt["tab_id"]}); got != "Ticket received: Toner low" {
		t.Errorf("get_text in the new tab: %q, want %q", got, "Ticket received: Toner low")
	}
}
