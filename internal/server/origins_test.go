package server_test

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// TestOriginsAllow: 'gasoline allow' (POST /origins/allow, the state
// dir's token) queues an origin, normalised; the extension's next poll
// takes it (a held poll ends at once) and the one after has none. Neither
// an unauthenticated request nor the extension's own token can allow.
func TestOriginsAllow(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	admin := map[string]string{"Authorization": "Bearer " + token}

	// In this order: the first poll lists them in the order allowed (a
	// map's order is random).
	for _, c := range [][2]string{{"Shop.Example:8443", "https://shop.example:8443"}, {"http://shop.example:80/cart?x=1", "http://shop.example"}} {
		in, want := c[0], c[1]
		got, body := e.do(t, req{"POST", "/origins/allow?origin=" + url.QueryEscape(in), admin, ""})
		var r apitype.OriginAllowed
		if got != 200 || json.Unmarshal(body, &r) != nil || r.Origin != want {
			t.Errorf("allow %q: got %d %s, want origin %s", in, got, body, want)
		}
	}
	for _, bad := range []string{"", "chrome://settings", "file:///etc", "javascript:alert(1)", "http://user@x.example"} {
		if got, body := e.do(t, req{"POST", "/origins/allow?origin=" + url.QueryEscape(bad), admin, ""}); got != 400 || errCode(t, body) != "invalid_origin" {
			t.Errorf("allow %q: got %d %s, want 400 invalid_origin", bad, got, body)
		}
	}
	if got, _ := e.do(t, req{"POST", "/origins/allow?origin=evil.example", nil, ""}); got != 401 {
		t.Errorf("allow without a token: got %d, want 401", got)
	}
	if got, _ := ext.do(t, "POST", "/origins/allow?origin=evil.example", ""); got == 200 {
		t.Errorf("allow signed with the extension's token: got 200, want a refusal")
	}

	poll := func(wait string) apitype.PendingQueries {
		t.Helper()
		got, body := ext.do(t, "GET", "/pending-queries?wait_ms="+wait, "")
		var pq apitype.PendingQueries
		if got != 200 || json.Unmarshal(body, &pq) != nil {
			t.Fatalf("poll: %d %s", got, body)
		}
		return pq
	}
	if pq := poll("0"); len(pq.AllowOrigins) != 2 || pq.AllowOrigins[0] != "https://shop.example:8443" {
		t.Errorf("first poll: allow_origins %v, want the two allowed", pq.AllowOrigins)
	}
	if pq := poll("0"); len(pq.AllowOrigins) != 0 {
		t.Errorf("second poll: allow_origins %v, want none", pq.AllowOrigins)
	}

	held := make(chan apitype.PendingQueries, 1)
	before := time.Now()
	go func() { held <- poll("20000") }()
	// Let the poll be held (the allow below must end it either way): once it
	// is in the tracker's Poll, Presence reads the time at each look, so
	// LastSeen moves between two looks with no other request in between.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		a := e.tracker.Presence().LastSeen
		if b := e.tracker.Presence().LastSeen; a.After(before) && b.After(a) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the poll was not held within 10 s")
		}
	}
	if got, body := e.do(t, req{"POST", "/origins/allow?origin=late.example", admin, ""}); got != 200 {
		t.Fatalf("allow late.example: %d %s", got, body)
	}
	select {
	case pq := <-held:
		if len(pq.AllowOrigins) != 1 || pq.AllowOrigins[0] != "https://late.example" {
			t.Errorf("held poll: allow_origins %v, want https://late.example", pq.AllowOrigins)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a held poll did not end at the user's allow")
	}
}
