package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestPageSeesNoAgentAtWork: a page listens, from its first script, on
// window and document for every event type gasoline has dispatched between
// its worlds, while the agent arms a prompt's answer with a text, clicks
// with a dialog answer of its own and runs a script. The page gets its
// answers and hears nothing; its window holds no gasoline name at all.
func TestPageSeesNoAgentAtWork(t *testing.T) {
	e := ready(t)
	e.open("/hands/quiet.html")

	e.ok("dialog", map[string]any{"dialog": "accept", "text": "Ada"})
	e.ok("click", map[string]any{"text": "Name yourself"})
	e.ok("click", map[string]any{"text": "Delete it", "dialog": "accept"})
	e.ok("click", map[string]any{"text": "Name yourself", "dialog": "accept"})
	complete(t, e.js(`document.title`, nil))

	if log := e.pageText("#log", nil); log != "prompt Ada\nconfirm true\nprompt nobody\n" {
		t.Errorf("the page logged %q, want the agent's answers", log)
	}
	s := e.pageSession(e.site.URL + "/hands/quiet.html")
	var heard []string
	if err := s.Evaluate(e.ctx, `heard`, &heard); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 0 {
		t.Errorf("the page heard %q while the agent acted, want nothing", heard)
	}
	var names []string
	if err := s.Evaluate(e.ctx, `Object.getOwnPropertyNames(window)`, &names); err != nil {
		t.Fatal(err)
	}
	ours := regexp.MustCompile(`(?i)gasoline`)
	for _, n := range names {
		if ours.MatchString(n) {
			t.Errorf("the page's window holds %q", n)
		}
	}
}

// watchPage is a page that tries to watch execute_js at work. Its first
// script (which runs after the extension's document_start scripts and
// before anything else of the page) lists the window's own names and
// symbols, and wraps, then and again once the page has loaded, every door
// an extension's script might pass through: Object.defineProperty,
// Reflect.defineProperty, EventTarget.prototype.addEventListener and
// dispatchEvent, MessagePort.prototype.postMessage, the
// MessageEvent.prototype.data and ports getters, window.postMessage, the
// Function and AsyncFunction constructors, and Error.prepareStackTrace. It
// listens on window and document for "message" and every event type
// gasoline has used. Once armed, every call of a wrapper is recorded with
// its arguments, and every event heard.
const watchPage = `<!doctype html><title>Watch</title><h1>Watch</h1><script>
window.__first = Object.getOwnPropertyNames(window);
window.__firstSymbols = Object.getOwnPropertySymbols(window).map(String);
window.__calls = [];
window.__armed = false;
const show = (x) => { try { return typeof x === "function" ? Function.prototype.toString.call(x) : typeof x === "object" && x !== null ? JSON.stringify(x) : String(x); } catch { return "?"; } };
const record = (what, args) => { if (__armed) __calls.push(what + " " + Array.prototype.map.call(args, show).join(" | ")); };
function wrap(obj, name, what) {
  const d = Object.getOwnPropertyDescriptor(obj, name);
  if (!d) return;
  if (typeof d.value === "function") {
    const f = d.value;
    const w = function (...args) { record(what, args); return Reflect.apply(f, this, args); };
    Reflect.defineProperty(obj, name, { ...d, value: w });
  } else if (d.get) {
    const g = d.get;
    Reflect.defineProperty(obj, name, { ...d, get() { const v = Reflect.apply(g, this, []); record(what, [v]); return v; } });
  }
}
function hookAll(stage) {
  wrap(Object, "defineProperty", stage + " Object.defineProperty");
  wrap(Reflect, "defineProperty", stage + " Reflect.defineProperty");
  wrap(EventTarget.prototype, "addEventListener", stage + " addEventListener");
  wrap(EventTarget.prototype, "dispatchEvent", stage + " dispatchEvent");
  wrap(MessagePort.prototype, "postMessage", stage + " MessagePort.postMessage");
  wrap(MessageEvent.prototype, "data", stage + " MessageEvent.data");
  wrap(MessageEvent.prototype, "ports", stage + " MessageEvent.ports");
  wrap(window, "postMessage", stage + " window.postMessage");
  wrap(window, "Function", stage + " Function");
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  wrap(AsyncFunction.prototype, "constructor", stage + " AsyncFunction");
  Error.prepareStackTrace = (err, sites) => {
    record(stage + " prepareStackTrace " + show(err && err.message), sites.map((s) => { try { return show(s.getFunction()); } catch { return "strict"; } }));
    return "stack";
  };
}
const TYPES = ["message", "gasoline:pristine-port", "gasoline:capture-port", "gasoline:capture-hello", "gasoline:acting",
  "gasoline:arm", "gasoline:armed", "gasoline:dialog", "gasoline:channel", "gasoline:channel-hello"];
for (const target of [window, document]) {
  for (const type of TYPES) target.addEventListener(type, (e) => __calls.push("heard " + type + " " + show(e.data ?? e.detail ?? null)), true);
}
hookAll("before load");
addEventListener("load", () => { hookAll("after load"); __armed = true; });
</script>`

