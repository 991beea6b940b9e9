//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// harSite serves testdata/har (a document, a script, a stylesheet) with
// the cache headers of a real site, and the JSON API its script calls:
//
//	GET /har/{file}         the fixture, cacheable for 5 minutes; page.html
//	                        also sets an HttpOnly session cookie
//	GET /har/api/orders     200 JSON; the request carries Authorization
//	                        and the cookie
func harSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /har/api/orders", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `[{"id":1,"item":"red bicycle"},{"id":2,"item":"blue kettle"}]`)
	})
	mux.HandleFunc("GET /har/{file}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=300")
		if r.PathValue("file") == "page.html" {
			http.SetCookie(w, &http.Cookie{Name: "har_session", Value: harCookie, Path: "/har", HttpOnly: true})
		}
		http.ServeFile(w, r, filepath.Join("testdata", "har", filepath.Base(r.PathValue("file"))))
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	s := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// harCookie is the session cookie's value: the HAR must never hold it
// while redaction is on (the default).
const harCookie = "har-cookie-value-7f3a"

// harView is the part of observe's format:"har" answer the test reads.
type harView struct {
	Entries      int            `json:"entries"`
	Bodies       map[string]int `json:"bodies"`
	ResourceLink struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
	} `json:"resource_link"`
}

