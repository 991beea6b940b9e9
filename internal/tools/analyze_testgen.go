package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/internal/testgen"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// testModes write a regression test from what the capture buffers hold.
func testModes() []action {
	a := handler("analyze", "test", "Playwright test of recorded actions", (*Tools).recordedTest)
	a.MaxWait, a.DefaultWait = verifyTimeout, verifyTimeout // verify blocks; the bridge waits as long
	a.long = func(raw json.RawMessage) bool {               // a verify run takes seconds: a client that follows tasks gets one
		var v struct {
			Verify bool `json:"verify"`
		}
		return json.Unmarshal(raw, &v) == nil && v.Verify
	}
	for i, f := range a.fields {
		if f.name == "wait_ms" { // shown as the other modes' (its bound still enforced)
			a.fields[i] = bare(a.fields[i : i+1])[0]
			a.fields[i].min, a.fields[i].max = nil, nil
		}
	}
	return []action{a}
}

// verifyTimeout bounds a verify run: Chromium's start and the test's own
// timeouts (30 s a test) fit in it on a busy machine.
const verifyTimeout = 50 * time.Second

// maxWindow bounds the entries a test is generated from.
const maxWindow = 4000

type testArgs struct {
	tabArg
	Since  *uint64 `json:"since" desc:"actions cursor; default: last manual load"`
	Verify bool    `json:"verify,omitempty" desc:"run it"`
	// WaitMS waits up to this long for a first recorded action when the
	// window has none yet (the user is still acting, or their last action is
	// on its way); the call's whole time, verify's run included, stays
	// within verifyTimeout (and so does the wait).
	WaitMS *int64 `json:"wait_ms" min:"0" max:"55000" list:"-"`
}

// testView is analyze test's answer: the generated test (its file inline,
// or a handle when large), the window it came from and, with verify, how
// the run went.
type testView struct {
	TabID int64  `json:"tab_id"`
	Since uint64 `json:"since"` // the window is the entries after this cursor
	testgen.Result
	File     string           `json:"file,omitempty"`
	Output   *storedView      `json:"output,omitempty"`
	Verdict  *testgen.Verdict `json:"verdict,omitempty"`
	Verified string           `json:"verified"` // passed, failed, or why it was not run
}

// recordedTest generates a Playwright test from the actions captured in
// one tab (tab_id, else the caller's tab with the newest action) after
// since (else after the last page load no recorded action caused) and,
// with verify, runs it.
func (t *Tools) recordedTest(ctx context.Context, client string, a testArgs) (any, error) {
	tab, err := t.testTab(client, a.TabID)
	if err != nil {
		return nil, err
	}
	since := a.Since
	if since == nil {
		s, err := t.lastLoadByHand(tab)
		if err != nil {
			return nil, err
		}
		since = &s
	}
	wait, err := waitArg(a.WaitMS, 0, MaxWait)
	if err != nil {
		return nil, err
	}
	wait = min(wait, verifyTimeout)
	deadline := time.Now().Add(verifyTimeout)
	res, err := t.generateTest(ctx, client, tab, *since, wait)
	if errors.Is(err, testgen.ErrNoActions) {
		return nil, mcp.Errorf("no_actions", `act on the page (or have the user do it), or pass since:<cursor> from observe({what:"actions"}) to start earlier`,
			"tab %d has no recorded action after cursor %d", tab, *since)
	}
	if err != nil {
		return nil, err
	}
	v := &testView{TabID: tab, Since: *since, Result: res, File: res.File, Verified: `not run: pass verify:true`}
	if a.Verify {
		vctx, cancel := context.WithDeadline(ctx, deadline)
		verdict, err := testgen.Runner{From: mcp.Projects(ctx)}.Verify(vctx, res, nil)
		cancel()
		switch {
		case err != nil: // testgen.ErrNoRunner among others
			v.Verified = "could not verify: " + err.Error()
		case verdict.Passed:
			v.Verdict, v.Verified = &verdict, "passed"
		default:
			v.Verdict, v.Verified = &verdict, fmt.Sprintf("failed at line %d: %s", verdict.FailedLine, verdict.FailedCode)
		}
		if len(res.Secrets) > 0 && err == nil {
			v.Notes = append(v.Notes, "the run had no secrets set: fields that need one were filled with ''")
		}
	}
	v.Result.File = ""
	if t.d.Results.Oversize(res.File) {
		id := testHandleID(client, tab, *since)
		h, err := t.d.Results.Put(client, id, res.File)
		if err == nil {
			s := storedViewOf(id, "recorded Playwright test", &result.Stored{Handle: h})
			v.File, v.Output = "", &s
		} else if !errors.Is(err, result.ErrNoStore) {
			return nil, fmt.Errorf("storing the generated test: %w", err)
		}
	}
	return v, nil
}

