package server_test

import (
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
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

	// held: what the extension holds of origins not allowed, the latest reading.
	held := url.QueryEscape(`[{"tab_id":7,"origin":"https://shop.example","events":3,"dropped":1}]`)
	active("/pending-queries?wait_ms=0&frames=0&frames_at=2000&held=" + held)
	want := []apitype.HeldCapture{{TabID: 7, Origin: "https://shop.example", Events: 3, Dropped: 1}}
	if got := e.capture.Held(); !slices.Equal(got, want) {
		t.Errorf("after held: got %+v, want %+v", got, want)
	}
	active("/pending-queries?wait_ms=0&frames=0&frames_at=1000&held=%5B%5D")
	if got := e.capture.Held(); !slices.Equal(got, want) {
		t.Errorf("an older reading replaced a newer one: got %+v", got)
	}
	active("/pending-queries?wait_ms=0&frames=0&frames_at=3000&held=%5B%5D")
	if got := e.capture.Held(); len(got) != 0 {
		t.Errorf("after held=[]: got %+v, want nothing held", got)
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

// heldPoll starts ext's poll held up to 25 s and returns its answer's
// channel once the tracker has it in flight.
func (e *env) heldPoll(t *testing.T, ext *signer, instance string) <-chan apitype.PendingQueries {
	t.Helper()
	answered := make(chan apitype.PendingQueries, 1)
	go func() {
		_, body := ext.do(t, "GET", "/pending-queries?wait_ms=25000", "")
		var pq apitype.PendingQueries
		if err := json.Unmarshal(body, &pq); err != nil {
			t.Errorf("the held poll's answer: %v: %s", err, body)
		}
		answered <- pq
	}()
	// Presence gives an instance's last contact, or the tracker's now while
	// a Poll of it is in flight: three looks each later than the one
	// before see the poll held (contacts are its request, its Poll's start
	// and end; the end answers the test's channel, which then fails).
	var seen []time.Time
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		p := e.tracker.Presence()
		if p.Instance != instance || (len(seen) > 0 && !p.LastSeen.After(seen[len(seen)-1])) {
			seen = seen[:0]
		}
		if p.Instance == instance {
			seen = append(seen, p.LastSeen)
		}
		if len(seen) == 3 {
			return answered
		}
		if time.Now().After(deadline) {
			t.Fatalf("the poll of %s is not held after 10 s", instance)
		}
	}
}

// answer waits for a held poll's answer, at most 10 s (it is held 25 s).
func answer(t *testing.T, held <-chan apitype.PendingQueries, what string) apitype.PendingQueries {
	t.Helper()
	select {
	case pq := <-held:
		return pq
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the held poll did not answer within 10 s", what)
	}
	return apitype.PendingQueries{}
}

// toolCall calls tool with arguments args as an agent does.
func (e *env) toolCall(t *testing.T, id int, tool, args string) {
	t.Helper()
	params := `"name":"` + tool + `","arguments":` + args
	h := modernHeaders("tools/call", tool)
	h["Authorization"] = "Bearer " + token
	got, body := e.do(t, req{"POST", "/mcp", h, modernReq(id, "tools/call", params, false)})
	if got != 200 {
		t.Fatalf("tools/call %s: %d %s", params, got, body)
	}
}

// agentRetell is handlers.go's: a call this much newer than the agent_at an
// instance was told wakes its held poll.
const agentRetell = time.Minute

// A poll held while no agent works answers at the first tool call, so an
// agent's first observe reaches the extension at once, not a poll later.
func TestHeldPollAnswersAtAnAgentsFirstCall(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	held := e.heldPoll(t, ext, "i1")
	e.toolCall(t, 1, "observe", `{"what":"logs"}`)
	if pq := answer(t, held, "an observe"); pq.AgentAt == 0 {
		t.Errorf("the answer has no agent_at: %+v", pq)
	}
}

// An agent whose first call is an observe that waits for events (the very
// iframe errors the extension captures only at work) tells the extension
// at once: the held poll does not wait for that call to return.
func TestHeldPollAnswersDuringAWaitingObserve(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	held := e.heldPoll(t, ext, "i1")
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		params := `"name":"observe","arguments":{"what":"errors","wait_ms":8000}`
		h := modernHeaders("tools/call", "observe")
		h["Authorization"] = "Bearer " + token
		e.do(t, req{"POST", "/mcp", h, modernReq(1, "tools/call", params, false)})
	}()
	select {
	case pq := <-held:
		if pq.AgentAt == 0 {
			t.Errorf("the answer has no agent_at: %+v", pq)
		}
	case <-returned:
		t.Fatal("the held poll answered only after the observe waiting 8 s returned")
	case <-time.After(10 * time.Second):
		t.Fatal("the held poll did not answer within 10 s")
	}
	<-returned
}

// The wake-up does not cost the first command a poll round trip: the held
// poll answers once the call that woke it returned, with agent_at and the
// command it queued. Every extension instance is told on its own: a
// second browser's held poll wakes too, and one already told of the call
// is not woken by a call within agentRetell (by the daemon's clock).
func TestHeldPollWokenByACallCarriesItsCommand(t *testing.T) {
	e := newEnv(t)
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC).UnixNano())
	e.mcp.SetClock(func() time.Time { return time.Unix(0, now.Load()) })
	tok := e.pairExtension(t)
	one, two := e.signer(tok, "i1"), e.signer(tok, "i2")

	held := e.heldPoll(t, one, "i1")
	e.toolCall(t, 1, "interact", `{"action":"execute_js","script":"1","tab_id":7}`)
	pq := answer(t, held, "an interact")
	if pq.AgentAt == 0 || len(pq.Queries) != 1 || pq.Queries[0].Action != "execute_js" {
		t.Fatalf("the woken poll answered %+v, want agent_at and the execute_js command", pq)
	}

	// Not told yet: its poll answers at once (held 25 s otherwise).
	start := time.Now()
	_, body := two.do(t, "GET", "/pending-queries?wait_ms=25000", "")
	if err := json.Unmarshal(body, &pq); err != nil || pq.AgentAt == 0 || time.Since(start) > 10*time.Second {
		t.Errorf("the second instance's poll: %s after %v, want agent_at at once", body, time.Since(start))
	}

	held = e.heldPoll(t, one, "i1")
	now.Add(int64(agentRetell / 2))
	e.toolCall(t, 2, "observe", `{"what":"logs"}`) // told of the first call half agentRetell ago: not woken
	now.Add(int64(agentRetell))
	e.toolCall(t, 3, "observe", `{"what":"logs"}`)
	if pq := answer(t, held, "a call agentRetell after the one told"); pq.AgentAt != time.Unix(0, now.Load()).UnixMilli() {
		t.Errorf("agent_at %d, want the third call's %d (the second must not have woken it)", pq.AgentAt, time.Unix(0, now.Load()).UnixMilli())
	}
}
