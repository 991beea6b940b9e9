//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/extension"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/firefox"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// The Firefox build of the extension, written once per test binary from
// the extension package (the sources this test binary was built with), so
// that it is never stale.
var (
	firefoxBuildOnce sync.Once
	firefoxBuildDir  string
	firefoxBuildErr  error
)

func firefoxBuild(t *testing.T) string {
	t.Helper()
	firefoxBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gasoline-e2e-firefox-ext-")
		if err != nil {
			firefoxBuildErr = err
			return
		}
		firefoxBuildDir = dir // the tests of one binary share it; TestMain removes it
		firefoxBuildErr = extension.WriteFirefox(dir)
	})
	if firefoxBuildErr != nil {
		t.Fatalf("writing the Firefox build: %v", firefoxBuildErr)
	}
	return firefoxBuildDir
}

// removeFirefoxBuild removes the Firefox build, if a test wrote one.
func removeFirefoxBuild() {
	if firefoxBuildDir != "" {
		os.RemoveAll(firefoxBuildDir)
	}
}

// requireFirefox returns the Firefox binary, or skips the test when there
// is none; GASOLINE_REQUIRE_BROWSER=1 (CI) fails it instead. A Firefox
// older than the extension's Firefox build accepts
// (extension.FirefoxMinVersion: Debian bookworm's firefox-esr 140 on some
// machines) cannot run the extension at all: the test skips, saying so,
// unless GASOLINE_REQUIRE_FIREFOX=1 fails it.
func requireFirefox(t *testing.T) string {
	t.Helper()
	bin, err := firefox.Find()
	if err == nil {
		err = firefox.CheckVersion(t.Context(), bin, extension.FirefoxMinVersion)
		if err == nil {
			return bin
		}
		if errors.Is(err, firefox.ErrTooOld) && os.Getenv("GASOLINE_REQUIRE_FIREFOX") != "1" {
			t.Skipf("not run: %v. Install a newer firefox-esr, or point GASOLINE_FIREFOX at one", err)
		}
		t.Fatal(err)
	}
	msg := fmt.Sprintf("Firefox e2e tests need Firefox: %v", err)
	if os.Getenv("GASOLINE_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + " (GASOLINE_REQUIRE_BROWSER=1)")
	}
	t.Skip(msg)
	return ""
}

// foxEnv is one Firefox test's daemon, page server, browser with the
// extension installed, and MCP session through gasoline-mcp.
// It embeds an env without a Chromium for the MCP helpers (call, js,
// observe), and cleans up itself.
type foxEnv struct {
	*env
	browser *firefox.Browser
}

// foxReady starts a daemon, the page server, Firefox with the extension's
// Firefox build on page A, and pairs the extension. The daemon is started
// with daemonArgs: without --firefox-extension-uuid, pairing pins the
// extension's origin.
func foxReady(t *testing.T, daemonArgs ...string) *foxEnv {
	t.Helper()
	return foxReadyPrefs(t, nil, daemonArgs...)
}

