package capture_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// A page half that says its body is still coming is listed as pending, a
// body read waits for it, and the body_update event fills the same entry,
// whichever half (page or browser) arrived first.
func TestBodyPending(t *testing.T) {
	const url = "http://localhost:3000/api/cart"
	for _, browserFirst := range []bool{false, true} {
		name := "page first"
		if browserFirst {
			name = "browser first"
		}
		t.Run(name, func(t *testing.T) {
			s := capture.New(capture.Options{})
			head := netEv(7, "page", "GET", url, 500)
			head.RequestID, head.BodyPending = "f1", true
			browser := netEv(7, "browser", "GET", url, 500)
			browser.ResourceType = "xhr" // webRequest cannot tell fetch from XHR
			if browserFirst {
				ingest(t, s, browser, head)
			} else {
				ingest(t, s, head, browser)
			}
			p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
			if len(p.Entries) != 1 {
				t.Fatalf("got %d entries, want 1 merged", len(p.Entries))
			}
			v := p.Entries[0].(*capture.NetworkView)
			if v.Body != "pending" || v.Type != "fetch" {
				t.Errorf("got body %q type %q, want pending and fetch", v.Body, v.Type)
			}
			if _, err := s.Body(v.ID, "response"); !errors.Is(err, capture.ErrBodyPending) {
				t.Errorf("got %v, want ErrBodyPending", err)
			}

			got := make(chan capture.Body, 1)
			go func() {
				b, err := s.WaitBody(context.Background(), v.ID, "response")
				if err != nil {
					t.Errorf("WaitBody: %v", err)
				}
				got <- b
			}()
			tail := netEv(7, "page", "GET", url, 500)
			tail.RequestID, tail.BodyUpdate, tail.ResponseBody, tail.ResponseBodySize = "f1", true, `{"error":"boom"}`, 16
			ingest(t, s, tail)
			select {
			case b := <-got:
				if b.Text != `{"error":"boom"}` || b.ID != v.ID {
					t.Errorf("got %+v, want the body on entry %d", b, v.ID)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("WaitBody did not wake when the body arrived")
			}
			p = query(t, s, capture.Filter{Kind: capture.KindNetwork})
			if len(p.Entries) != 1 || p.Entries[0].(*capture.NetworkView).Body != "" {
				t.Errorf("got %+v, want one entry no longer pending", p.Entries)
			}
		})
	}
	t.Run("update without its entry is a request of its own", func(t *testing.T) {
		s := capture.New(capture.Options{})
		tail := netEv(7, "page", "GET", url, 200)
		tail.RequestID, tail.BodyUpdate, tail.ResponseBody = "f9", true, "ok"
		ingest(t, s, tail)
		p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
		if len(p.Entries) != 1 {
			t.Fatalf("got %d entries, want 1", len(p.Entries))
		}
		if b, err := s.Body(p.Entries[0].Header().ID, "response"); err != nil || b.Text != "ok" {
			t.Errorf("got %+v, %v, want the body", b, err)
		}
	})
	t.Run("a wait ends with the context", func(t *testing.T) {
		s := capture.New(capture.Options{})
		head := netEv(7, "page", "GET", url, 200)
		head.BodyPending = true
		ingest(t, s, head)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.WaitBody(ctx, 1, "response"); !errors.Is(err, capture.ErrBodyPending) {
			t.Errorf("got %v, want ErrBodyPending", err)
		}
	})
}

// A body the page never finished reading (it navigated away) is not waited
// for forever: past its life it reads as no body.
func TestBodyPendingExpires(t *testing.T) {
	c := newClock()
	s := capture.New(capture.Options{Now: c.Now})
	head := netEv(7, "page", "GET", "http://localhost:3000/api/slow", 200)
	head.TS = float64(c.Now().UnixMilli())
	head.BodyPending = true
	ingest(t, s, head)
	if _, err := s.Body(1, "response"); !errors.Is(err, capture.ErrBodyPending) {
		t.Fatalf("got %v, want ErrBodyPending", err)
	}
	c.Advance(2 * time.Minute)
	if _, err := s.Body(1, "response"); !errors.Is(err, capture.ErrNoBody) {
		t.Errorf("got %v, want ErrNoBody after the page stopped reading", err)
	}
}
