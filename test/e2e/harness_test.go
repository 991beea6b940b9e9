//go:build unix

package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var (
	bins         gasoline.Bins
	extensionDir string // absolute path of the repository's extension/
	chromiumBin  string // "" when absent (tests skip, or fail in CI)
	chromiumErr  error
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := gasoline.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	extensionDir = filepath.Join(root, "extension")
	chromiumBin, chromiumErr = chromium.Find()
	dir, err := os.MkdirTemp("", "gasoline-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	defer removeFirefoxBuild() // firefox_test.go
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if bins, err = gasoline.Build(ctx, root, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// requireBrowser skips the test when Chromium is missing, or fails it when
// GASOLINE_REQUIRE_BROWSER=1 (CI) says the browser tests must run.
func requireBrowser(t *testing.T) {
	t.Helper()
	if chromiumErr == nil {
		return
	}
	msg := fmt.Sprintf("browser e2e tests need Chromium: %v", chromiumErr)
	if os.Getenv("GASOLINE_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + " (GASOLINE_REQUIRE_BROWSER=1)")
	}
	t.Skip(msg)
}

// site serves the test pages on 127.0.0.1 and counts hits on /hit/<id>:
//
//	/a, /b, /c   pages titled "Page A", "Page B", "Page C"
//	/hit/<id>    a page titled "Hit <id>"; every request is counted
type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int // guarded by mu
	// forms holds what the shadow DOM fixtures' forms posted.
	forms formPosts
}

func newSite(t *testing.T) *site {
	s := &site{hits: map[string]int{}}
	mux := http.NewServeMux()
	page := func(title string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1></body></html>", title, title)
		}
	}
	mux.Handle("GET /a", page("Page A"))
	mux.Handle("GET /b", page("Page B"))
	mux.Handle("GET /c", page("Page C"))
	mux.HandleFunc("GET /hit/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		s.mu.Lock()
		s.hits[id]++
		s.mu.Unlock()
		page("Hit "+id)(w, r)
	})
	mux.Handle("GET /hands/", handsPages())
	mux.Handle("GET /react/", handsPages())
	mux.Handle("/shadow/", shadowPages(&s.forms))
	mux.Handle("GET /record/", handsPages())
	mux.Handle("GET /names/", namesPages())
	mux.Handle("GET /csp/", cspPages())
	mux.Handle("/truth/", truthPages())
	mux.Handle("/play/", playPages())
	mux.Handle("GET /flood/", floodPages())
	mux.Handle("GET /perf/", perfPages())
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	s.Server = httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// Hits returns how many times /hit/<id> was requested.
func (s *site) Hits(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[id]
}

// env is one test's daemon, page server, browser and MCP session. Its
// cleanup, registered once, reports the daemon log and the extension's
// storage if the test failed, then stops the browser and the daemon.
type env struct {
	t       *testing.T
	ctx     context.Context
	daemon  *gasoline.Daemon
	site    *site
	mcp     *gasoline.Client
	profile string // Chromium user-data-dir, kept across restarts
	logDir  string
	// browserArgs are more Chromium flags for startBrowser.
	browserArgs []string
	// extDir is the extension startBrowser loads; "" for extensionDir.
	extDir string

	browser *chromium.Browser // nil while the browser is down
	cdp     *cdp.Conn
}

// newEnv starts a daemon with the extra 'daemon start' flags, the page
// server and an MCP session through gasoline-mcp. No browser yet.
func newEnv(t *testing.T, daemonFlags ...string) *env {
	t.Helper()
	requireBrowser(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, site: newSite(t), profile: t.TempDir(), logDir: t.TempDir()}
	d, err := gasoline.StartDaemon(ctx, bins, filepath.Join(t.TempDir(), "state"), daemonFlags...)
	if err != nil {
		t.Fatalf("starting the daemon: %v", err)
	}
	e.daemon = d
	t.Cleanup(e.close) // after the TempDirs: runs before they are removed
	if e.mcp, err = gasoline.Connect(ctx, d); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) close() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), 30*time.Second)
	defer cancel()
	if e.t.Failed() {
		e.report(ctx)
	}
	if e.mcp != nil {
		e.mcp.Close()
	}
	e.stopBrowser()
	if err := e.daemon.Stop(ctx); err != nil {
		e.t.Errorf("stopping the daemon: %v", err)
	}
}

// report logs what a failed test needs to be understood.
func (e *env) report(ctx context.Context) {
	e.t.Logf("--- daemon.log (tail):\n%s", chromium.Tail(e.daemon.LogPath(), 6000))
	if e.cdp != nil {
		e.t.Logf("--- extension chrome.storage.local:\n%s", chromium.DumpStorage(ctx, e.cdp))
	} else {
		e.t.Logf("--- extension chrome.storage.local: (the browser is not running)")
	}
	if cs, err := e.daemon.Commands(ctx); err == nil {
		e.t.Logf("--- daemon /commands: %d pending, %d completed, %d failed", len(cs.Pending), len(cs.Completed), len(cs.Failed))
		for _, c := range append(append(cs.Pending, cs.Completed...), cs.Failed...) {
			e.t.Logf("  %s %s state=%s delivered=%v acked=%v reason=%s", c.ID, c.Action, c.State, c.Delivered, c.Acked, c.Reason)
		}
	}
	e.t.Logf("--- chromium output (tail):\n%s", chromium.LogTail(e.chromeLog(), 4000))
}

