//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// agent is one more MCP client of the env's daemon: its own gasoline-mcp
// process, initialized with clientInfo.name name.
type agent struct {
	name string
	c    *gasoline.Client
	ctx  context.Context
}

func (e *env) agent(name string) *agent {
	e.t.Helper()
	c, err := gasoline.ConnectAs(e.ctx, e.daemon, name)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return &agent{name: name, c: c, ctx: e.ctx}
}

// act runs one interact action and waits for its terminal result. It
// returns errors rather than failing the test, so that agents can run in
// goroutines.
func (a *agent) act(action string, args map[string]any) (gasoline.Result, error) {
	m := map[string]any{"action": action, "wait_ms": 20000}
	for k, v := range args {
		m[k] = v
	}
	r, err := a.c.Call(a.ctx, "interact", m)
	if err != nil {
		return r, err
	}
	if r.IsError {
		return r, fmt.Errorf("%s: %s %v: tool error %s", a.name, action, args, r)
	}
	for deadline := time.Now().Add(60 * time.Second); (r.Status == "queued" || r.Status == "pending") && time.Now().Before(deadline); {
		if r, err = a.c.CommandResult(a.ctx, r.CorrelationID, 20000); err != nil {
			return r, err
		}
	}
	return r, nil
}

// ok is act for an action that must complete; it decodes the result.
func (a *agent) ok(action string, args map[string]any, into any) error {
	r, err := a.act(action, args)
	if err != nil {
		return err
	}
	if r.Status != "complete" {
		return fmt.Errorf("%s: %s %v: status %q, want complete: %s", a.name, action, args, r.Status, r)
	}
	if into != nil {
		if err := json.Unmarshal(r.Value, into); err != nil {
			return fmt.Errorf("%s: %s result %s: %v", a.name, action, r.Value, err)
		}
	}
	return nil
}

// agentPage is what an agent's action says of the tab it acted in.
type agentPage struct {
	TabID int64  `json:"tab_id"`
	Value any    `json:"value"`
	URL   string `json:"url"`
}

// workInOwnTab has agent a fill, type into and read (with script, which
// returns [location.search, note.value, log.value]) the two-agents page
// three times without naming a tab: each action must land in tabID, its
// own tab, and read back only what it wrote there.
func workInOwnTab(a *agent, tabID int64, script string) error {
	for i := range 3 {
		var got agentPage
		if err := a.ok("fill", map[string]any{"selector": "#note", "text": fmt.Sprintf("%s note %d", a.name, i)}, &got); err != nil {
			return err
		}
		if got.TabID != tabID {
			return fmt.Errorf("%s: fill went to tab %d, want its own tab %d", a.name, got.TabID, tabID)
		}
		if err := a.ok("type", map[string]any{"selector": "#log", "text": a.name + ";"}, &got); err != nil {
			return err
		}
		if got.TabID != tabID {
			return fmt.Errorf("%s: type went to tab %d, want its own tab %d", a.name, got.TabID, tabID)
		}
		var js agentPage
		if err := a.ok("execute_js", map[string]any{"script": script}, &js); err != nil {
			return err
		}
		want := fmt.Sprintf("[?who=%s %s note %d %s]", a.name, a.name, i, strings.Repeat(a.name+";", i+1))
		if js.TabID != tabID || fmt.Sprint(js.Value) != want {
			return fmt.Errorf("%s: execute_js read %v in tab %d, want %s in its own tab %d", a.name, js.Value, js.TabID, want, tabID)
		}
	}
	return nil
}

// observedTab is a tab as observe({what:"tabs"}) lists it.
type observedTab struct {
	TabID int64  `json:"tab_id"`
	URL   string `json:"url"`
	Owner string `json:"owner"`
	Mine  bool   `json:"mine"`
	Group string `json:"group"`
}

func (a *agent) tabs() (map[int64]observedTab, error) {
	r, err := a.c.Call(a.ctx, "observe", map[string]any{"what": "tabs"})
	if err != nil {
		return nil, err
	}
	var l struct {
		Tabs []observedTab `json:"tabs"`
	}
	if err := json.Unmarshal(r.Raw, &l); err != nil {
		return nil, fmt.Errorf("observe tabs %s: %v", r.Raw, err)
	}
	m := map[int64]observedTab{}
	for _, t := range l.Tabs {
		m[t.TabID] = t
	}
	return m, nil
}