// generateTest writes the test of the entries of tab after since; when
// they hold no action, it waits up to wait for one to be recorded.
func (t *Tools) generateTest(ctx context.Context, client string, tab int64, since uint64, wait time.Duration) (testgen.Result, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		head := t.d.Capture.Head()
		f := capture.Filter{Kind: capture.KindAction, Also: []capture.Kind{capture.KindNav, capture.KindNetwork, capture.KindError},
			TabID: &tab, Limit: capture.MaxLimit}
		entries, err := t.window(f, since)
		if err != nil {
			return testgen.Result{}, err
		}
		res, err := testgen.Generate(testgen.Recording{Name: fmt.Sprintf("recorded in tab %d", tab), Entries: entries,
			Agent: t.agentActions(client, tab, entries)})
		if !errors.Is(err, testgen.ErrNoActions) || wait <= 0 {
			return res, err
		}
		if _, werr := t.d.Capture.Wait(wctx, capture.Filter{Kind: capture.KindAction, TabID: &tab, Since: &head}); werr != nil {
			return res, err // the wait ended (or the store closed): no action came
		}
	}
}

// testHandleID is the output store id of the test generated in tab after
// since as client asked for it; a short hash of the client's name ends it,
// so another agent asking the same stores its own copy instead of
// replacing (and taking) the first one's, as bodyHandleID.
func testHandleID(client string, tab int64, since uint64) string {
	sum := sha256.Sum256([]byte(tracker.ClientName(client)))
	return fmt.Sprintf("test-%d-%d-%s", tab, since, hex.EncodeToString(sum[:4]))
}

// testTab is tabID, else the tab of the newest action client's reads see.
func (t *Tools) testTab(client string, tabID *int64) (int64, error) {
	if tabID != nil {
		return *tabID, nil
	}
	sc, err := t.scope(client, entryArgs{})
	if err != nil {
		return 0, err
	}
	f := capture.Filter{Kind: capture.KindAction, Limit: 1}
	sc.apply(&f)
	p, err := t.d.Capture.Query(f)
	if err != nil {
		return 0, captureError(err)
	}
	if len(p.Entries) == 0 {
		return 0, mcp.Errorf("no_actions", `act on the page (or have the user do it) and call again, or name the tab with tab_id`,
			"no recorded action in the tabs this read covers (%s)", sc.hint())
	}
	return p.Entries[0].Header().TabID, nil
}

// causedWithin is how long after an action a page load counts as its
// doing (a submit's post and redirect).
const causedWithin = 10 * time.Second

// lastLoadByHand is the cursor just before the last page load in tab that
// no recorded action caused (no action in the causedWithin before it),
// or 0 for the oldest entry. Entries are read in arrival order, and an
// action recorded in the page a submit unloads can arrive after the load
// it caused, so actions are matched to loads by time, not by order.
func (t *Tools) lastLoadByHand(tab int64) (uint64, error) {
	es, err := t.window(capture.Filter{Kind: capture.KindAction, Also: []capture.Kind{capture.KindNav}, TabID: &tab, Limit: capture.MaxLimit}, 0)
	if err != nil {
		return 0, err
	}
	var acts []int64
	for _, e := range es {
		if v, ok := e.(*capture.ActionView); ok && v.Type != "appeared" && v.Type != "agent_appeared" { // what a page showed, not an action
			acts = append(acts, v.TS)
		}
	}
	var since uint64
	for _, e := range es {
		v, ok := e.(*capture.NavView)
		if !ok || v.Type != "load" {
			continue
		}
		caused := slices.ContainsFunc(acts, func(ts int64) bool {
			return ts <= v.TS && time.Duration(v.TS-ts)*time.Millisecond <= causedWithin
		})
		if !caused {
			since = v.ID - 1
		}
	}
	return since, nil
}

