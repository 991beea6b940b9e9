//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 29, third pass, items 1, 2 and 4: a password is secret by its
// field, from the first keystroke or the agent's fill, after the page
// resets the form too; and a HAR export never sends the user's requests
// again.

// secretSite serves on 127.0.0.1:
//
//	GET  /sec/login.html  a login form whose submit fetches POST /sec/login
//	                      with the password in a JSON body and in the query
//	                      string, then resets the form at once
//	POST /sec/login       keeps the bodies it was sent (logins)
//	GET  /sec/danger      a no-store document with a side effect: it counts
//	                      its hits (hits)
type secretSite struct {
	*httptest.Server
	mu     sync.Mutex
	logins []string
	hits   atomic.Int64
}

func newSecretSite(t *testing.T) *secretSite {
	t.Helper()
	s := &secretSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sec/login.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head><body>
<form id="login"><label>User <input id="user" name="user"></label>
<label>Password <input id="pw" name="password" type="password"></label>
<button id="go" type="submit">Sign in</button></form><p id="out"></p>
<script>
document.getElementById('login').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = e.target;
  const user = f.user.value, password = f.password.value;
  window.sent = fetch('/sec/login?user=' + encodeURIComponent(user) + '&pw=' + encodeURIComponent(password), {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ user, password }),
  }).then((r) => r.text()).then((t) => { document.getElementById('out').textContent = 'signed in'; return t; });
  f.reset(); // the password is gone from the page before the request's record leaves it
});
</script></body></html>`)
	})
	mux.HandleFunc("POST /sec/login", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.logins = append(s.logins, r.URL.RawQuery+" "+string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("GET /sec/danger", func(w http.ResponseWriter, r *http.Request) {
		n := s.hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deleted</title></head><body><p>deleted %s (hit %d)</p></body></html>`,
			r.URL.Query().Get("id"), n)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// waitLogin waits until the server got a login holding want (the page
// did send the password: what follows checks that the capture hides it).
func (s *secretSite) waitLogin(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s.mu.Lock()
		got := strings.Join(s.logins, "\n")
		s.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server got no login with the password within 20 s: %q", got)
		}
	}
}

// exportHAR exports the requests whose URL holds part as HAR and returns
// the archive's text, read with resources/read.
func (e *env) exportHAR(part string) string {
	e.t.Helper()
	r := e.call("observe", map[string]any{"what": "network", "format": "har", "url": part, "tabs": "all"})
	var v harView
	if err := json.Unmarshal(r.Raw, &v); err != nil || v.ResourceLink.URI == "" {
		e.t.Fatalf("format:har: %v %s", err, r.Raw)
	}
	res, err := e.mcp.Session.ReadResource(e.ctx, &mcp.ReadResourceParams{URI: v.ResourceLink.URI})
	if err != nil || len(res.Contents) != 1 {
		e.t.Fatalf("resources/read %s: %v %+v", v.ResourceLink.URI, err, res)
	}
	return res.Contents[0].Text
}

// loginCaptured waits for the captured POST /sec/login with its request
// body and returns what an agent reads of it: the list entry, the request
// body, and the HAR of /sec/.
func (e *env) loginCaptured() (list, body, harText string) {
	e.t.Helper()
	o := e.observeUntil(map[string]any{"what": "network", "method": "POST", "url": "/sec/login", "tabs": "all"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 || o.Entries[0].num("status") != 200 {
			return errors.New("the login request is not captured yet")
		}
		return nil
	})
	id := o.Entries[0]["id"]
	var b string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r, err := e.mcp.Call(e.ctx, "observe", map[string]any{"what": "network", "id": id, "body": "request"})
		if err != nil {
			e.t.Fatal(err)
		}
		b = string(r.Raw)
		if !r.IsError && strings.Contains(b, "alice") {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the login's request body is not captured within 20 s: %s\n%s", b, o.Raw)
		}
	}
	// Listed again now that the page's half (with the scrubbed URL) is in:
	// before it came, the browser's half alone held the URL it saw.
	list = string(e.call("observe", map[string]any{"what": "network", "method": "POST", "url": "/sec/login", "tabs": "all"}).Raw)
	return list, b, e.exportHAR("/sec/")
}

// noSecret fails t for each text that holds secret in any form a page
// sends it (as typed, URL-encoded, JSON-escaped).
func noSecret(t *testing.T, secret string, texts map[string]string) {
	t.Helper()
	for what, text := range texts {
		if strings.Contains(text, secret) || strings.Contains(text, strings.ReplaceAll(secret, "!", "%21")) {
			t.Errorf("%s holds the password %q:\n%.3000s", what, secret, text)
		}
	}
}