// TestTwoAgentsOwnTabs: two agents (two gasoline-mcp sessions with their
// own clientInfo names) work in one browser at the same time. Each opens a
// tab with new_tab, then fills, types and runs scripts without tab_id: every
// command lands in its own tab, although the other agent's tab is the one in
// front for one of them. observe tabs names the owners and their tab groups;
// close_tab without tab_id refuses a tab the agent does not own; a third
// client with no tab of its own is refused the agents' tab in front, and an
// agent reaches another's tab only by naming it with force:true.
func TestTwoAgentsOwnTabs(t *testing.T) {
	e := ready(t)
	alpha, beta := e.agent("agent-alpha"), e.agent("agent-beta")

	// No tab of its own yet: close_tab without tab_id must not close the
	// user's tab.
	r, err := beta.act("close_tab", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "error" || !strings.Contains(r.Error, "close_tab without tab_id closes only a tab this agent opened") {
		t.Fatalf("close_tab without an owned tab: %s, want an error saying to pass tab_id", r)
	}

	type page = agentPage
	tabOf := map[string]int64{}
	var mu sync.Mutex
	var opened sync.WaitGroup
	opened.Add(2)
	work := func(a *agent) error {
		var nt page
		err := a.ok("new_tab", map[string]any{"url": e.site.URL + "/hands/notes.html?who=" + a.name}, &nt)
		opened.Done()
		if err != nil {
			return err
		}
		mu.Lock()
		tabOf[a.name] = nt.TabID
		mu.Unlock()
		opened.Wait() // both tabs open: the later one is in front, for both agents
		return workInOwnTab(a, nt.TabID, "return [location.search, note.value, log.value]")
	}
	errs := make(chan error, 2)
	for _, a := range []*agent{alpha, beta} {
		go func() { errs <- work(a) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ta, tb := tabOf["agent-alpha"], tabOf["agent-beta"]

	// What each tab holds, read by naming it: no cross-talk.
	for name, id := range tabOf {
		js := complete(t, e.js("return note.value + '|' + log.value", map[string]any{"tab_id": id, "force": true}))
		want := name + " note 2|" + strings.Repeat(name+";", 3)
		if got := str(t, js); got != want {
			t.Errorf("tab %d of %s holds %q, want %q", id, name, got, want)
		}
	}

	// observe tabs: owners, mine, groups titled after the agents (capture
	// reports them asynchronously).
	var seen map[int64]observedTab
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if seen, err = alpha.tabs(); err != nil {
			t.Fatal(err)
		}
		if seen[ta].Group == "agent-alpha" && seen[tb].Group == "agent-beta" || time.Now().After(deadline) {
			break
		}
	}
	if x := seen[ta]; x.Owner != "agent-alpha" || !x.Mine || x.Group != "agent-alpha" {
		t.Errorf("alpha's tab as alpha sees it: %+v, want owner agent-alpha, mine, group agent-alpha (all: %+v)", x, seen)
	}
	if x := seen[tb]; x.Owner != "agent-beta" || x.Mine || x.Group != "agent-beta" {
		t.Errorf("beta's tab as alpha sees it: %+v, want owner agent-beta, not mine, group agent-beta", x)
	}
	for id, x := range seen {
		if id != ta && id != tb && (x.Owner != "" || x.Mine) {
			t.Errorf("the user's tab %d: %+v, want no owner", id, x)
		}
	}
	if bs, err := beta.tabs(); err != nil || !bs[tb].Mine || bs[ta].Mine {
		t.Errorf("observe tabs as beta: %+v (%v), want only its own tab mine", bs, err)
	}

	// Each agent's tab is in a window of its own, and the user's window stays
	// the last focused: a client without a tab of its own gets the user's tab.
	if got := e.ok("get_text", map[string]any{"selector": "h1"}); got["tab_id"] == float64(ta) || got["tab_id"] == float64(tb) {
		t.Errorf("get_text without tab_id from a third client: %v, want the user's tab in front, not an agent's", got)
	}
	// Once the user looks at an agent's window, a client with no tab used
	// yet is refused the agent's tab in front.
	var focused bool
	e.inWorker(fmt.Sprintf(`chrome.tabs.get(%d).then((t) => chrome.windows.update(t.windowId, { focused: true })).then((w) => w.focused)`, ta), &focused)
	front, err := e.agent("agent-gamma").act("get_text", map[string]any{"selector": "h1"})
	if err != nil {
		t.Fatal(err)
	}
	if front.Status != "error" || !strings.Contains(front.Error, "belongs to agent agent-") || !strings.Contains(front.Error, "pass tab_id") {
		t.Errorf("get_text without tab_id from a third client while an agent's tab is in front: %s, want an error naming the owner", front)
	}

	// Another agent's tab only by naming it with force:true; the default
	// stays one's own.
	if r, err := alpha.act("execute_js", map[string]any{"script": "note.value", "tab_id": tb}); err != nil ||
		r.Status != "error" || !strings.Contains(r.Error, "belongs to agent agent-beta") || !strings.Contains(r.Error, "force:true") {
		t.Errorf("alpha naming beta's tab without force: %v %s, want an error naming agent-beta and force:true", err, r)
	}
	var named page
	if err := alpha.ok("execute_js", map[string]any{"script": "note.value", "tab_id": tb, "force": true}, &named); err != nil {
		t.Fatal(err)
	}
	if named.TabID != tb || named.Value != "agent-beta note 2" {
		t.Errorf("alpha naming beta's tab: %+v, want beta's note", named)
	}
	var own page
	if err := alpha.ok("execute_js", map[string]any{"script": "note.value"}, &own); err != nil {
		t.Fatal(err)
	}
	if own.TabID != ta {
		t.Errorf("after naming beta's tab, alpha's default went to tab %d, want its own %d", own.TabID, ta)
	}

	// close_tab without tab_id closes one's own tab, then has none to close.
	var closed struct {
		Closed int64 `json:"closed"`
	}
	if err := beta.ok("close_tab", nil, &closed); err != nil {
		t.Fatal(err)
	}
	if closed.Closed != tb {
		t.Errorf("beta's close_tab closed tab %d, want its own %d", closed.Closed, tb)
	}
	if r, err = beta.act("close_tab", nil); err != nil {
		t.Fatal(err)
	}
	if r.Status != "error" || !strings.Contains(r.Error, "close_tab without tab_id") {
		t.Errorf("close_tab once beta's tab is gone: %s, want an error", r)
	}
	if got := str(t, complete(t, e.js("document.title", map[string]any{"tab_id": ta, "force": true}))); got != "Notes" {
		t.Errorf("alpha's tab after beta closed its own: %q, want it still open", got)
	}
}
