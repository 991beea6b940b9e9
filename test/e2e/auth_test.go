//go:build unix

package e2e

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
)

// impostor is a program that took over the daemon's port while the daemon
// is down: it answers /health as gasoline, /pair with a token of its own,
// /pending-queries with commands (unsigned, or with a made-up signature)
// and records every request it gets.
type impostor struct {
	srv  *http.Server
	site *site

	mu       sync.Mutex
	requests []string // method, URL, headers and body of each request; guarded by mu
	polls    int      // GET /pending-queries; guarded by mu
	results  int      // POST /query-result; guarded by mu
}

func startImpostor(t *testing.T, port int, s *site) *impostor {
	t.Helper()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the impostor cannot take port %d: %v", port, err)
	}
	im := &impostor{site: s}
	im.srv = &http.Server{Handler: http.HandlerFunc(im.serve)}
	go im.srv.Serve(ln)
	t.Cleanup(im.close)
	return im
}

func (im *impostor) close() { im.srv.Close() }

func (im *impostor) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20)) // every byte: it must hold nothing readable
	var rec strings.Builder
	fmt.Fprintf(&rec, "%s %s\n", r.Method, r.URL)
	r.Header.Write(&rec)
	rec.Write(body)
	im.mu.Lock()
	im.requests = append(im.requests, rec.String())
	n := 0
	switch {
	case r.URL.Path == "/pending-queries":
		im.polls++
		n = im.polls
	case r.URL.Path == "/query-result":
		im.results++
	}
	im.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/health":
		fmt.Fprint(w, `{"service":"gasoline","version":"9.9.9","extension":{"connected":true}}`)
	case "/pair":
		fmt.Fprint(w, `{"token":"impostor-token","extension_id":"`+chromium.ExtensionID+`","proof":"`+randomHex(32)+`"}`)
	case "/pending-queries":
		batch := fmt.Sprintf(`{"queries":[`+
			`{"correlation_id":"nav_impostor%d","type":"browser_action","action":"navigate","params":{"url":%q},"timeout_ms":10000},`+
			`{"correlation_id":"exec_impostor%d","type":"browser_action","action":"execute_js","params":{"script":"fetch('/hit/impostor-js')"},"timeout_ms":10000}]}`,
			n, im.site.URL+"/hit/impostor-nav", n)
		if n%2 == 0 {
			w.Header().Set("X-Gasoline-Signature", randomHex(32)) // a made-up signature
		}
		fmt.Fprint(w, batch)
	default:
		fmt.Fprint(w, `{}`)
	}
}