func (e *env) chromeLog() string { return filepath.Join(e.logDir, "chromium.log") }

// startBrowser launches Chromium on the env's profile with the extension
// loaded, opening urls, and connects to its DevTools endpoint.
func (e *env) startBrowser(urls ...string) {
	e.t.Helper()
	b, err := chromium.Start(e.ctx, chromium.Options{
		Bin: chromiumBin, UserDataDir: e.profile, ExtensionDir: cmp.Or(e.extDir, extensionDir), URLs: urls, LogPath: e.chromeLog(), Args: e.browserArgs,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.browser = b
	if e.cdp, err = cdp.Dial(e.ctx, b.WebSocketURL); err != nil {
		e.t.Fatal(err)
	}
	if _, err := chromium.WaitForWorker(e.ctx, e.cdp, 20*time.Second); err != nil {
		e.t.Fatal(err)
	}
}

// stopBrowser closes the DevTools connection and stops Chromium gracefully.
func (e *env) stopBrowser() {
	if e.cdp != nil {
		e.cdp.Close()
		e.cdp = nil
	}
	if e.browser != nil {
		e.browser.Stop()
		e.browser = nil
	}
}

// killBrowser SIGKILLs Chromium and its helpers, as a crash would.
func (e *env) killBrowser() {
	e.browser.Kill()
	e.browser = nil
	if e.cdp != nil {
		e.cdp.Close()
		e.cdp = nil
	}
}

// pair pairs the extension through its popup: port typed and saved, a
// code from 'gasoline pair' typed, Pair pressed, and the popup must show
// paired. It then waits until the daemon sees the extension polling.
func (e *env) pair() {
	e.t.Helper()
	e.pairOn(e.daemon.Port)
}

// pairOn is pair with the extension pointed at port: the daemon's, or a
// proxy's in front of it.
func (e *env) pairOn(port int) {
	e.t.Helper()
	p, err := chromium.OpenPopup(e.ctx, e.cdp)
	if err != nil {
		e.t.Fatal(err)
	}
	defer p.Close(e.ctx)
	if err := p.SetPort(e.ctx, port); err != nil {
		e.t.Fatal(err)
	}
	code, err := e.daemon.PairCode(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := p.Pair(e.ctx, code); err != nil {
		e.t.Fatal(err)
	}
	e.waitConnected(true, 15*time.Second)
}

// waitConnected waits until GET /health reports the extension connected
// (or not).
func (e *env) waitConnected(want bool, limit time.Duration) {
	e.t.Helper()
	var h gasoline.Health
	var err error
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if h, err = e.daemon.Health(e.ctx); err == nil && h.Extension.Connected == want {
			return
		}
	}
	e.t.Fatalf("after %v: /health extension %+v (err %v), want connected=%v", limit, h.Extension, err, want)
}

// ready is the common start: daemon, browser on page A, paired.
func ready(t *testing.T, daemonFlags ...string) *env {
	t.Helper()
	e := newEnv(t, daemonFlags...)
	e.startBrowser(e.site.URL + "/a")
	e.pair()
	return e
}

// call calls an MCP tool and fails the test on a transport error or a
// tool error.
func (e *env) call(tool string, args map[string]any) gasoline.Result {
	e.t.Helper()
	r, err := e.mcp.Call(e.ctx, tool, args)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.IsError {
		e.t.Fatalf("%s %v: tool error %s", tool, args, r)
	}
	return r
}

// js runs execute_js and waits inline up to 20 s for its terminal result.
func (e *env) js(script string, extra map[string]any) gasoline.Result {
	e.t.Helper()
	args := map[string]any{"action": "execute_js", "script": script, "wait_ms": 20000}
	for k, v := range extra {
		args[k] = v
	}
	return e.call("interact", args)
}

// await waits for the terminal result of id with observe command_result.
func (e *env) await(id string, limit time.Duration) gasoline.Result {
	e.t.Helper()
	var r gasoline.Result
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		wait := min(time.Until(deadline), 50*time.Second)
		r = e.call("observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": max(wait.Milliseconds(), 1)})
		if r.Status != "pending" {
			return r
		}
	}
	e.t.Fatalf("command %s still pending after %v: %s", id, limit, r)
	return r
}

// complete checks r is a complete execute_js result and returns it.
func complete(t *testing.T, r gasoline.Result) gasoline.JSResult {
	t.Helper()
	if r.Status != "complete" {
		t.Fatalf("status %q, want complete: %s", r.Status, r)
	}
	js, err := r.JS()
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// str decodes a JSON string value.
func str(t *testing.T, js gasoline.JSResult) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(js.Value, &s); err != nil {
		t.Fatalf("value %s is not a string: %v", js.Value, err)
	}
	return s
}