// TestPageCannotWatchExecuteJS: on watchPage, execute_js runs scripts
// (expression and body forms, awaiting, returning and throwing errors) and reads their values
// with pristine built-ins; the page finds no gasoline name among its
// globals, no new global at all, and its wrappers and listeners record no
// call and no event: it never sees a script's source or result.
func TestPageCannotWatchExecuteJS(t *testing.T) {
	e := ready(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, watchPage)
	}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/watch"
	tab := e.newTab(url)
	s := e.pageSession(url)
	var armed bool
	const loaded = `new Promise((resolve) => __armed ? resolve(true) : addEventListener("load", () => resolve(__armed)))`
	if err := s.Evaluate(e.ctx, loaded, &armed); err != nil || !armed {
		t.Fatalf("the page did not load and arm its hooks: %v", err)
	}
	for _, tc := range []struct{ script, want string }{
		{`"SECRET-SOURCE-1".length + document.querySelectorAll("h1").length`, `16`},
		{`const s = "SECRET-SOURCE-2"; return {secret: "SECRET-RESULT-" + 2, s, n: new Map([["k", 1]])}`, `{"n":{"k":1},"s":"SECRET-SOURCE-2","secret":"SECRET-RESULT-2"}`},
		{`await new Promise((r) => setTimeout(r, 1)); return ["SECRET-RESULT-" + 3, new RangeError("SECRET-RESULT-4")]`, `["SECRET-RESULT-3",{"message":"SECRET-RESULT-4","name":"RangeError"}]`},
	} {
		js := complete(t, e.js(tc.script, map[string]any{"tab_id": tab}))
		if got := compact(t, js.Value); got != tc.want {
			t.Errorf("%s: value %s, want %s", tc.script, got, tc.want)
		}
		if js.Builtins != "pristine" || js.World != "MAIN" {
			t.Errorf("%s: builtins %q in world %q, want pristine in MAIN", tc.script, js.Builtins, js.World)
		}
	}
	if r := e.js(`throw new Error("SECRET-THROWN-" + 4)`, map[string]any{"tab_id": tab}); r.Status != "error" || !strings.Contains(r.Error, "SECRET-THROWN-4") {
		t.Errorf("a throwing script: %s, want its error", r)
	}

	var seen struct {
		Calls        []string `json:"calls"`
		New          []string `json:"new"`
		Ours         []string `json:"ours"`
		FirstSymbols []string `json:"firstSymbols"`
		Symbols      []string `json:"symbols"`
	}
	const look = `(() => {
		const names = Object.getOwnPropertyNames(window);
		const own = new Set(["__first", "__firstSymbols", "__calls", "__armed", "show", "record", "wrap", "hookAll", "TYPES"]);
		return {
			calls: __calls,
			new: names.filter((n) => !__first.includes(n) && !own.has(n)),
			ours: names.concat(Object.getOwnPropertyNames(document)).filter((n) => /gasoline|pristine/i.test(n)),
			firstSymbols: __firstSymbols,
			symbols: Object.getOwnPropertySymbols(window).map(String),
		};
	})()`
	if err := s.Evaluate(e.ctx, look, &seen); err != nil {
		t.Fatal(err)
	}
	if len(seen.Calls) != 0 {
		t.Errorf("the page's wrappers and listeners recorded %d calls or events while the agent ran scripts: %q", len(seen.Calls), seen.Calls)
	}
	if len(seen.New) != 0 || len(seen.Ours) != 0 {
		t.Errorf("the page's globals gained %q and hold gasoline names %q, want none", seen.New, seen.Ours)
	}
	if strings.Join(seen.Symbols, ",") != strings.Join(seen.FirstSymbols, ",") {
		t.Errorf("the window's symbols went from %q to %q", seen.FirstSymbols, seen.Symbols)
	}
	for _, n := range seen.FirstSymbols {
		if strings.Contains(strings.ToLower(n), "gasoline") {
			t.Errorf("the window holds the symbol %s", n)
		}
	}
}

// compact re-encodes a JSON value with sorted keys and no blanks.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("value %s: %v", raw, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