func (im *impostor) snapshot() (requests []string, polls, results int) {
	im.mu.Lock()
	defer im.mu.Unlock()
	return append([]string(nil), im.requests...), im.polls, im.results
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// signedPoll sends GET /pending-queries?wait_ms=0 signed with tok as the
// extension signs it (extension/auth.js) and returns the HTTP status.
func signedPoll(t *testing.T, port int, tok string) int {
	t.Helper()
	host := "127.0.0.1:" + strconv.Itoa(port)
	uri := "/pending-queries?wait_ms=0"
	ts, nonce := strconv.FormatInt(time.Now().UnixMilli(), 10), randomHex(16)
	empty := sha256.Sum256(nil)
	key := sha256.Sum256([]byte(tok))
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(strings.Join([]string{"gasoline-request-v1", "GET", host, uri, "", ts, nonce, hex.EncodeToString(empty[:])}, "\n")))
	req, _ := http.NewRequest("GET", "http://"+host+uri, nil)
	req.Header.Set("Authorization", "Gasoline-HMAC ts="+ts+", nonce="+nonce+", sig="+hex.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("signed poll: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func (e *env) popup() *chromium.Popup {
	e.t.Helper()
	p, err := chromium.OpenPopup(e.ctx, e.cdp)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { p.Close(context.WithoutCancel(e.ctx)) })
	return p
}

// TestImpostorOnThePort: the daemon stops and another program takes its
// port. It gets neither the token nor a pairing code, none of the commands
// it hands out runs, and a pairing attempt with it stores nothing. When the
// real daemon is back on the port the extension works with it again.
func TestImpostorOnThePort(t *testing.T) {
	e := ready(t)
	js := complete(t, e.js("document.title", nil))
	if got := str(t, js); got != "Page A" {
		t.Fatalf("before the impostor: title %q", got)
	}
	pageA := map[string]any{"tab_id": js.TabID} // the popup tab is active from here on
	p := e.popup()
	tok, err := p.Token(e.ctx)
	if err != nil || len(tok) != 64 {
		t.Fatalf("stored token %q (%v), want the 64-character token", tok, err)
	}

	if err := e.daemon.Stop(e.ctx); err != nil {
		t.Fatal(err)
	}
	im := startImpostor(t, e.daemon.Port, e.site)
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, polls, _ := im.snapshot(); polls >= 4 {
			break
		}
		if time.Now().After(deadline) {
			_, polls, _ := im.snapshot()
			t.Fatalf("the extension polled the impostor %d times in 45 s, want at least 4", polls)
		}
	}

	// The user works in a page while the impostor holds the port: console
	// output, a typed secret, URLs and request and response bodies, all of
	// which the extension captures.
	mark := "s" + randomHex(8)
	secrets := map[string]string{
		"console text":  mark + "-console",
		"typed text":    mark + "-typed",
		"URL":           mark + "-url",
		"request body":  mark + "-reqbody",
		"response body": mark + "-respbody", // the /hit page's title and heading
	}
	pg := e.openPage(e.site.URL + "/hit/" + secrets["URL"])
	pg.eval(`(() => { const i = document.createElement("input"); i.id = "secret"; document.body.append(i); return true })()`, nil)
	pg.typeInto("#secret", secrets["typed text"])
	pg.eval(fmt.Sprintf(`(async () => {
		console.log(%q);
		await fetch("/a", {method: "POST", body: %q}).catch(() => {});
		await fetch("/hit/%s").then((r) => r.text());
		return true })()`, secrets["console text"], secrets["request body"], secrets["response body"]), nil)
	count := func(prefixes ...string) int {
		reqs, _, _ := im.snapshot()
		n := 0
		for _, r := range reqs {
			for _, p := range prefixes {
				if strings.HasPrefix(r, p) {
					n++
				}
			}
		}
		return n
	}
	// Delivery attempts: a POST with a body, or the bodiless signed request
	// the extension makes first to a port whose last answer was unsigned.
	attempts := func() int { return count("POST /events", "POST /query-result", "GET /capture/config") }
	before, bodiesBefore := attempts(), count("POST ")
	for deadline := time.Now().Add(30 * time.Second); attempts() < before+2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the extension did not try to deliver what the page did within 30 s (%d attempts)", attempts()-before)
		}
	}

	// The user tries to pair while the impostor holds the port.
	const code = "ABCD-2345"
	msg, err := p.PairError(e.ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "did not prove that it knows the pairing code") {
		t.Errorf("pairing with the impostor: popup says %q, want it to name the missing proof", msg)
	}

	reqs, polls, results := im.snapshot()
	for _, r := range reqs {
		if strings.Contains(r, tok) {
			t.Errorf("the impostor received the token in:\n%s", r)
		}
		leaked := false
		for what, secret := range secrets {
			if strings.Contains(r, secret) {
				t.Errorf("the impostor received the page's %s in:\n%.2000s", what, r)
				leaked = true
			}
		}
		if !leaked && strings.Contains(r, mark) {
			t.Errorf("the impostor received part of what the page did in:\n%.2000s", r)
		}
		if strings.Contains(r, code) || strings.Contains(r, strings.ReplaceAll(code, "-", "")) {
			t.Errorf("the impostor received the pairing code in:\n%s", r)
		}
	}
	if got, err := p.Token(e.ctx); err != nil || got != tok {
		t.Errorf("after pairing with the impostor the stored token is %q (%v), want the daemon's token unchanged", got, err)
	}
	st, err := p.Status(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.DroppedBatches < 2 {
		t.Errorf("status counts %d dropped answers after %d impostor polls, want at least 2", st.DroppedBatches, polls)
	}
	if n, _ := p.Dropped(e.ctx); n == "" || n == "0" {
		t.Errorf("the popup shows %q dropped answers, want the count", n)
	}
	t.Logf("the impostor got %d requests (%d polls, %d delivery attempts after the page acted, %d with a body); nothing it sent was readable",
		len(reqs), polls, attempts()-before, count("POST ")-bodiesBefore)

	// The real daemon comes back on its port: same token, working again.
	_, _, results = im.snapshot() // every result the extension posted to the impostor, to its end
	im.close()
	if _, err := e.daemon.CLI(e.ctx, "daemon", "start"); err != nil {
		t.Fatal(err)
	}
	e.waitConnected(true, 30*time.Second)
	if got := str(t, complete(t, e.js("document.title", pageA))); got != "Page A" {
		t.Errorf("after the daemon came back: title %q, want Page A", got)
	}
	// What the page did while the daemon was away stayed in the extension
	// and reaches the real daemon now. The page is the user's tab, not one
	// this agent worked in, so the read asks for every tab.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if strings.Contains(e.call("observe", map[string]any{"what": "logs", "tabs": "all"}).String(), secrets["console text"]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console text logged while the impostor held the port did not reach the daemon within 30 s")
		}
	}
	// The extension has since run a command for the real daemon and
	// delivered what it kept: a command of the impostor's that was (wrongly)
	// started in the meantime has had its chance to reach the page server.
	if got := e.site.Hits("impostor-nav") + e.site.Hits("impostor-js"); got != 0 || results != 0 {
		t.Errorf("the impostor's commands ran: %d page hits, %d results posted to it", got, results)
	}
}

