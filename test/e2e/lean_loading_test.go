//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// heldSite serves a page whose image the test holds (the page stays
// loading, document.readyState "interactive", until release is called),
// with a button whose handler alerts and then writes into #out:
//
//	/held  the page
//	/img   answers once released
func heldSite(t *testing.T) (s *httptest.Server, release func()) {
	hold := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(hold) }) }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /held", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><title>Held</title>
<button id="alert" onclick='alert("held hello"); document.getElementById("out").textContent = "after alert"'>Alert</button>
<p id="out"></p>
<img src="/img">`)
	})
	mux.HandleFunc("GET /img", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
	})
	s = httptest.NewServer(mux) // 127.0.0.1 only
	// release before Close: Close waits for the held request.
	t.Cleanup(s.Close)
	t.Cleanup(release)
	return s, release
}

// TestLeanPageStillLoadingThenAgentActs: a page the user opened while no
// agent worked, still loading (an image held by the test) when the agent's
// first command comes: its start scripts ran under the idle registration,
// so Chrome gives it nothing more, and tabs/reach.js brings the agent's
// parts into it although it is loading. The click's alert is in the
// click's effects and the page goes on (not blocked by a native alert).
func TestLeanPageStillLoadingThenAgentActs(t *testing.T) {
	e := ready(t)
	site, release := heldSite(t)
	e.popupFrames(false)

	id, err := e.cdp.CreateTarget(e.ctx, site.URL+"/held")
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.cdp.Attach(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Detach(context.WithoutCancel(e.ctx)) })
	p := &page{e: e, s: s, targetID: id}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var state string
		if err := s.Evaluate(e.ctx, `document.getElementById("out") ? document.readyState : ""`, &state); err == nil && state == "interactive" {
			break
		} else if state == "complete" {
			t.Fatal("the page finished loading: the test must hold its image")
		}
		if time.Now().After(deadline) {
			t.Fatal("the held page was not parsed within 20 s")
		}
	}

	r := e.ok("click", map[string]any{"selector": "#alert"})
	if got := dialogsOf(r); !strings.Contains(got, "type:alert") || !strings.Contains(got, "message:held hello") {
		t.Errorf("click effects.dialogs %s, want the alert", got)
	}
	var out, state string
	p.eval(`document.getElementById("out").textContent`, &out)
	if out != "after alert" {
		t.Errorf("after the click the page says %q, want \"after alert\" (the alert must not block it)", out)
	}
	p.eval(`document.readyState`, &state)
	if state == "complete" {
		t.Errorf("the page was complete when the click ran: the test did not hold it loading")
	}
	release()
}
