//go:build unix

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var stages = flag.Bool("stages", false, "instead of the table: where the time of execute_js, a click and a screenshot goes, stage by stage, from the worker's stage marks (extension/trace.js) and the daemon's command times, in Chromium and then in Firefox (when found; -firefox-only: Firefox's alone), and a screenshot's browser calls timed on their own")

// stageOrder is the order of the worker's marks (extension/background.js).
var stageOrder = []string{"received", "tab chosen", "allowed",
	"act: tab", "act: dialog", "act: document", "act: runtime", "act: answered", "act: settled", "act: changed", "acted", "flushed", "posting", "result answered"}

// traceOn turns the worker's stage marks on (extension/trace.js).
func traceOn(ctx context.Context, conn *cdp.Conn) error {
	w, err := chromium.WaitForWorker(ctx, conn, 10*time.Second)
	if err != nil {
		return err
	}
	s, err := conn.Attach(ctx, w.TargetID)
	if err != nil {
		return err
	}
	var ok bool
	return s.Evaluate(ctx, "globalThis.gasolineTrace = []; true", &ok)
}

// readTrace reads the worker's marks: correlation id → stage → its time
// in Unix ms (the first mark of each stage).
func readTrace(ctx context.Context, wsURL string) (map[string]map[string]float64, error) {
	raw, err := chromiumTrace(ctx, wsURL)
	if err != nil {
		return nil, err
	}
	return parseTrace(raw)
}

// chromiumTrace returns the worker's marks as JSON, through DevTools.
func chromiumTrace(ctx context.Context, wsURL string) (string, error) {
	conn, err := cdp.Dial(ctx, wsURL)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	w, err := chromium.WaitForWorker(ctx, conn, 10*time.Second)
	if err != nil {
		return "", err
	}
	s, err := conn.Attach(ctx, w.TargetID)
	if err != nil {
		return "", err
	}
	var raw string
	err = s.Evaluate(ctx, "JSON.stringify({ origin: performance.timeOrigin, marks: globalThis.gasolineTrace || null })", &raw)
	return raw, err
}