// TestUnpairRevokes: Unpair revokes the token at the daemon, so a copy of
// it no longer works there. With the daemon down, Unpair forgets the token,
// says it could not revoke it and names 'gasoline unpair', which does.
func TestUnpairRevokes(t *testing.T) {
	e := ready(t)
	p := e.popup()
	tok, err := p.Token(e.ctx)
	if err != nil || tok == "" {
		t.Fatalf("stored token %q (%v)", tok, err)
	}
	if got := signedPoll(t, e.daemon.Port, tok); got != 200 {
		t.Fatalf("signed poll with the paired token: HTTP %d, want 200", got)
	}
	kind, msg, err := p.Unpair(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if kind != "ok" || !strings.Contains(msg, "revoked") {
		t.Errorf("unpair: popup says %s %q, want ok and revoked", kind, msg)
	}
	if got, _ := p.Token(e.ctx); got != "" {
		t.Errorf("after unpair the extension still stores a token")
	}
	if got := signedPoll(t, e.daemon.Port, tok); got != 401 {
		t.Errorf("signed poll with the unpaired token: HTTP %d, want 401", got)
	}
	q := e.call("interact", map[string]any{"action": "execute_js", "script": "fetch('/hit/after-unpair')"})
	// A poll held since before the unpair could still take it; once the
	// daemon sees no extension at all, none can.
	e.waitConnected(false, 15*time.Second)
	if r := e.call("observe", map[string]any{"what": "command_result", "correlation_id": q.CorrelationID}); r.Status != "pending" || r.Phase != "queued" {
		t.Errorf("a command after unpair: %s, want it still queued (no extension takes it)", r)
	}
	e.call("interact", map[string]any{"action": "cancel", "correlation_id": q.CorrelationID})

	// Pair again, then unpair while the daemon is down.
	e.pair()
	tok2, _ := p.Token(e.ctx)
	if err := e.daemon.Stop(e.ctx); err != nil {
		t.Fatal(err)
	}
	kind, msg, err = p.Unpair(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if kind != "warn" || !strings.Contains(msg, "could not revoke") || !strings.Contains(msg, "gasoline unpair") {
		t.Errorf("unpair with the daemon down: popup says %s %q, want a warning naming 'gasoline unpair'", kind, msg)
	}
	if got, _ := p.Token(e.ctx); got != "" {
		t.Errorf("after unpair with the daemon down the extension still stores a token")
	}
	if out, err := e.daemon.CLI(e.ctx, "daemon", "start"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := signedPoll(t, e.daemon.Port, tok2); got != 200 {
		t.Fatalf("the token the daemon could not revoke: HTTP %d, want 200 (still valid there)", got)
	}
	out, err := e.daemon.CLI(e.ctx, "unpair")
	if err != nil || !strings.Contains(out, "Revoked 1") {
		t.Fatalf("gasoline unpair: %q, %v", out, err)
	}
	if got := signedPoll(t, e.daemon.Port, tok2); got != 401 {
		t.Errorf("after gasoline unpair: HTTP %d, want 401", got)
	}
	if got := e.site.Hits("after-unpair"); got != 0 {
		t.Errorf("the command queued after unpair ran %d times", got)
	}
}
