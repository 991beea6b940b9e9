//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
)

// hostilePage replaces, in its first script, every built-in execute_js
// could read a result with, lies about its location through String, and
// records every script it receives in window.__stolen.
const hostilePage = `<!doctype html><html><head><title>Hostile Page</title><script>
(() => {
  const lie = 'All tests passed';
  window.__stolen = [];
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const Fake = function (...args) { window.__stolen.push(args.join('\n')); return async () => lie; };
  Object.defineProperty(AsyncFunction.prototype, 'constructor', { value: Fake });
  const realProto = Object.getPrototypeOf;
  Object.getPrototypeOf = (o) => (realProto(o) === AsyncFunction.prototype ? { constructor: Fake } : realProto(o));
  window.Function = Fake;
  const RealString = String;
  window.String = function (v) { return typeof v === 'string' && v.startsWith('http') ? 'https://bank.example/' : RealString(v); };
  JSON.stringify = () => '"' + lie + '"';
  Array.from = () => [lie];
  Array.isArray = () => false;
  Object.keys = () => ['lie'];
  window.Map = class { constructor() { return { lie }; } };
  window.Set = window.Map;
  const realThen = Promise.prototype.then;
  Promise.prototype.then = function (ok, bad) { return realThen.call(this, () => ok && ok(lie), bad); };
  Object.defineProperty(Object.prototype, 'then', { configurable: true, get() { return (resolve) => resolve(lie); } });
  Object.prototype.toJSON = () => lie;
  Reflect.apply = () => lie;
  Function.prototype.call = function () { return lie; };
  String.prototype.slice = () => lie;
  String.prototype.replace = () => lie;
  RegExp.prototype.exec = () => null;
})();
</script></head><body><h1>Hostile</h1></body></html>`

// pages serves the pages of these tests on 127.0.0.1:
//
//	/hostile          hostilePage
//	/before, /after   pages titled "Before" and "After"
//	/stream           a page titled "Streaming Page" that never finishes loading
type pages struct {
	*httptest.Server
}

