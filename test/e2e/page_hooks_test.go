package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hookPage replaces Document.prototype.querySelector with a function that
// walks .caller (and each caller's .arguments) and sets
// Error.prepareStackTrace to collect every CallSite's getFunction() and
// getThis(): the two ways a page received the source of execute_js scripts.
// The stack hook also keeps the message of any error it formats: a thrown
// error's stack, read for the agent, would hand it the error.
const hookPage = `<!doctype html><title>Hooks</title><h1>Hooks</h1><script>
window.__stolen = [];
const grab = (f) => { if (typeof f === "function") __stolen.push(Function.prototype.toString.call(f)); };
const qs = Document.prototype.querySelector;
Document.prototype.querySelector = function querySelector(sel) {
  try {
    for (let f = querySelector.caller, i = 0; f && i < 10; f = f.caller, i++) {
      grab(f);
      try { __stolen.push(String([...f.arguments])); } catch {}
    }
  } catch {}
  return qs.call(this, sel);
};
Error.prepareStackTrace = (err, sites) => {
  if (String(err && err.message).includes("SECRET")) __stolen.push("error " + err.message);
  for (const s of sites) { grab(s.getFunction()); grab(s.getThis()); }
  return "stack of " + sites.length;
};
</script>`

// TestPageHooksReachNoScript: on a page with both hooks, execute_js
// scripts (expression and body forms, a helper function, an error) run as
// usual, and the page's hooks, which the scripts call, collect no source
// of them nor of the function that runs them.
func TestPageHooksReachNoScript(t *testing.T) {
	e := ready(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, hookPage)
	}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/hooks"
	tab := e.newTab(url)
	for _, tc := range []struct{ script, want string }{
		{`[document.querySelector("h1").textContent, new Error("x").stack.startsWith("stack of "), "SECRET-1"]`, `["Hooks",true,"SECRET-1"]`},
		{`const s = "SECRET-2"; function helper() { return document.querySelector("h1").textContent } return [helper(), s]`, `["Hooks","SECRET-2"]`},
		{`await null; void new Error().stack; return document.querySelector("title").textContent + " SECRET-3"`, `"Hooks SECRET-3"`},
	} {
		js := complete(t, e.js(tc.script, map[string]any{"tab_id": tab}))
		if string(js.Value) != tc.want {
			t.Errorf("%s: value %s, want %s", tc.script, js.Value, tc.want)
		}
	}
	r := e.js(`document.querySelector("h1"); throw new Error("SECRET-4")`, map[string]any{"tab_id": tab})
	if r.Status != "error" || !strings.Contains(r.Error, "SECRET-4") {
		t.Errorf("a throwing script: %s, want its error", r)
	}
	var stolen []string
	if err := e.pageSession(url).Evaluate(e.ctx, `__stolen`, &stolen); err != nil {
		t.Fatal(err)
	}
	if len(stolen) != 0 {
		t.Errorf("the page's hooks collected %d sources or arguments: %q", len(stolen), stolen)
	}
}