// TestHARReplaysOffline: a page with a document, a script, a stylesheet
// and a JSON API call, exported with observe({what:"network",
// format:"har"}) and saved with resources/read, is served offline by
// Playwright's routeFromHAR (the site is shut down first): the page
// renders the same text. The API's Authorization header stays redacted,
// and the session cookie the page set never shows (Chrome does not give
// the capture cookie headers: a guard, see below). Every entry's timings follow
// HAR 1.2 (send, wait and receive non-negative, the others -1 or more, time
// their sum), and the page's own requests, which its Resource Timing
// entries describe, have their httpVersion and phases; the page has its
// DOMContentLoaded and load times.
func TestHARReplaysOffline(t *testing.T) {
	npmDir, err := filepath.Abs(filepath.Join("..", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(npmDir, "node_modules", "playwright-core", "package.json")); err != nil {
		t.Fatalf("playwright-core is not installed in %s: run make npm-deps (%v)", npmDir, err)
	}
	node := filepath.Join(npmDir, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	e := newEnv(t)
	site := harSite(t)
	e.startBrowser(site.URL + "/favicon.ico")
	e.pair()
	e.agentAtWork() // bodies are captured in pages loaded at work
	pageURL := site.URL + "/har/page.html"
	p := e.openPage(pageURL)
	var live string
	p.eval(`document.body.innerText`, &live)
	if !strings.Contains(live, "STYLED BY THE STYLESHEET") || !strings.Contains(live, "the script ran") || !strings.Contains(live, "2: blue kettle") {
		t.Fatalf("the live page did not render its script, style and API: %q", live)
	}

	// The capture reaches the daemon in batches: wait for the API call
	// with its body, and the stylesheet.
	e.observeUntil(map[string]any{"what": "network", "url": "/har/", "tabs": "all"}, 20*time.Second, func(o observed) error {
		var api, css bool
		for _, en := range o.Entries {
			api = api || strings.Contains(en.str("url"), "/har/api/orders") && en.num("status") == 200 && en.num("response_body_chars") > 0
			css = css || strings.HasSuffix(en.str("url"), "/style.css")
		}
		if !api || !css {
			return errors.New("the API call with its body and the stylesheet are not captured yet")
		}
		return nil
	})

	r := e.call("observe", map[string]any{"what": "network", "format": "har", "url": "/har/", "tabs": "all"})
	var v harView
	if err := json.Unmarshal(r.Raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.Raw, err)
	}
	if v.ResourceLink.URI == "" || v.ResourceLink.MIMEType != "application/json" || v.Entries < 4 {
		t.Fatalf("format:har: got %s, want a stored HAR of at least 4 entries as application/json", r.Raw)
	}
	// The export's own re-reads are not captured: a second export holds
	// the same requests.
	var again harView
	if err := json.Unmarshal(e.call("observe", map[string]any{"what": "network", "format": "har", "url": "/har/", "tabs": "all"}).Raw, &again); err != nil {
		t.Fatal(err)
	}
	if again.Entries != v.Entries {
		t.Errorf("a second export holds %d entries, the first %d: the re-reads of the first were captured", again.Entries, v.Entries)
	}
	res, err := e.mcp.Session.ReadResource(e.ctx, &mcp.ReadResourceParams{URI: v.ResourceLink.URI})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %v %+v", v.ResourceLink.URI, err, res)
	}
	if got := res.Contents[0].MIMEType; got != "application/json" {
		t.Errorf("resources/read mimeType: got %q, want application/json", got)
	}
	text := res.Contents[0].Text
	var doc struct {
		Log struct {
			Version string `json:"version"`
			Pages   []struct {
				Title       string             `json:"title"`
				PageTimings map[string]float64 `json:"pageTimings"`
			} `json:"pages"`
			Entries []struct {
				Time    float64 `json:"time"`
				Comment string  `json:"comment"`
				Request struct {
					URL         string `json:"url"`
					HTTPVersion string `json:"httpVersion"`
					Headers     []struct{ Name, Value string }
					Cookies     []struct{ Name, Value string }
				} `json:"request"`
				Response struct {
					HTTPVersion string `json:"httpVersion"`
					Cookies     []struct{ Name, Value string }
					Content     struct {
						Text, Comment string
					} `json:"content"`
				} `json:"response"`
				Timings map[string]float64 `json:"timings"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("the HAR is not JSON: %v\n%.2000s", err, text)
	}
	if doc.Log.Version != "1.2" {
		t.Errorf("log.version: got %q, want 1.2", doc.Log.Version)
	}
	if strings.Contains(text, "har-secret-token") {
		t.Errorf("the HAR holds the Authorization token")
	}
	for _, p := range doc.Log.Pages {
		if p.Title == pageURL && (p.PageTimings["onContentLoad"] <= 0 || p.PageTimings["onLoad"] < p.PageTimings["onContentLoad"]) {
			t.Errorf("the page's pageTimings: got %v, want its DOMContentLoaded and then its load, in ms from its start", p.PageTimings)
		}
	}
	// Chrome gives the capture no Cookie or Set-Cookie header at all
	// (webRequest without "extraHeaders", capture/network.js), so the HAR
	// lists no cookies of a real page and these checks cannot fail today:
	// they guard that the value never leaks should the capture ever get
	// them. The cookie parsing and its redaction are tested on captured
	// headers by internal/har's TestCookies.
	if strings.Contains(text, harCookie) {
		t.Errorf("the HAR holds the session cookie's value")
	}
	for _, en := range doc.Log.Entries {
		u := en.Request.URL
		if en.Request.Cookies == nil || en.Response.Cookies == nil {
			t.Errorf("%s: cookies must be arrays, got request %v response %v", u, en.Request.Cookies, en.Response.Cookies)
		}
		for _, c := range append(en.Request.Cookies, en.Response.Cookies...) {
			if c.Name == "har_session" && c.Value != "[redacted]" {
				t.Errorf("%s: the session cookie's value is %q, want it redacted", u, c.Value)
			}
		}
		for _, h := range en.Request.Headers {
			if strings.EqualFold(h.Name, "cookie") {
				t.Logf("%s: Cookie header %q, cookies %v", u, h.Value, en.Request.Cookies)
			}
		}
		sum := 0.0
		for _, phase := range []string{"blocked", "dns", "connect", "send", "wait", "receive", "ssl"} {
			v, ok := en.Timings[phase]
			switch {
			case !ok:
				t.Errorf("%s: timings.%s is missing", u, phase)
			case v < -1 || v < 0 && (phase == "send" || phase == "wait" || phase == "receive"):
				t.Errorf("%s: timings.%s is %v, HAR 1.2 wants %s", u, phase, v, map[bool]string{true: "0 or more", false: "-1 or more"}[phase == "send" || phase == "wait" || phase == "receive"])
			case v > 0 && phase != "ssl":
				sum += v
			}
		}
		t.Logf("%s: %s, time %.1f ms, timings %v", u[strings.LastIndex(u, "/")+1:], en.Response.HTTPVersion, en.Time, en.Timings)
		if math.Abs(sum-en.Time) > 0.01 {
			t.Errorf("%s: time %v is not the sum of its timings %v (%v)", u, en.Time, sum, en.Timings)
		}
		if en.Request.HTTPVersion != "HTTP/1.1" || en.Response.HTTPVersion != "HTTP/1.1" || en.Timings["blocked"] < 0 {
			t.Errorf("%s: httpVersion %q/%q, blocked %v (comment %q); want HTTP/1.1 and the phases from the page's Resource Timing entry",
				u, en.Request.HTTPVersion, en.Response.HTTPVersion, en.Timings["blocked"], en.Comment)
		}
	}
	bodies := map[string]string{}
	for _, en := range doc.Log.Entries {
		u := en.Request.URL
		bodies[u[strings.LastIndex(u, "/")+1:]] = en.Response.Content.Comment
		if !strings.Contains(u, "/har/api/orders") {
			continue
		}
		auth := ""
		for _, h := range en.Request.Headers {
			if strings.EqualFold(h.Name, "authorization") {
				auth = h.Value
			}
		}
		if auth != "[redacted]" {
			t.Errorf("the API's Authorization header in the HAR: got %q, want [redacted]", auth)
		}
	}
	for file, want := range map[string]string{"page.html": "cache re-read", "app.js": "cache re-read", "style.css": "cache re-read", "orders?status=open": "captured"} {
		if got := bodies[file]; got != want {
			t.Errorf("%s's body: got %q, want %q (every entry: %v)", file, got, want, bodies)
		}
	}

	harPath := filepath.Join(t.TempDir(), "page.har")
	if err := os.WriteFile(harPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	site.Close() // offline: only the HAR can serve the page now
	cmd := exec.CommandContext(e.ctx, node, filepath.Join("testdata", "har", "replay.mjs"), npmDir, chromiumBin, harPath, pageURL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("replaying the HAR with routeFromHAR: %v\n%s\n%s", err, out, stderr.String())
	}
	var replay struct{ Text string }
	if err := json.Unmarshal(out, &replay); err != nil {
		t.Fatalf("the replay printed %q: %v\n%s", out, err, stderr.String())
	}
	if replay.Text != live {
		t.Errorf("replayed page text:\n%q\nwant the live page's:\n%q", replay.Text, live)
	}
}
