package server_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// The poll's answer says when an agent last called a tool (any, observe
// included) until apitype.AgentActiveFor after it, by the daemon's
// clock; the poll's frames parameter is kept for the capture reads' note.
func TestPollSaysAgentActive(t *testing.T) {
	e := newEnv(t)
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC).UnixNano())
	e.mcp.SetClock(func() time.Time { return time.Unix(0, now.Load()) })
	ext := e.signer(e.pairExtension(t), "i1")
	active := func(path string) int64 {
		t.Helper()
		got, body := ext.do(t, "GET", path, "")
		if got != 200 {
			t.Fatalf("poll: got %d %s", got, body)
		}
		var pq apitype.PendingQueries
		if err := json.Unmarshal(body, &pq); err != nil {
			t.Fatal(err)
		}
		return pq.AgentAt
	}
	if at := active("/pending-queries?wait_ms=0"); at != 0 {
		t.Fatalf("before any tool call: agent_at %d, want absent", at)
	}
	called := time.Unix(0, now.Load()).UnixMilli()
	h := modernHeaders("tools/call", "observe")
	h["Authorization"] = "Bearer " + token
	observe := modernReq(1, "tools/call", `"name":"observe","arguments":{"what":"errors"}`, false)
	if got, body := e.do(t, req{"POST", "/mcp", h, observe}); got != 200 {
		t.Fatalf("observe: got %d %s", got, body)
	}
	now.Add(int64(apitype.AgentActiveFor - time.Second))
	if at := active("/pending-queries?wait_ms=0"); at != called {
		t.Errorf("an observe call 15 min - 1 s ago: agent_at %d, want %d", at, called)
	}
	now.Add(int64(time.Second))
	if at := active("/pending-queries?wait_ms=0"); at != 0 {
		t.Errorf("15 min after the last tool call: agent_at %d, want absent", at)
	}

	since := time.UnixMilli(time.Date(2026, 1, 2, 10, 3, 4, 0, time.UTC).UnixMilli())
	active("/pending-queries?wait_ms=0&frames=" + strconv.FormatInt(since.UnixMilli(), 10))
	if f := e.capture.Frames(); !f.Reported || !f.Since.Equal(since) {
		t.Errorf("after frames=%d: %+v, want reported since %v", since.UnixMilli(), f, since)
	}
	active("/pending-queries?wait_ms=0&frames=0")
	if f := e.capture.Frames(); !f.Reported || !f.Since.IsZero() {
		t.Errorf("after frames=0: %+v, want reported idle", f)
	}
}

// The extension goes idle IDLE_AFTER_MS after an agent's last call, the
// daemon stops reporting it apitype.AgentActiveFor after: one figure.
func TestAgentActiveForMatchesTheExtension(t *testing.T) {
	src, err := os.ReadFile("../../extension/capture/declared.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export const IDLE_AFTER_MS = (\d+) \* (\d+) \* (\d+);`).FindStringSubmatch(string(src))
	if m == nil {
		t.Fatal("IDLE_AFTER_MS = a * b * c; not found in extension/capture/declared.js")
	}
	ms := int64(1)
	for _, f := range m[1:] {
		n, _ := strconv.ParseInt(f, 10, 64)
		ms *= n
	}
	if got := time.Duration(ms) * time.Millisecond; got != apitype.AgentActiveFor {
		t.Errorf("the extension's IDLE_AFTER_MS is %v, the daemon's AgentActiveFor %v: keep them one", got, apitype.AgentActiveFor)
	}
}

// A poll held while no agent works answers at the first tool call, so an
// agent's first observe reaches the extension at once, not a poll later
// (whether the call comes before the poll is held or while it is).
func TestHeldPollAnswersAtAnAgentsFirstCall(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	held := make(chan []byte, 1)
	start := time.Now()
	go func() {
		_, body := ext.do(t, "GET", "/pending-queries?wait_ms=25000", "")
		held <- body
	}()
	h := modernHeaders("tools/call", "observe")
	h["Authorization"] = "Bearer " + token
	call := modernReq(1, "tools/call", `"name":"observe","arguments":{"what":"logs"}`, false)
	if got, body := e.do(t, req{"POST", "/mcp", h, call}); got != 200 {
		t.Fatalf("observe: %d %s", got, body)
	}
	body := <-held
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("the held poll answered after %v, not at the call", d)
	}
	var pq apitype.PendingQueries
	if err := json.Unmarshal(body, &pq); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if pq.AgentAt == 0 {
		t.Errorf("the answer has no agent_at: %s", body)
	}
}