// foxReadyPrefs is foxReady with more preferences in the Firefox profile
// (user.js; nil for none).
func foxReadyPrefs(t *testing.T, prefs map[string]any, daemonArgs ...string) *foxEnv {
	t.Helper()
	bin := requireFirefox(t)
	if chromium.Headed() {
		// make e2e runs the suite headless, then headed for Chromium's
		// window focus and tab groups; Firefox runs headless in the first.
		t.Skip("the Firefox tests run headless only: they ran in the headless pass")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	// The profile is made before close is registered, so that it is removed
	// after close stopped Firefox (cleanups run last first).
	e := &foxEnv{env: &env{t: t, ctx: ctx, site: newSite(t), profile: t.TempDir(), logDir: t.TempDir()}}
	d, err := gasoline.StartDaemon(ctx, bins, filepath.Join(t.TempDir(), "state"), daemonArgs...)
	if err != nil {
		t.Fatalf("starting the daemon: %v", err)
	}
	e.daemon = d
	t.Cleanup(e.close)
	if e.mcp, err = gasoline.Connect(ctx, d); err != nil {
		t.Fatal(err)
	}
	if e.browser, err = firefox.Start(ctx, firefox.Options{Bin: bin, ProfileDir: e.profile, LogPath: e.log(), Prefs: prefs}); err != nil {
		t.Fatal(err)
	}
	if err := e.browser.Install(ctx, firefoxBuild(t)); err != nil {
		t.Fatal(err)
	}
	tabs, err := e.browser.BiDi.Tree(ctx)
	if err != nil || len(tabs) == 0 {
		t.Fatalf("listing Firefox's tabs: %v (%d)", err, len(tabs))
	}
	if err := e.browser.BiDi.Navigate(ctx, tabs[0].Context, e.site.URL+"/a"); err != nil {
		t.Fatal(err)
	}
	if err := e.browser.Pair(ctx, d); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *foxEnv) log() string { return filepath.Join(e.logDir, "firefox.log") }

func (e *foxEnv) close() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), 30*time.Second)
	defer cancel()
	if e.t.Failed() {
		e.t.Logf("--- daemon.log (tail):\n%s", chromium.Tail(e.daemon.LogPath(), 6000))
		e.t.Logf("--- firefox output (tail):\n%s", chromium.Tail(e.log(), 6000))
	}
	if e.mcp != nil {
		e.mcp.Close()
	}
	if e.browser != nil {
		e.browser.Stop()
	}
	if err := e.daemon.Stop(ctx); err != nil {
		e.t.Errorf("stopping the daemon: %v", err)
	}
}

// TestFirefoxPairs pairs the extension's Firefox build with the daemon
// through its popup, as a Firefox user would: the daemon learns the
// extension's moz-extension:// origin from the pairing, and keeps it in
// its state dir.
func TestFirefoxPairs(t *testing.T) {
	e := foxReady(t)
	b, err := os.ReadFile(filepath.Join(e.daemon.StateDir, "firefox_extension_origin"))
	if err != nil || strings.TrimSpace(string(b)) != "moz-extension://"+firefox.ExtensionUUID {
		t.Errorf("the pinned origin in the state dir: %q, %v; want moz-extension://%s", b, err, firefox.ExtensionUUID)
	}
	foxConnected(t, e)
}

// TestFirefoxPairsWithUUIDFlag pairs with a daemon told the extension's
// UUID by --firefox-extension-uuid (the explicit override).
func TestFirefoxPairsWithUUIDFlag(t *testing.T) {
	foxConnected(t, foxReady(t, "--firefox-extension-uuid="+firefox.ExtensionUUID))
}

// foxConnected fails t unless the daemon sees the extension connected.
func foxConnected(t *testing.T, e *foxEnv) {
	t.Helper()
	h, err := e.daemon.Health(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Extension.Browser != apitype.BrowserFirefox {
		t.Errorf("/health extension browser %q, want %q ('gasoline doctor' says so)", h.Extension.Browser, apitype.BrowserFirefox)
	}
	if !h.Extension.Connected {
		t.Fatalf("/health extension %+v, want connected", h.Extension)
	}
}

// TestFirefoxExecuteJS runs execute_js in Firefox through gasoline-mcp: the
// title of the 127.0.0.1 page the tab shows.
func TestFirefoxExecuteJS(t *testing.T) {
	e := foxReady(t)
	r := e.js("document.title", nil)
	if got := str(t, complete(t, r)); got != "Page A" {
		t.Fatalf("document.title = %q, want %q", got, "Page A")
	}
}

// foxPages serves the Firefox tests' own pages on 127.0.0.1:
//
//	/fox/page    logs a console error and fetches /fox/fail
//	/fox/fail    a 500 with a JSON body
//	/fox/button  a button whose click adds a line and retitles the page
func foxPages(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprint(w, body)
		}
	}
	mux.Handle("GET /fox/page", html(`<!doctype html><title>Fox</title><script>
console.error("fox boom", {step: 1});
fetch("/fox/fail").then((r) => r.text());
</script>`))
	mux.HandleFunc("GET /fox/fail", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":"the fox exploded"}`)
	})
	mux.Handle("GET /fox/button", html(`<!doctype html><title>Fox button</title>
<button id="go" onclick="document.title = 'Fox clicked'; const p = document.createElement('p'); p.textContent = 'The fox jumped'; document.body.append(p)">Jump</button>`))
	srv := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(srv.Close)
	return srv
}

