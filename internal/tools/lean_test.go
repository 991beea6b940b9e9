package tools

import (
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// leanLoad is tab's top-document load; lean: loaded while no agent was at
// work.
func leanLoad(tab int64, lean bool) apitype.Event {
	return apitype.Event{Kind: "nav", TS: ts0, TabID: tab, PageURL: cart, Type: "load", To: cart, Lean: lean}
}

// TestLeanReads: what observe and a HAR export say when pages were loaded
// while no agent was at work (tab 1: lean; tab 2: loaded at work), and that
// they say nothing when nothing read is lean.
func TestLeanReads(t *testing.T) {
	e := newCapEnv(t)
	lean := requestEvent("GET", "http://localhost:3000/api/cart", 200)
	lean.Lean = true
	lean2 := requestEvent("POST", "http://localhost:3000/api/cart", 201)
	lean2.Lean = true
	atWork := requestEvent("GET", "http://localhost:3000/api/user", 200)
	atWork.TabID, atWork.ResponseBody = 2, `{"name":"Ada"}`
	e.ingest(t, leanLoad(1, true), lean, lean2, leanLoad(2, false), atWork,
		apitype.Event{Kind: "vital", TS: ts0, TabID: 2, PageURL: cart, Name: "LCP", Value: apitype.Num(800), Unit: "ms"})
	// ids: 1 load, 2 and 3 lean requests, 4 load, 5 request at work, 6 vital

	refresh := `refresh the page (interact({action:\"refresh\", tab_id:1})) to capture bodies`
	tests := []struct {
		name, args string
		code       string
		want       []string
		wantNot    []string
	}{
		{name: "requests", args: `{"what":"network"}`,
			want: []string{`"lean":"2 requests came from pages loaded while no agent was at work: their bodies were not kept; ` + refresh + `"`}},
		{name: "requests of the tab at work", args: `{"what":"network","tab_id":2}`, wantNot: []string{"lean"}},
		{name: "a lean request in full", args: `{"what":"network","id":2}`,
			want: []string{`"body":"not kept: its page was loaded while no agent was at work; a reload of the page while you work captures bodies"`}},
		{name: "a lean GET's request body", args: `{"what":"network","id":2,"body":"request"}`, code: "no_body",
			want: []string{"entry 2 is a GET request", `body:\"response\"`}, wantNot: []string{"refresh"}},
		{name: "a lean request's body", args: `{"what":"network","id":3,"body":"request"}`, code: "body_not_kept",
			want: []string{`entry 3 came from tab 1's page, loaded while no agent was at work`, `interact({action:\"refresh\", tab_id:1})`}},
		{name: "a body at work", args: `{"what":"network","id":5,"body":"response"}`, want: []string{`"text":"{\"name\":\"Ada\"}"`}, wantNot: []string{"lean"}},
		{name: "vitals", args: `{"what":"vitals"}`,
			want: []string{`"lean":"tab 1's page was loaded while no agent was at work: its web vitals are not captured until it is reloaded`}},
		{name: "vitals of the tab at work", args: `{"what":"vitals","tab_id":2}`, wantNot: []string{"lean"}},
		{name: "websockets", args: `{"what":"network","type":"websocket"}`,
			want: []string{`"lean":"tab 1's page was loaded while no agent was at work: its WebSocket traffic is not captured until it is reloaded (interact({action:\"refresh\", tab_id:1}))"`}},
		{name: "websockets of the tab at work", args: `{"what":"network","type":"websocket","tab_id":2}`, wantNot: []string{"lean"}},
		{name: "logs", args: `{"what":"logs"}`, wantNot: []string{"lean"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call(t, "agent", "observe", tc.args)
			if got := r.errorCode(); got != tc.code {
				t.Fatalf("got error code %q, want %q: %s", got, tc.code, r.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("answer lacks %s: %s", w, r.Text)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(r.Text, w) {
					t.Errorf("answer has %s: %s", w, r.Text)
				}
			}
		})
	}

	t.Run("har", func(t *testing.T) {
		r := e.call(t, "agent", "observe", `{"what":"network","format":"har","tabs":"all"}`)
		if !strings.Contains(r.Text, `"lean":"2 requests came from pages loaded while no agent was at work`) {
			t.Errorf("HAR answer lacks the lean line: %s", r.Text)
		}
		h := harOf(t, e, r)
		if len(h.Log.Entries) != 3 {
			t.Fatalf("got %d entries, want 3", len(h.Log.Entries))
		}
		for i, x := range h.Log.Entries[:2] {
			c := x.Response.Content
			if c.Text != "" || !strings.HasPrefix(c.Comment, "not kept: the page was loaded while no agent was at work") ||
				!strings.Contains(x.Comment, "bodies not kept") || x.Response.BodySize != -1 {
				t.Errorf("lean entry %d: got %+v, want no body, size unknown, and why", i, x)
			}
		}
		// A GET sends no body: its size is 0, lean or not; a POST's is unknown.
		if get, post := h.Log.Entries[0].Request, h.Log.Entries[1].Request; get.BodySize != 0 || post.BodySize != -1 {
			t.Errorf("lean requests' body sizes: got GET %d, POST %d, want 0 and -1", get.BodySize, post.BodySize)
		}
		if c := h.Log.Entries[2].Response.Content; c.Text != `{"name":"Ada"}` || strings.Contains(h.Log.Entries[2].Comment, "not kept") {
			t.Errorf("entry at work: got %+v, want its body", h.Log.Entries[2])
		}
		r = e.call(t, "agent", "observe", `{"what":"network","format":"har","tab_id":2}`)
		if strings.Contains(r.Text, "lean") {
			t.Errorf("HAR of the tab at work says lean: %s", r.Text)
		}
	})
}
