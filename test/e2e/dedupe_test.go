//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
)

// TestCaptureRetryAfterLostAnswer: the daemon stores a batch, but its
// answer never reaches the extension (the tap closes the connection), as
// on a machine so busy that the worker's post times out. (Chrome itself
// may send the request again over a new connection first; the daemon
// refuses its repeated signature with 401.) The worker posts the batch
// again with the same batch_id and the same events, the daemon answers it
// as a duplicate, and an agent reads the page's request and its log line
// once each.
func TestCaptureRetryAfterLostAnswer(t *testing.T) {
	c := captureReady(t)
	p := c.openPage(c.site.URL + "/capture/blank.html")
	const marker = "/api/xhr?n=lost-answer"
	const logLine = "lost-answer logged once"
	mine := func(b tapped) bool {
		for _, e := range b.Batch.Events {
			if strings.Contains(e.str("url"), marker) || e.str("message") == logLine {
				return true
			}
		}
		return false
	}
	lost := map[string]tapped{} // by batch_id: the first post of each batch with the page's events
	c.tap.LoseAnswers(func(b tapped) bool {
		if b.Status != http.StatusOK || !mine(b) || b.Batch.BatchID == "" {
			return false
		}
		if _, seen := lost[b.Batch.BatchID]; seen {
			return false
		}
		lost[b.Batch.BatchID] = b
		return true
	})
	var started bool
	p.eval(fmt.Sprintf(`fetch(%q).then((r) => r.text()).then(() => console.log(%q)), true`, marker, logLine), &started)

	// Wait until every lost batch was posted again and answered.
	var unanswered []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		batches := c.tap.Batches()
		unanswered = unanswered[:0]
		var first []tapped
		for _, b := range batches {
			if b.Lost {
				first = append(first, b)
			}
		}
		for _, l := range first {
			answered := false
			for _, b := range batches {
				if b.Batch.BatchID == l.Batch.BatchID && !b.Lost && b.Status == http.StatusOK {
					if !b.Answer.Duplicate || b.Answer.Accepted != 0 {
						t.Fatalf("the retry of %s: got answer %+v, want a duplicate that stored nothing", l.Batch.BatchID, b.Answer)
					}
					if b.Body != l.Body {
						t.Fatalf("the retry of %s differs from its first post:\nfirst %s\nretry %s", l.Batch.BatchID, l.Body, b.Body)
					}
					answered = true
				}
			}
			if !answered {
				unanswered = append(unanswered, l.Batch.BatchID)
			}
		}
		logged := c.observe(map[string]any{"what": "logs", "text": logLine})
		if len(first) > 0 && len(unanswered) == 0 && len(logged.Entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: %d batches lost, not yet posted again: %v; logs %s", len(first), unanswered, logged.Raw)
		}
	}
	c.tap.LoseAnswers(nil)

	requests := c.observeUntil(map[string]any{"what": "network", "url": marker}, 10*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("no entry for %s yet", marker)
		}
		return nil
	})
	if len(requests.Entries) != 1 {
		t.Errorf("observe network shows the request %d times, want once:\n%s", len(requests.Entries), requests.Raw)
	}
	if logs := c.observe(map[string]any{"what": "logs", "text": logLine}); len(logs.Entries) != 1 {
		t.Errorf("observe logs shows the line %d times, want once:\n%s", len(logs.Entries), logs.Raw)
	}
}

// resultFront is a proxy in front of the tap that loses the daemon's answer
// to the first POST /query-result that completes a command (it closes the
// connection instead), and records the status and error code of every
// POST /query-result after it. The extension signs for the front's host,
// which it keeps, so the tap checks and signs again as it does for itself.
type resultFront struct {
	*httptest.Server
	Port int

	mu    sync.Mutex
	lost  bool     // guarded by mu
	after []string // "<status> <code>" of the result posts after the lost one; guarded by mu
}

func newResultFront(t *testing.T, tapPort int) *resultFront {
	t.Helper()
	target := &url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", tapPort)}
	f := &resultFront{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ErrorHandler:  func(w http.ResponseWriter, r *http.Request, err error) { w.WriteHeader(http.StatusBadGateway) },
	}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/query-result" {
			rp.ServeHTTP(w, r)
			return
		}
		out := httptest.NewRecorder()
		rp.ServeHTTP(out, r)
		var answer struct {
			State string `json:"state"`
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal(out.Body.Bytes(), &answer)
		f.mu.Lock()
		lose := !f.lost && out.Code == http.StatusOK && answer.State == "complete"
		if f.lost {
			f.after = append(f.after, fmt.Sprintf("%d %s", out.Code, answer.Error.Code))
		}
		f.lost = f.lost || lose
		f.mu.Unlock()
		if hj, ok := w.(http.Hijacker); ok && lose {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		for k, v := range out.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(out.Code)
		w.Write(out.Body.Bytes())
	}))
	t.Cleanup(func() {
		f.CloseClientConnections() // the extension's held long poll
		f.Close()
	})
	f.Port = f.Listener.Addr().(*net.TCPAddr).Port
	return f
}

// After returns what the result posts after the lost answer were answered.
func (f *resultFront) After() (lost bool, after []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lost, append([]string(nil), f.after...)
}

// TestResultRetryAfterLostAnswer: the daemon completes a command with the
// extension's result, but its answer never reaches the extension. Whether
// Chrome sends the post again on its own (the daemon refuses the repeated
// signature with 401 replayed) or the fetch fails, the extension posts the
// result again, freshly signed, until the daemon says the command is
// final (409); the command completes once, with the first result, and the
// extension does not take the 401 for a rejected token.
func TestResultRetryAfterLostAnswer(t *testing.T) {
	e := newEnv(t)
	site := newCaptureSite(t)
	tp := newTap(t, e.daemon.Port)
	front := newResultFront(t, tp.Port)
	e.startBrowser(site.URL + "/capture/blank.html")
	e.pairOn(front.Port)

	r := e.js("6 * 7", nil)
	if js := complete(t, r); string(js.Value) != "42" {
		t.Fatalf("got %s, want 42", r)
	}
	var after []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var lost bool
		lost, after = front.After()
		if lost && slices.Contains(after, "409 command_final") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: answer lost %v, result posts after it %v; want one answered 409 command_final", lost, after)
		}
	}
	for _, a := range after {
		if a != "409 command_final" && a != "401 replayed" {
			t.Errorf("a result post after the lost answer was answered %q, want 409 command_final (or 401 replayed for Chrome's own resend)", a)
		}
	}
	t.Logf("result posts after the lost answer: %v", after)
	if storage := chromium.DumpStorage(e.ctx, e.cdp); strings.Contains(storage, `"token_rejected":true`) {
		t.Errorf("the extension took a lost answer for a rejected token:\n%s", storage)
	}
	if cs, err := e.daemon.Commands(e.ctx); err != nil || len(cs.Completed) != 1 || len(cs.Failed) != 0 {
		t.Errorf("daemon commands: %+v (err %v), want the one completed", cs, err)
	}
}