// TestFirefoxCapture: what a page does in Firefox reaches observe as in
// Chrome: its console error, and a failing request (seen by the page and
// by webRequest, merged) with its response body.
func TestFirefoxCapture(t *testing.T) {
	e := foxReady(t)
	srv := foxPages(t)
	e.call("interact", map[string]any{"action": "navigate", "url": srv.URL + "/fox/page", "wait_ms": 20000})
	e.observeUntil(map[string]any{"what": "logs", "text": "fox boom"}, 20*time.Second, func(o observed) error {
		return missing(o.Entries, []want{{"the console error", func(e ev) bool {
			return e.str("level") == "error" && strings.HasPrefix(e.str("message"), "fox boom")
		}}})
	})
	var fail ev
	e.observeUntil(map[string]any{"what": "network", "status": ">=400"}, 20*time.Second, func(o observed) error {
		for _, e := range o.Entries {
			if strings.HasSuffix(e.str("url"), "/fox/fail") && e.num("status") == 500 && strings.Contains(e.str("source"), "page") {
				fail = e
				return nil
			}
		}
		return fmt.Errorf("no page event of GET /fox/fail with status 500")
	})
	body := e.call("observe", map[string]any{"what": "network", "id": fail["id"], "body": "response"})
	if !strings.Contains(string(body.Raw), "the fox exploded") {
		t.Errorf("the 500's response body: %s, want the JSON with \"the fox exploded\"", body.Raw)
	}
}

// TestFirefoxClick: an agent's click in Firefox runs the page's handler and
// reports its effects (the new text, the new title), as in Chrome.
func TestFirefoxClick(t *testing.T) {
	e := foxReady(t)
	srv := foxPages(t)
	e.call("interact", map[string]any{"action": "navigate", "url": srv.URL + "/fox/button", "wait_ms": 20000})
	r := e.call("interact", map[string]any{"action": "click", "target": map[string]any{"role": "button", "name": "Jump"}, "wait_ms": 20000})
	if r.Status != "complete" {
		t.Fatalf("click: status %q, want complete: %s", r.Status, r)
	}
	for _, s := range []string{"The fox jumped", "Fox clicked"} {
		if !strings.Contains(string(r.Raw), s) {
			t.Errorf("the click's result %s does not say %q", r.Raw, s)
		}
	}
	if got := str(t, complete(t, e.js("document.title", nil))); got != "Fox clicked" {
		t.Errorf("document.title = %q after the click, want %q", got, "Fox clicked")
	}
}

// TestFirefoxScreenshot: a screenshot of the agent's tab in Firefox
// (tabs.captureVisibleTab) comes back as an image of the viewport.
func TestFirefoxScreenshot(t *testing.T) {
	e := foxReady(t)
	e.call("interact", map[string]any{"action": "navigate", "url": e.site.URL + "/b", "wait_ms": 20000})
	r := e.call("interact", map[string]any{"action": "screenshot", "wait_ms": 20000})
	var shot struct {
		Result struct {
			MimeType string `json:"mime_type"`
			Bytes    int    `json:"bytes"`
			Width    int    `json:"width"`
			Height   int    `json:"height"`
			URL      string `json:"url"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.Raw, &shot); err != nil {
		t.Fatal(err)
	}
	s := shot.Result
	if r.Status != "complete" || !strings.HasPrefix(s.MimeType, "image/") || s.Bytes < 1000 || s.Width < 100 || s.Height < 100 || s.URL != e.site.URL+"/b" {
		t.Fatalf("screenshot: %s, want a complete image of page B", r.Raw)
	}
}

// TestFirefoxStrictCSPSaysHow: on a page whose CSP forbids eval, execute_js
// needs user scripts, an optional permission in Firefox that a fresh
// profile has not granted: the error says where the user grants it
// (about:addons), not Chrome's toggle.
func TestFirefoxStrictCSPSaysHow(t *testing.T) {
	e := foxReady(t)
	e.call("interact", map[string]any{"action": "navigate", "url": e.site.URL + "/csp/strict.html", "wait_ms": 20000})
	r := e.js("document.title", nil)
	if r.Status != "error" || !strings.Contains(string(r.Raw), "about:addons") || strings.Contains(string(r.Raw), "chrome://") {
		t.Fatalf("execute_js on a strict-CSP page: %s, want an error that names about:addons", r.Raw)
	}
}