func newPages(t *testing.T) *pages {
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprint(w, body)
		}
	}
	mux.Handle("GET /hostile", html(hostilePage))
	mux.Handle("GET /before", html(`<!doctype html><title>Before</title><h1>Before</h1>`))
	mux.Handle("GET /after", html(`<!doctype html><title>After</title><h1>After</h1>`))
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><html><head><title>Streaming Page</title></head><body>`+strings.Repeat(" ", 2048))
		flusher := w.(http.Flusher)
		flusher.Flush()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				fmt.Fprintf(w, "<p>chunk %d</p>\n", i)
				flusher.Flush()
			}
		}
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	p := &pages{Server: httptest.NewUnstartedServer(mux)}
	p.Config.ReadHeaderTimeout = 5 * time.Second
	p.Start()
	t.Cleanup(func() {
		p.CloseClientConnections()
		p.Close()
	})
	return p
}

// pageSession attaches to the tab showing url, for reading the page behind
// the extension's back.
func (e *env) pageSession(url string) *cdp.Session {
	e.t.Helper()
	ts, err := e.cdp.Targets(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.Type == "page" && tg.URL == url {
			s, err := e.cdp.Attach(e.ctx, tg.TargetID)
			if err != nil {
				e.t.Fatal(err)
			}
			e.t.Cleanup(func() { s.Detach(e.ctx) })
			return s
		}
	}
	e.t.Fatalf("no tab shows %s", url)
	return nil
}

// newTab opens url in a new tab with the new_tab action and returns its id.
func (e *env) newTab(url string) int64 {
	e.t.Helper()
	r := e.call("interact", map[string]any{"action": "new_tab", "url": url, "wait_ms": 20000})
	js := complete(e.t, r)
	if js.TabID == 0 {
		e.t.Fatalf("new_tab %s: %s, want a tab id", url, r)
	}
	return js.TabID
}

// TestHostilePage: a page that replaced JSON.stringify, String, Array.from,
// Object.keys, Map, Set, Promise's then and the AsyncFunction constructor
// cannot change what execute_js reports, nor receive the agent's scripts;
// the tab id and url are Chrome's.
func TestHostilePage(t *testing.T) {
	e := ready(t)
	p := newPages(t)
	url := p.URL + "/hostile"
	tab := e.newTab(url)
	for _, tc := range []struct {
		script, want string
	}{
		{"document.title", `"Hostile Page"`},
		{"location.href", `"` + url + `"`},
		{`({a: [1, "two"], b: {c: null}})`, `{"a":[1,"two"],"b":{"c":null}}`},
		{`[document.querySelector("h1").textContent, await Promise.resolve(0) === 0]`, `["Hostile",true]`},
	} {
		t.Run(tc.script, func(t *testing.T) {
			js := complete(t, e.js(tc.script, map[string]any{"tab_id": tab}))
			if string(js.Value) != tc.want {
				t.Errorf("value %s, want %s", js.Value, tc.want)
			}
			if js.URL != url || js.TabID != tab {
				t.Errorf("result says tab %d at %q, want tab %d at %q", js.TabID, js.URL, tab, url)
			}
			if js.World != "MAIN" || js.Builtins != "pristine" {
				t.Errorf("result says world %q, builtins %q; want MAIN and pristine", js.World, js.Builtins)
			}
		})
	}
	var stolen int
	if err := e.pageSession(url).Evaluate(e.ctx, `window.__stolen.length`, &stolen); err != nil {
		t.Fatal(err)
	}
	if stolen != 0 {
		t.Errorf("the page received %d of the agent's scripts", stolen)
	}
}

// TestNavigationDuringScript: the page navigates away 0.5 s into a script
// that would run for a minute; the command fails at once with reason
// navigated instead of timing out at its deadline. A navigate command on
// the tab does the same to a script that is running there.
func TestNavigationDuringScript(t *testing.T) {
	e := ready(t)
	p := newPages(t)
	tab := e.newTab(p.URL + "/before")

	r := e.js(`setTimeout(() => { location.href = "/after" }, 500); await new Promise((r) => setTimeout(r, 60000)); return "never"`,
		map[string]any{"tab_id": tab, "timeout_ms": 60000, "wait_ms": 30000})
	if r.Status != "error" || r.Reason != "navigated" || !strings.Contains(r.Error, p.URL+"/after") {
		t.Fatalf("got %s, want status error, reason navigated, naming the new URL", r)
	}

	long := e.call("interact", map[string]any{"action": "execute_js", "tab_id": tab, "timeout_ms": 60000,
		"script": `window.__running = true; await new Promise((r) => setTimeout(r, 60000)); return "never"`})
	after := e.pageSession(p.URL + "/after")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		running := false
		after.Evaluate(e.ctx, `window.__running === true`, &running)
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the long script did not start within 15 s")
		}
	}
	nav := e.call("interact", map[string]any{"action": "navigate", "tab_id": tab, "url": p.URL + "/before", "wait_ms": 20000})
	if nav.Status != "complete" {
		t.Fatalf("navigate: %s", nav)
	}
	if got := e.await(long.CorrelationID, 20*time.Second); got.Status != "error" || got.Reason != "navigated" {
		t.Errorf("the script running during navigate: %s, want status error, reason navigated", got)
	}
	if got := str(t, complete(t, e.js("document.title", map[string]any{"tab_id": tab}))); got != "Before" {
		t.Errorf("after the navigations: title %q, want Before", got)
	}
}

// TestStreamingPage: execute_js answers at once on a page that is still
// loading and never finishes, instead of waiting for it to be idle.
func TestStreamingPage(t *testing.T) {
	e := ready(t)
	p := newPages(t)
	url := p.URL + "/stream"
	if _, err := e.cdp.CreateTarget(e.ctx, url); err != nil {
		t.Fatal(err)
	}
	var tab int64
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r := e.js(`location.href`, map[string]any{"timeout_ms": 5000})
		if r.Status == "complete" {
			if js := complete(t, r); str(t, js) == url {
				tab = js.TabID
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the streaming page did not become the active tab: last %s", r)
		}
	}
	js := complete(t, e.js(`[document.title, document.readyState]`, map[string]any{"tab_id": tab, "timeout_ms": 5000}))
	if string(js.Value) != `["Streaming Page","loading"]` {
		t.Errorf("value %s, want the title of a page still loading", js.Value)
	}
}
