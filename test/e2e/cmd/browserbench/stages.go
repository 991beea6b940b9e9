//go:build unix

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var stages = flag.Bool("stages", false, "instead of the table: where the time of execute_js and of a click goes, stage by stage, from the worker's stage marks (extension/trace.js) and the daemon's command times")

// stageOrder is the order of the worker's marks (extension/background.js).
var stageOrder = []string{"received", "tab chosen", "allowed", "acted", "flushed", "posting", "result answered"}

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

// readTrace reads the worker's marks: correlation id → stage → its
// worker clock time in ms (the first mark of each stage).
func readTrace(ctx context.Context, wsURL string) (map[string]map[string]float64, error) {
	conn, err := cdp.Dial(ctx, wsURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	w, err := chromium.WaitForWorker(ctx, conn, 10*time.Second)
	if err != nil {
		return nil, err
	}
	s, err := conn.Attach(ctx, w.TargetID)
	if err != nil {
		return nil, err
	}
	var raw string
	if err := s.Evaluate(ctx, "JSON.stringify(globalThis.gasolineTrace || null)", &raw); err != nil {
		return nil, err
	}
	var marks [][3]any
	if err := json.Unmarshal([]byte(raw), &marks); err != nil || marks == nil {
		return nil, fmt.Errorf("reading the worker's stage marks (%.80s): the worker restarted, or the extension has no trace.js", raw)
	}
	out := map[string]map[string]float64{}
	for _, m := range marks {
		id, _ := m[0].(string)
		stage, _ := m[1].(string)
		t, _ := m[2].(float64)
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
	for i := 1; i < len(stageOrder); i++ {
		var d []time.Duration
		for _, c := range calls {
			m := marks[c.id]
			a, okA := m[stageOrder[i-1]]
			b, okB := m[stageOrder[i]]
			if okA && okB {
				d = append(d, time.Duration((b-a)*float64(time.Millisecond)))
			}
		}
		row("worker: "+stageOrder[i-1]+" → "+stageOrder[i], d)
	}
	// Across the two clocks (one machine's): the poll's answer and the
	// result's post, each half of its HTTP exchange.
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
	delivered := func(c gasoline.Command, _ map[string]float64) (float64, bool) { return unixMs(*c.DeliveredAt), true }
	applied := func(c gasoline.Command, _ map[string]float64) (float64, bool) { return unixMs(*c.FinishedAt), true }
	stage := func(name string) func(gasoline.Command, map[string]float64) (float64, bool) {
		return func(_ gasoline.Command, m map[string]float64) (float64, bool) { t, ok := m[name]; return t, ok }
	}
	between("daemon delivered → worker received (the poll's answer)", delivered, stage("received"))
	between("worker posting → daemon applied the result (the post's request)", stage("posting"), applied)
	between("daemon applied → worker answered (the post's answer)", applied, stage("result answered"))
}

// stageRun measures execute_js of document.title and a click (role and
// name, settled) *n times each after *warmup, and prints their stages.
func stageRun(ctx context.Context, mc *gasoline.Client, d *gasoline.Daemon, wsURL string) error {
	measure := func(args map[string]any) ([]stageSample, error) {
		logf("%d warm-up and %d measured interact %v calls, staged", *warmup, *n, args["action"])
		var out []stageSample
		for i := range *warmup + *n {
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
	js, err := measure(map[string]any{"action": "execute_js", "script": "document.title", "wait_ms": 10000})
	if err != nil {
		return err
	}
	clicks, err := measure(map[string]any{"action": "click", "role": "button", "name": "Bench button", "wait_ms": 10000})
	if err != nil {
		return err
	}
	cs, err := d.Commands(ctx)
	if err != nil {
		return err
	}
	marks, err := readTrace(ctx, wsURL)
	if err != nil {
		return err
	}
	printStages(fmt.Sprintf("`interact execute_js` of document.title, n=%d", *n), js, cs, marks)
	printStages(fmt.Sprintf("`interact click` (role + name, settled), n=%d", *n), clicks, cs, marks)
	return nil
}
