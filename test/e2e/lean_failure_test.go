//go:build unix

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// failingSite serves a page whose Save button posts the form as JSON with
// fetch, whose Retry button posts it form-encoded with XHR and whose Sync
// button fetches a Request carrying a text body; all three fail, and the
// page shows only "Couldn't save" and logs a console error:
//
//	/app         the page; it fetches /api/items as it loads
//	/api/items   200 {"items":[1,2,3]}
//	/api/save    500 {"error":"quota exceeded for workspace 42"}
//	/api/retry   503 text: maintenance, retry after 30 s
//	/api/sync    no answer: the connection is closed
func failingSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	reply := func(status int, mime, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", mime)
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /app", reply(http.StatusOK, "text/html; charset=utf-8", `<!doctype html><title>Workspace</title>
<label>Name <input id="name"></label>
<label>Password <input id="pw" type="password" autocomplete="current-password"></label>
<button id="save" type="button">Save</button> <button id="retry" type="button">Retry</button> <button id="sync" type="button">Sync</button>
<p id="out"></p>
<script>
const out = document.getElementById("out");
const form = () => ({ workspace: 42, name: document.getElementById("name").value, password: document.getElementById("pw").value });
window.fixtureDone = fetch("/api/items").then((r) => r.json()).then(() => true);
function reportFailure(how, status, said) {
  console.error("save failed (" + how + "): " + status);
  out.textContent = "Couldn't save (" + how + (said ? ", the page read its answer" : "") + ")";
}
document.getElementById("save").addEventListener("click", async function saveClicked() {
  const res = await fetch("/api/save", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(form()) });
  const said = await res.json().then((d) => !!d.error, () => false);
  if (!res.ok) reportFailure("fetch", res.status, said);
});
document.getElementById("retry").addEventListener("click", function retryClicked() {
  const x = new XMLHttpRequest();
  x.open("POST", "/api/retry");
  x.onload = () => { if (x.status >= 400) reportFailure("xhr", x.status, x.responseText.startsWith("maintenance")); };
  const f = form();
  x.send(new URLSearchParams({ workspace: f.workspace, name: f.name, password: f.password }));
});
document.getElementById("sync").addEventListener("click", function syncClicked() {
  fetch(new Request("/api/sync", { method: "POST", body: "draft of " + form().name })).catch((e) => reportFailure("sync", e.name));
});
</script>`))
	mux.HandleFunc("GET /api/items", reply(http.StatusOK, "application/json", `{"items":[1,2,3]}`))
	mux.HandleFunc("POST /api/save", reply(http.StatusInternalServerError, "application/json", `{"error":"quota exceeded for workspace 42"}`))
	mux.HandleFunc("POST /api/retry", reply(http.StatusServiceUnavailable, "text/plain; charset=utf-8", "maintenance: retry after 30 s"))
	mux.HandleFunc("POST /api/sync", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close()
		}
	})
	s := httptest.NewServer(mux) // 127.0.0.1 only
	t.Cleanup(s.Close)
	return s
}

// body is what observe answers for the part ("request" or "response")
// body of the request id: its text, or the error result as it reads.
func (e *env) body(id any, part string) string {
	e.t.Helper()
	r, err := e.mcp.Call(e.ctx, "observe", map[string]any{"what": "network", "id": id, "body": part, "wait_ms": 5000})
	if err != nil {
		e.t.Fatal(err)
	}
	return string(r.Raw)
}

// waitText waits until the page's #out says want.
func (p *page) waitText(want string) {
	p.e.t.Helper()
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if p.eval(`document.getElementById("out").textContent`, &got); got == want {
			return
		}
	}
	p.e.t.Fatalf("the page says %q, want %q", got, want)
}

// TestLeanPageKeepsTheUsersFailure is issue 28's bug: the user opens a page
// while no agent works (captured lean), types into the form, clicks Save,
// the POST answers 500 with a JSON body and the page only says "Couldn't
// save"; then Retry, whose XHR answers 503, and Sync, whose fetch gets no
// answer. The agent, asked afterwards, reads through the bridge, without a
// reload: the failed requests with their request and response bodies (the
// password the user typed redacted, as at work), the console errors with
// their stacks and the user's clicks. The request that succeeded keeps no body (the page is
// still lean), and the reads say so for that one only.
func TestLeanPageKeepsTheUsersFailure(t *testing.T) {
	e := ready(t)
	site := failingSite(t)
	e.popupFrames(false)

	// The user, before any agent: the page loads idle, lean.
	p := e.openPage(site.URL + "/app")
	p.eval(`window.sameDocument = "yes"`, nil)
	p.typeInto("#name", "Quarterly report")
	p.typeInto("#pw", "hunter2-secret")
	p.click("#save")
	p.waitText("Couldn't save (fetch, the page read its answer)")
	p.click("#retry")
	p.waitText("Couldn't save (xhr, the page read its answer)")
	p.click("#sync")
	p.waitText("Couldn't save (sync)")

	// The agent, asked afterwards.
	failed := func(path string, status float64) ev {
		t.Helper()
		o := e.observeUntil(map[string]any{"what": "network", "url": path}, 20*time.Second, func(o observed) error {
			if len(o.Entries) != 1 || o.Entries[0].num("status") != status || o.Entries[0].num("response_body_chars") == 0 || o.Entries[0].num("request_body_chars") == 0 {
				return fmt.Errorf("want one request to %s with status %v and both bodies", path, status)
			}
			return nil
		})
		if strings.Contains(o.Raw, `"lean"`) {
			t.Errorf("the read of a failed request of a lean page says its bodies were not kept:\n%s", o.Raw)
		}
		return o.Entries[0]
	}
	save := failed("/api/save", 500)
	if got := e.body(save["id"], "response"); !strings.Contains(got, `quota exceeded for workspace 42`) {
		t.Errorf("the failed POST's response body reads %s, want the server's error", got)
	}
	got := e.body(save["id"], "request")
	if !strings.Contains(got, `Quarterly report`) || !strings.Contains(got, `[redacted]`) || strings.Contains(got, "hunter2-secret") {
		t.Errorf("the failed POST's request body reads %s, want the form with the password redacted", got)
	}
	retry := failed("/api/retry", 503)
	if got := e.body(retry["id"], "response"); !strings.Contains(got, "maintenance: retry after 30 s") {
		t.Errorf("the failed XHR's response body reads %s, want the server's text", got)
	}
	got = e.body(retry["id"], "request")
	if !strings.Contains(got, "workspace=42") || !strings.Contains(got, "name=Quarterly+report") || !strings.Contains(got, "[redacted]") || strings.Contains(got, "hunter2") {
		t.Errorf("the failed XHR's request body reads %s, want the form-encoded form with the password redacted", got)
	}

	sync := e.observeUntil(map[string]any{"what": "network", "url": "/api/sync"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) != 1 || o.Entries[0].str("error") == "" || o.Entries[0].num("request_body_chars") == 0 {
			return fmt.Errorf("want one request to /api/sync with an error and its request body")
		}
		return nil
	}).Entries[0]
	if got := e.body(sync["id"], "request"); !strings.Contains(got, "draft of Quarterly report") {
		t.Errorf("the fetched Request without an answer: request body %s, want the page's text", got)
	}

	// The request that succeeded: still lean, and the list says so for it alone.
	o := e.observe(map[string]any{"what": "network", "url": "/api/"})
	if len(o.Entries) != 4 || !strings.Contains(o.Raw, `"lean":"1 request came from a page loaded while no agent was at work: its bodies were not kept`) {
		t.Errorf("the page's requests: want 4 with a lean line for the one that succeeded:\n%s", o.Raw)
	}
	items := where(o.Entries, func(en ev) bool { return strings.HasSuffix(en.str("url"), "/api/items") })
	if len(items) != 1 {
		t.Fatalf("no request to /api/items in:\n%s", o.Raw)
	}
	if got := e.body(items[0]["id"], "response"); !strings.Contains(got, "body_not_kept") {
		t.Errorf("the successful request of a lean page: body %s, want body_not_kept", got)
	}

	// The console errors, with the stacks that lead to them.
	logs := e.observe(map[string]any{"what": "logs", "min_level": "error", "text": "save failed"})
	for _, how := range []string{"fetch): 500", "xhr): 503"} {
		l := where(logs.Entries, func(en ev) bool { return strings.Contains(en.str("message"), how) })
		if len(l) != 1 || !strings.Contains(l[0].str("stack"), "reportFailure") {
			t.Errorf("console error %q: want one with its stack through reportFailure:\n%s", how, logs.Raw)
		}
	}

	// What the user did.
	acts := e.observe(map[string]any{"what": "actions"})
	for _, name := range []string{"Save", "Retry", "Sync"} {
		if len(where(acts.Entries, func(en ev) bool { return en.str("type") == "click" && en.str("name") == name })) != 1 {
			t.Errorf("the user's click on %s is not in the actions:\n%s", name, acts.Raw)
		}
	}

	// Nothing was reloaded: the page the user reproduced the bug in is the same.
	var same string
	p.eval(`window.sameDocument + " " + document.getElementById("out").textContent`, &same)
	if same != "yes Couldn't save (sync)" {
		t.Errorf("the user's page after the agent's reads: %q, want the same document and state", same)
	}
}
