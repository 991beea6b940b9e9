//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
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
