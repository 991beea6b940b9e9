package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestHeldCapture: a read of every tab asks nobody and says what the
// browser holds; a read of a tab with something held queues
// release_capture, answers with its handle while the user is asked, and
// reads what was released once it completed; a denial is
// origin_not_allowed with its hint.
func TestHeldCapture(t *testing.T) {
	e := newCapEnv(t)
	const shop = "https://shop.example"
	e.capt.SetHeld([]apitype.HeldCapture{{TabID: 7, Origin: shop, Events: 2, Dropped: 3}}, time.UnixMilli(1000))

	r := e.call(t, "agent", "observe", `{"what":"network","tabs":"all"}`)
	if note, _ := r.field("held").(string); r.IsError || !strings.Contains(note, "2 more entries of 1 origin(s)") || !strings.Contains(note, shop) ||
		!strings.Contains(note, "[7]") || !strings.Contains(note, "3 older ones") {
		t.Errorf("a read of every tab: got %s, want a note naming the 2 held entries, the 3 dropped, the origin and tab 7", r.Text)
	}
	if st := e.trk.Stats(); st.Queued != 0 {
		t.Fatalf("a read of every tab queued %d commands, want none (no prompt)", st.Queued)
	}

	// Denied.
	r = e.call(t, "agent", "observe", `{"what":"network","tab_id":7}`)
	id, _ := r.field("correlation_id").(string)
	if r.IsError || !strings.HasPrefix(id, "release_") || !strings.Contains(r.Text, "asks the user") {
		t.Fatalf("a read of the held tab: got %s, want the release command's handle", r.Text)
	}
	c := e.delivered(t)
	var p releaseParams
	if c.Action != "release_capture" || json.Unmarshal(c.Params, &p) != nil || p.TabID != 7 {
		t.Fatalf("delivered %s %s, want release_capture for tab 7", c.Action, c.Params)
	}
	origin := shop
	if _, err := e.keep.Report("ext", apitype.QueryResult{CorrelationID: c.ID, Status: "pending", WaitingForUser: &origin}); err != nil {
		t.Fatal(err)
	}
	r = e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+c.ID+`"}`)
	if r.field("phase") != "waiting_for_user" {
		t.Errorf("while the user is asked: got %s, want phase waiting_for_user", r.Text)
	}
	if _, err := e.keep.Report("ext", apitype.QueryResult{CorrelationID: c.ID, Status: "error", Reason: tracker.ReasonOriginNotAllowed, Error: "the user denied it"}); err != nil {
		t.Fatal(err)
	}
	r = e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+c.ID+`"}`)
	if r.field("reason") != tracker.ReasonOriginNotAllowed {
		t.Errorf("denied: got %s, want reason origin_not_allowed", r.Text)
	}

	// Allowed: what was held arrives before the release completes.
	r = e.call(t, "agent", "observe", `{"what":"network","tab_id":7}`)
	c = e.delivered(t)
	ev := requestEvent("GET", shop+"/api/cart", 500)
	ev.TabID, ev.PageURL = 7, shop+"/"
	e.ingest(t, ev)
	e.capt.SetHeld(nil, time.UnixMilli(2000))
	released := `{"origin":"` + shop + `","released":2,"released_at":3000}`
	if _, err := e.keep.Report("ext", reportOf(c.ID, released)); err != nil {
		t.Fatal(err)
	}
	e.capt.Released([]byte(released)) // as POST /query-result does with a completed release_capture
	// A poll sent before the release, slowed on its way, arrives after it:
	// its report of the origin as held is stale.
	e.capt.SetHeld([]apitype.HeldCapture{{TabID: 7, Origin: shop, Events: 2}}, time.UnixMilli(2500))
	r = e.call(t, "agent", "observe", `{"what":"network","tab_id":7}`)
	if r.IsError || !strings.Contains(r.Text, shop+"/api/cart") || r.field("held") != nil {
		t.Errorf("after the release: got %s, want the released request and no note", r.Text)
	}
	if st := e.trk.Stats(); st.Queued != 0 {
		t.Errorf("a read after the release queued %d commands, want none", st.Queued)
	}
}

// TestHeldCaptureInline: when the user answers within the call's inline
// wait, the read itself gives what was released, or fails with
// origin_not_allowed and its hint.
func TestHeldCaptureInline(t *testing.T) {
	e := newCapEnv(t, func(d *Deps) { d.InlineWait = 10 * time.Second })
	const shop = "https://shop.example"
	e.capt.SetHeld([]apitype.HeldCapture{{TabID: 7, Origin: shop, Events: 1}}, time.UnixMilli(1000))
	// extension answers the next release_capture: released events first, then the result.
	extension := func(answer func(c tracker.Command)) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := e.trk.Poll(ctx, "ext", 1)
			if err != nil || len(cs) != 1 || cs[0].Action != "release_capture" {
				t.Errorf("polled %v, %v; want one release_capture", cs, err)
				return
			}
			answer(cs[0])
		}()
		return done
	}

	done := extension(func(c tracker.Command) {
		if _, err := e.keep.Report("ext", apitype.QueryResult{CorrelationID: c.ID, Status: "error", Reason: tracker.ReasonOriginNotAllowed, Error: "the user denied it"}); err != nil {
			t.Error(err)
		}
	})
	r := e.call(t, "agent", "observe", `{"what":"logs","tab_id":7}`)
	<-done
	if r.errorCode() != tracker.ReasonOriginNotAllowed || !strings.Contains(r.Text, "Ask the user") || !strings.Contains(r.Text, "the user denied it") {
		t.Errorf("denied inline: got %s, want origin_not_allowed with the hint", r.Text)
	}

	done = extension(func(c tracker.Command) {
		if _, err := e.capt.Ingest(apitype.EventBatch{Events: []apitype.Event{{Kind: "log", TS: ts0, TabID: 7, PageURL: shop + "/", Level: "error", Message: "cart failed"}}}); err != nil {
			t.Error(err)
		}
		if _, err := e.keep.Report("ext", reportOf(c.ID, `{"origin":"`+shop+`","released":1}`)); err != nil {
			t.Error(err)
		}
	})
	r = e.call(t, "agent", "observe", `{"what":"logs","tab_id":7}`)
	<-done
	if r.IsError || !strings.Contains(r.Text, "cart failed") {
		t.Errorf("allowed inline: got %s, want the released log", r.Text)
	}
	if got := e.capt.Held(); len(got) != 0 {
		t.Errorf("held after the release: %+v, want the released origin forgotten", got)
	}
}