// parseTrace parses the marks' JSON ({origin: the worker's
// performance.timeOrigin, marks: [[id, stage, ms], ...]}), each mark's
// time made Unix ms (origin + ms), comparable with the daemon's times.
func parseTrace(raw string) (map[string]map[string]float64, error) {
	var v struct {
		Origin float64  `json:"origin"`
		Marks  [][3]any `json:"marks"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil || v.Marks == nil || v.Origin == 0 {
		return nil, fmt.Errorf("reading the worker's stage marks (%.80s): the worker restarted, or the extension has no trace.js", raw)
	}
	marks := v.Marks
	out := map[string]map[string]float64{}
	for _, m := range marks {
		id, _ := m[0].(string)
		stage, _ := m[1].(string)
		t, _ := m[2].(float64)
		t += v.Origin
		if out[id] == nil {
			out[id] = map[string]float64{}
		}
		if _, seen := out[id][stage]; !seen {
			out[id][stage] = t
		}
	}
	return out, nil
}

// stageSample is one measured call: its command and round trip.
type stageSample struct {
	id  string
	rtt time.Duration
}

// printStages prints, for the calls of figure, the round trip, the
// daemon's view of it and the time between each two marks in
// stageOrder, p50 and p99.
func printStages(figure string, calls []stageSample, cs gasoline.Commands, marks map[string]map[string]float64) {
	row := func(what string, s []time.Duration) {
		fmt.Printf("| %s | %s | %s | %d |\n", what, fmtDur(pct(s, 50)), fmtDur(pct(s, 99)), len(s))
	}
	fmt.Printf("\n%s\n\n| stage | p50 | p99 | n |\n|---|---|---|---|\n", figure)
	var rtt, dispatch, inDaemon, outside []time.Duration
	for _, c := range calls {
		rtt = append(rtt, c.rtt)
		cmd, ok := cs.Find(c.id)
		if !ok || cmd.DeliveredAt == nil || cmd.FinishedAt == nil {
			continue
		}
		dispatch = append(dispatch, cmd.DeliveredAt.Sub(cmd.CreatedAt))
		inDaemon = append(inDaemon, cmd.FinishedAt.Sub(*cmd.DeliveredAt))
		outside = append(outside, c.rtt-cmd.FinishedAt.Sub(cmd.CreatedAt))
	}
	row("round trip (SDK client)", rtt)
	row("daemon: queued → delivered to the held poll", dispatch)
	row("daemon: delivered → final result applied", inDaemon)
	row("bridge and client: round trip − (queued → result applied)", outside)
	var received []time.Duration
	for _, c := range calls {
		cmd, ok := cs.Find(c.id)
		at, marked := marks[c.id]["received"]
		if ok && cmd.DeliveredAt != nil && marked {
			received = append(received, time.Duration((at-float64(cmd.DeliveredAt.UnixMicro())/1000)*float64(time.Millisecond)))
		}
	}
	// The two clocks are the machine's, read by the daemon and the browser.
	row("daemon delivered → worker: received (the poll's answer read, parsed, dispatched)", received)
	// Each call's marks in stageOrder, each from the one before it that
	// the call has (a DOM action's "act: …" marks come between allowed
	// and acted; execute_js has none).
	rows := map[string][]time.Duration{}
	var labels []string
	for _, c := range calls {
		m := marks[c.id]
		prev := ""
		for _, stage := range stageOrder {
			b, ok := m[stage]
			if !ok {
				continue
			}
			if prev != "" {
				label := prev + " → " + stage
				if _, seen := rows[label]; !seen {
					labels = append(labels, label)
				}
				rows[label] = append(rows[label], time.Duration((b-m[prev])*float64(time.Millisecond)))
			}
			prev = stage
		}
	}
	sort.SliceStable(labels, func(i, j int) bool { return stageIndex(labels[i]) < stageIndex(labels[j]) })
	for _, label := range labels {
		row("worker: "+label, rows[label])
	}
	// Across the two clocks (one machine's): the result's post, each half
	// of its HTTP exchange.
	between := func(what string, from func(gasoline.Command, map[string]float64) (float64, bool), to func(gasoline.Command, map[string]float64) (float64, bool)) {
		var d []time.Duration
		for _, c := range calls {
			cmd, ok := cs.Find(c.id)
			if !ok || cmd.DeliveredAt == nil || cmd.FinishedAt == nil {
				continue
			}
			a, okA := from(cmd, marks[c.id])
			b, okB := to(cmd, marks[c.id])
			if okA && okB {
				d = append(d, time.Duration((b-a)*float64(time.Millisecond)))
			}
		}
		row(what, d)
	}
	unixMs := func(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }
	applied := func(c gasoline.Command, _ map[string]float64) (float64, bool) { return unixMs(*c.FinishedAt), true }
	stage := func(name string) func(gasoline.Command, map[string]float64) (float64, bool) {
		return func(_ gasoline.Command, m map[string]float64) (float64, bool) { t, ok := m[name]; return t, ok }
	}
	between("worker posting → daemon applied the result (the post's request)", stage("posting"), applied)
	between("daemon applied → worker answered (the post's answer)", applied, stage("result answered"))
}

// stageRun measures execute_js of document.title and a click (role and
// name, settled) *n times each after *warmup in browser, and fresh
// screenshots (min(*n, 30), the page changed before each, ≥ 0.6 s after
// the last capture: Chrome allows 2 a second), and prints their stages
// with the marks trace reads, then the times of a screenshot's browser
// calls that costs measures in the extension, in the tab that shows base.
func stageRun(ctx context.Context, browser, base string, mc *gasoline.Client, d *gasoline.Daemon,
	trace func(context.Context) (map[string]map[string]float64, error), costs func(context.Context, string, int) (callTimes, error)) error {
	measure := func(rounds int, args map[string]any, before func(i int) error) ([]stageSample, error) {
		logf("%d warm-up and %d measured interact %v calls, staged", *warmup, rounds, args["action"])
		var out []stageSample
		for i := range *warmup + rounds {
			if err := before(i); err != nil {
				return nil, err
			}
			start := time.Now()
			r, err := mc.Call(ctx, "interact", args)
			took := time.Since(start)
			if err != nil {
				return nil, err
			}
			if r.Status != "complete" {
				return nil, fmt.Errorf("interact %v %d: %s, want complete", args["action"], i, r)
			}
			if i >= *warmup {
				out = append(out, stageSample{id: r.CorrelationID, rtt: took})
			}
		}
		return out, nil
	}
	none := func(int) error { return nil }
	js, err := measure(*n, map[string]any{"action": "execute_js", "script": "document.title", "wait_ms": 10000}, none)
	if err != nil {
		return err
	}
	clicks, err := measure(*n, map[string]any{"action": "click", "role": "button", "name": "Bench button", "wait_ms": 10000}, none)
	if err != nil {
		return err
	}
	var last time.Time
	shots, err := measure(min(*n, 30), map[string]any{"action": "screenshot", "wait_ms": 10000}, func(i int) error {
		js := fmt.Sprintf("document.querySelector('h1').textContent = 'Stage %d'", i)
		if r, err := mc.ExecuteJS(ctx, js, map[string]any{"wait_ms": 10000}); err != nil || r.Status != "complete" {
			return fmt.Errorf("changing the page: %s %v", r, err)
		}
		// Let the change paint and the capture quota pass.
		time.Sleep(max(300*time.Millisecond, time.Until(last.Add(600*time.Millisecond))))
		last = time.Now()
		return nil
	})
	if err != nil {
		return err
	}
	cs, err := d.Commands(ctx)
	if err != nil {
		return err
	}
	marks, err := trace(ctx)
	if err != nil {
		return err
	}
	printStages(fmt.Sprintf("%s: `interact execute_js` of document.title, n=%d", browser, *n), js, cs, marks)
	printStages(fmt.Sprintf("%s: `interact click` (role + name, settled), n=%d", browser, *n), clicks, cs, marks)
	printStages(fmt.Sprintf("%s: `interact screenshot` of the viewport, fresh capture, n=%d", browser, len(shots)), shots, cs, marks)
	return printCallCosts(ctx, browser, base, min(*n, 30), costs)
}

// callCosts is a script for the extension (%q the bench page's URL
// prefix, %d rounds) that times, 0.6 s apart, the browser calls a viewport
// screenshot makes (extension/actions/screenshot.js): executeScript of a
// small function in the tab's top frame (its stampOf, before the
// capture), captureVisibleTab as JPEG at its quality, and tabs.get (its
// report). It resolves to their times in ms.
const callCosts = `(async (prefix, rounds) => {
  const tab = (await chrome.tabs.query({})).find((t) => (t.url || '').startsWith(prefix));
  if (!tab) throw new Error('no tab shows ' + prefix);
  const ms = { script: [], capture: [], get: [] };
  const time = async (k, f) => { const t = performance.now(); await f(); ms[k].push(performance.now() - t); };
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, 600));
    await time('script', () => chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, world: 'ISOLATED', func: () => document.visibilityState }));
    await time('capture', () => chrome.tabs.captureVisibleTab(tab.windowId, { format: 'jpeg', quality: 80 }));
    await time('get', () => chrome.tabs.get(tab.id));
  }
  return ms;
})(%q, %d)`

// callTimes is what callCosts resolves to.
type callTimes struct {
	Script, Capture, Get []float64
}

// chromiumCallCosts times callCosts in Chromium's worker, through DevTools.
func chromiumCallCosts(wsURL string) func(ctx context.Context, base string, rounds int) (callTimes, error) {
	return func(ctx context.Context, base string, rounds int) (callTimes, error) {
		var ms callTimes
		conn, err := cdp.Dial(ctx, wsURL)
		if err != nil {
			return ms, err
		}
		defer conn.Close()
		w, err := chromium.WaitForWorker(ctx, conn, 10*time.Second)
		if err != nil {
			return ms, err
		}
		s, err := conn.Attach(ctx, w.TargetID)
		if err != nil {
			return ms, err
		}
		err = s.Evaluate(ctx, fmt.Sprintf(callCosts, base, rounds), &ms)
		return ms, err
	}
}

// printCallCosts prints the times of callCosts in browser.
func printCallCosts(ctx context.Context, browser, base string, rounds int, costs func(context.Context, string, int) (callTimes, error)) error {
	logf("%d rounds of a screenshot's browser calls, timed in the extension", rounds)
	ms, err := costs(ctx, base, rounds)
	if err != nil {
		return fmt.Errorf("timing a screenshot's browser calls in %s: %w", browser, err)
	}
	fmt.Printf("\n%s: a screenshot's browser calls, timed in the extension, 0.6 s apart\n\n| call | p50 | p99 | n |\n|---|---|---|---|\n", browser)
	for _, c := range []struct {
		what string
		ms   []float64
	}{
		{"scripting.executeScript of a one-line function in the tab's top frame (as stampOf)", ms.Script},
		{"tabs.captureVisibleTab, JPEG quality 80", ms.Capture},
		{"tabs.get (as report)", ms.Get},
	} {
		var d []time.Duration
		for _, v := range c.ms {
			d = append(d, time.Duration(v*float64(time.Millisecond)))
		}
		fmt.Printf("| %s | %s | %s | %d |\n", c.what, fmtDur(pct(d, 50)), fmtDur(pct(d, 99)), len(d))
	}
	return nil
}

// stageIndex orders a "from → to" label by where its stages are in stageOrder.
func stageIndex(label string) int {
	from, to, _ := strings.Cut(label, " → ")
	return slices.Index(stageOrder, from)*len(stageOrder) + slices.Index(stageOrder, to)
}