// TestPasswordScrubbedAfterReset: the user types a password key by key and
// clicks Sign in; the page fetches with the password in the JSON body and
// the query string, then resets the form before the request's record
// leaves the page. The server got the password; the request's body read
// with observe body:"request", the network list and the HAR hold none of
// it.
func TestPasswordScrubbedAfterReset(t *testing.T) {
	e := ready(t)
	site := newSecretSite(t)
	const secret = "hunter2-reset-9f3!"
	// The agent opens the page (request bodies are kept in pages loaded at
	// work); the user signs in.
	p := e.agentOpens(site.URL + "/sec/login.html")
	p.typeInto("#user", "alice")
	p.click("#pw")
	p.typeKeys(secret)
	p.click("#go")
	site.waitLogin(t, `"password":"`+secret+`"`)
	var left string
	p.eval(`document.getElementById('pw').value`, &left)
	if left != "" {
		t.Fatalf("the page did not reset its form: the field holds %q", left)
	}
	list, body, harText := e.loginCaptured()
	if !strings.Contains(body, "[redacted]") {
		t.Errorf("the login's request body: %s, want the password as [redacted]", body)
	}
	noSecret(t, secret, map[string]string{"observe network": list, `observe network body:"request"`: body, "the HAR": harText})
}

// TestAgentFilledPasswordScrubbed: the agent fills the user name and the
// password (interact fill: no trusted input) and clicks Sign in; the page
// resets the form right after its fetch. The network body, the HAR and
// analyze test hold no password; the test reads it from an environment
// variable.
func TestAgentFilledPasswordScrubbed(t *testing.T) {
	e := ready(t)
	site := newSecretSite(t)
	const secret = "agent-typed-pw-7c1d!"
	u := site.URL + "/sec/login.html"
	e.agentOpens(u)
	tab := e.tabOf(u)
	e.ok("fill", map[string]any{"tab_id": tab, "target": "#user", "text": "alice"})
	e.ok("fill", map[string]any{"tab_id": tab, "target": "#pw", "text": secret})
	e.ok("click", map[string]any{"tab_id": tab, "target": "#go"})
	site.waitLogin(t, `"password":"`+secret+`"`)
	list, body, harText := e.loginCaptured()
	if !strings.Contains(body, "[redacted]") {
		t.Errorf("the login's request body: %s, want the password as [redacted]", body)
	}
	g := e.generate(map[string]any{"what": "test", "tab_id": tab}, "process.env.GASOLINE_SECRET_1")
	noSecret(t, secret, map[string]string{"observe network": list, `observe network body:"request"`: body, "the HAR": harText, "analyze test": g.File})
}

// TestHARExportNeverRefetches: a no-store document whose GET has a side
// effect (GET /sec/danger?do=delete&id=42 counts its hits) is exported as
// HAR. The export does not request it again (the hit count stays), and
// the HAR's entry marks its body as not captured and says why.
func TestHARExportNeverRefetches(t *testing.T) {
	e := ready(t)
	e.agentAtWork()
	site := newSecretSite(t)
	e.openPage(site.URL + "/sec/danger?do=delete&id=42")
	e.observeUntil(map[string]any{"what": "network", "url": "/sec/danger", "tabs": "all"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 || o.Entries[0].num("status") != 200 {
			return errors.New("the document's request is not captured yet")
		}
		return nil
	})
	before := site.hits.Load()
	if before != 1 {
		t.Fatalf("the page was hit %d times before the export, want 1", before)
	}
	harText := e.exportHAR("/sec/danger")
	if got := site.hits.Load(); got != before {
		t.Fatalf("the HAR export requested GET /sec/danger?do=delete&id=42 again: %d hits, %d before the export", got, before)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Request  struct{ URL string } `json:"request"`
				Response struct {
					Content struct {
						Text        string `json:"text"`
						Comment     string `json:"comment"`
						NotCaptured bool   `json:"_notCaptured"`
					} `json:"content"`
				} `json:"response"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal([]byte(harText), &doc); err != nil {
		t.Fatalf("the HAR is not JSON: %v\n%.1000s", err, harText)
	}
	found := false
	for _, en := range doc.Log.Entries {
		if !strings.Contains(en.Request.URL, "/sec/danger?do=delete&id=42") {
			continue
		}
		found = true
		c := en.Response.Content
		if c.Text != "" || !c.NotCaptured || !strings.Contains(c.Comment, "not captured") || !strings.Contains(c.Comment, "never fetches") {
			t.Errorf("the no-store document's content: %+v, want no text, _notCaptured and a comment saying why", c)
		}
	}
	if !found {
		t.Fatalf("the HAR has no entry for /sec/danger:\n%.2000s", harText)
	}
}