// window reads f's entries after since, every page of them up to
// maxWindow; actions are read again whole (a list clips their values).
func (t *Tools) window(f capture.Filter, since uint64) ([]capture.View, error) {
	var out []capture.View
	cur := since
	for len(out) < maxWindow {
		f.Since = &cur
		p, err := t.d.Capture.Query(f)
		if err != nil {
			return nil, captureError(err)
		}
		for _, e := range p.Entries {
			if a, ok := e.(*capture.ActionView); ok {
				if whole, err := t.d.Capture.Entry(a.ID); err == nil {
					pu := a.PageURL
					e = whole
					if w, ok := whole.(*capture.ActionView); ok && pu != "" {
						w.PageURL = pu
					}
				}
			}
			out = append(out, e)
		}
		if !p.HasMore || p.NextCursor == cur {
			break
		}
		cur = p.NextCursor
	}
	return out, nil
}

// replayed maps each interact action analyze test keeps the agent's calls
// of to "" when internal/testgen replays it, or to the note saying why it
// is not (action.replay); an action not in it is left out (replayNothing,
// or not a DOM action). Set by init, from the declarations.
var replayed map[string]string

func init() {
	m := map[string]string{}
	for _, a := range interact.actions() {
		switch {
		case a.page == nil || a.replay == replayNothing:
		case a.replay != "":
			m[a.Name] = a.replay
		case testgen.Replays(a.Name):
			m[a.Name] = ""
		}
	}
	replayed = m
}

// agentLog remembers the agent's replayable interact actions with their
// arguments (the tracker drops a finished command's), for analyze test.
// Its methods are safe for concurrent use; the zero value is ready.
type agentLog struct {
	mu      sync.Mutex
	entries []agentEntry // oldest first, at most maxAgentLog; guarded by mu
}

type agentEntry struct {
	client, id, action string
	params             json.RawMessage
	created            time.Time
	tab                int64  // 0 until known
	note               string // why it is not replayed; "" when it is
}

// maxAgentLog bounds the actions agentLog keeps, across clients.
const maxAgentLog = 500

// note remembers spec, queued as command c, when analyze test replays it.
func (l *agentLog) note(spec tracker.Spec, c tracker.Command) {
	note, ok := replayed[spec.Action]
	if !ok {
		return
	}
	var p struct {
		TabID int64 `json:"tab_id"`
	}
	json.Unmarshal(spec.Params, &p)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) >= maxAgentLog {
		l.entries = slices.Delete(l.entries, 0, len(l.entries)-maxAgentLog+1)
	}
	l.entries = append(l.entries, agentEntry{client: c.Client, id: c.ID, action: spec.Action, params: spec.Params, created: c.CreatedAt, tab: p.TabID, note: note})
}

// agentActions are client's interact actions in tab that completed, made
// during the window (from its first entry on): the recorder sees only
// trusted input, so an agent's own actions come from agentLog, their tab
// and success from the tracker while it retains them.
func (t *Tools) agentActions(client string, tab int64, window []capture.View) []testgen.AgentAction {
	var from int64
	if len(window) > 0 {
		from = window[0].Header().TS
	}
	done := map[string]int64{}
	results := map[string]json.RawMessage{}
	for _, c := range t.d.Tracker.List(client).Completed {
		var r struct {
			TabID int64 `json:"tab_id"`
		}
		json.Unmarshal(c.Result, &r)
		done[c.ID], results[c.ID] = r.TabID, c.Result
	}
	name := tracker.ClientName(client)
	t.agent.mu.Lock()
	defer t.agent.mu.Unlock()
	var out []testgen.AgentAction
	for i := range t.agent.entries {
		e := &t.agent.entries[i]
		if e.client != name || e.created.UnixMilli() < from {
			continue
		}
		if got, ok := done[e.id]; ok && got != 0 {
			e.tab = got
		} else if !ok {
			continue // failed, still running, or no longer retained
		}
		if e.tab == tab {
			out = append(out, testgen.AgentAction{ID: e.id, Action: e.action, Params: e.params, TS: e.created.UnixMilli(), Result: results[e.id], NotReplayed: e.note})
		}
	}
	return out
}
