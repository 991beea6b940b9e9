//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gasoline-mcp/gasoline/extension"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/firefox"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// The Firefox rows (issue 32) are on by default when a Firefox is found:
// the issue asks for Firefox's figures beside Chromium's from the same run,
// and a figure measured in another run, under another load, says little
// next to them. Without a Firefox the bench says so on stderr and prints
// the Chromium rows alone.
var (
	withFirefox = flag.Bool("firefox", true, "when a Firefox is found ($GASOLINE_FIREFOX, firefox-esr or firefox): time execute_js, a click and a screenshot in it too, with the extension's Firefox build and a daemon of its own, interleaved with the same calls in Chromium (-firefox=false leaves those rows out)")
	firefoxOnly = flag.Bool("firefox-only", false, "measure only the Chromium | Firefox rows (with -stages: Firefox's stages)")
)

// side is one browser of the Chromium | Firefox rows: its name in the
// rows, its daemon and the MCP session that drives it.
type side struct {
	name string
	mc   *gasoline.Client
	d    *gasoline.Daemon
	fox  *firefox.Browser // Firefox's, for its stage marks
}

// firefoxSide starts what the Firefox rows need apart from Chromium's: a
// daemon of its own (a daemon serves one extension; two polling the same
// queue would take each other's commands), headless Firefox with the
// extension's Firefox build (written from the extension package this
// binary was built with, so it is never stale) on page, paired through
// its popup, and an MCP session through gasoline-mcp. Firefox's window
// is window's size (width, height: Chromium's, from chromiumWindow). It returns nil, a
// no-op stop and no error when there is no Firefox. stop stops all of it.
func firefoxSide(ctx context.Context, bins gasoline.Bins, tmp, page string, window [2]int) (_ *side, stop func(), err error) {
	stop = func() {}
	bin, err := firefox.Find()
	if errors.Is(err, firefox.ErrNotFound) {
		logf("no Firefox (%v): the Firefox rows are left out", err)
		return nil, stop, nil
	}
	if err != nil {
		return nil, stop, err
	}
	if err := firefox.CheckVersion(ctx, bin, extension.FirefoxMinVersion); errors.Is(err, firefox.ErrTooOld) {
		logf("%v: the Firefox rows are left out", err)
		return nil, stop, nil
	} else if err != nil {
		return nil, stop, err
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
			stop = func() {}
		}
	}()
	ext := filepath.Join(tmp, "firefox-extension")
	if err := extension.WriteFirefox(ext); err != nil {
		return nil, stop, fmt.Errorf("writing the extension's Firefox build: %w", err)
	}
	d, err := gasoline.StartDaemon(ctx, bins, filepath.Join(tmp, "firefox-state"),
		retained(), "--result-ttl=10m", "--log-level=warn")
	if err != nil {
		return nil, stop, err
	}
	stops = append(stops, func() {
		if err := d.Stop(context.WithoutCancel(ctx)); err != nil {
			logf("stopping Firefox's daemon: %v", err)
		}
	})
	// Firefox's headless window is 1366×768 unless told; Chromium's is
	// 800×600. A screenshot's cost grows with its pixels, so Firefox's
	// window takes Chromium's size (internal/firefox passes the
	// environment on; these variables are headless Firefox's window size).
	os.Setenv("MOZ_HEADLESS_WIDTH", fmt.Sprint(window[0]))
	os.Setenv("MOZ_HEADLESS_HEIGHT", fmt.Sprint(window[1]))
	logf("starting %s with a %d×%d window, as Chromium's", bin, window[0], window[1])
	log := filepath.Join(tmp, "firefox.log")
	b, err := firefox.Start(ctx, firefox.Options{Bin: bin, ProfileDir: filepath.Join(tmp, "firefox-profile"), LogPath: log})
	if err != nil {
		return nil, stop, err
	}
	stops = append(stops, b.Stop)
	if err := b.Install(ctx, ext); err != nil {
		return nil, stop, err
	}
	tabs, err := b.BiDi.Tree(ctx)
	if err != nil || len(tabs) == 0 {
		return nil, stop, fmt.Errorf("listing Firefox's tabs: %v (%d tabs); see %s", err, len(tabs), log)
	}
	if err := b.BiDi.Navigate(ctx, tabs[0].Context, page); err != nil {
		return nil, stop, err
	}
	if err := b.Pair(ctx, d); err != nil {
		return nil, stop, fmt.Errorf("pairing Firefox: %w; see %s", err, log)
	}
	if *stages {
		if err := foxTraceOn(ctx, b); err != nil {
			return nil, stop, err
		}
	}
	mc, err := gasoline.Connect(ctx, d)
	if err != nil {
		return nil, stop, err
	}
	stops = append(stops, func() { mc.Close() })
	return &side{name: "Firefox", mc: mc, d: d, fox: b}, stop, nil
}

// foxCall is one measured call of a side: its command and round trip.
type foxCall struct {
	id  string
	rtt time.Duration
}

// foxAction is one row's call: what the row says it does, and do, which
// makes the call in s (round i) and fails unless its result says done.
type foxAction struct {
	figure string
	do     func(ctx context.Context, s *side, i int) (foxCall, error)
}

// foxActions are the calls of the Chromium | Firefox rows, on the bench
// page ("/", title Bench).
var foxActions = []foxAction{
	{"`interact execute_js` of document.title with wait_ms → inline result", func(ctx context.Context, s *side, i int) (foxCall, error) {
		start := time.Now()
		r, err := s.mc.ExecuteJS(ctx, "document.title", map[string]any{"wait_ms": 10000})
		took := time.Since(start)
		if err != nil {
			return foxCall{}, err
		}
		if js, err := r.JS(); r.Status != "complete" || err != nil || string(js.Value) != `"Bench"` {
			return foxCall{}, fmt.Errorf("%s: execute_js %d: %s, want complete with \"Bench\"", s.name, i, r)
		}
		return foxCall{r.CorrelationID, took}, nil
	}},
	{"`interact click` (role + name, settling) on a button whose handler changes a data attribute, until the result says settled", func(ctx context.Context, s *side, i int) (foxCall, error) {
		start := time.Now()
		r, err := s.mc.Call(ctx, "interact", map[string]any{"action": "click", "role": "button", "name": "Bench button", "wait_ms": 10000})
		took := time.Since(start)
		if err != nil {
			return foxCall{}, err
		}
		var v struct {
			Effects struct {
				Settled bool `json:"settled"`
			} `json:"effects"`
		}
		json.Unmarshal(r.Value, &v)
		if r.Status != "complete" || !v.Effects.Settled {
			return foxCall{}, fmt.Errorf("%s: click %d: %s, want complete and settled", s.name, i, r)
		}
		return foxCall{r.CorrelationID, took}, nil
	}},
}

// foxRows measures foxActions in Chromium and Firefox in turn, in blocks
// of 10 calls as streamRows does, and then fresh screenshots, one of each
// side a round, each side first in turn, so that the machine's load
// weighs on both alike, and returns a row per action and side, each
// action's sides together. Each row says how much of its p50 the
// extension took (the daemon's delivered → result applied), the rest
// being gasoline-mcp's and the daemon's.
func foxRows(ctx context.Context, sides []*side, base string) ([]truthRow, error) {
	for _, s := range sides {
		r, err := s.mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": base + "/", "wait_ms": 20000})
		if err != nil || r.Status != "complete" {
			return nil, fmt.Errorf("%s: navigate to the bench page: %s %v", s.name, r, err)
		}
	}
	type measured struct {
		figures []string // per side
		calls   [][]foxCall
	}
	var all []measured
	for _, a := range foxActions {
		logf("%d warm-up and %d measured calls in %d browsers, in turn in blocks of 10: %.40s…", *warmup, *n, len(sides), a.figure)
		m := measured{calls: make([][]foxCall, len(sides))}
		// In blocks, a call seldom follows the other browser's at once,
		// whose tail (its next poll, capture flushes) would weigh on it.
		for done := -*warmup; done < *n; done += 10 {
			for j, s := range sides {
				for k := range min(10, *n-done) {
					c, err := a.do(ctx, s, *warmup+done+k)
					if err != nil {
						return nil, err
					}
					if done+k >= 0 {
						m.calls[j] = append(m.calls[j], c)
					}
				}
			}
		}
		for range sides {
			m.figures = append(m.figures, a.figure)
		}
		all = append(all, m)
	}
	calls, figures, err := foxShots(ctx, sides)
	if err != nil {
		return nil, err
	}
	all = append(all, measured{figures, calls})

	var rows []truthRow
	for _, m := range all {
		for j, s := range sides {
			cs, err := s.d.Commands(ctx)
			if err != nil {
				return nil, err
			}
			var rtt, ext []time.Duration
			for _, c := range m.calls[j] {
				rtt = append(rtt, c.rtt)
				got, ok := cs.Find(c.id)
				if !ok || got.DeliveredAt == nil || got.FinishedAt == nil {
					return nil, fmt.Errorf("%s: GET /commands lacks the times of %s", s.name, c.id)
				}
				ext = append(ext, got.FinishedAt.Sub(*got.DeliveredAt))
			}
			rows = append(rows, truthRow{fmt.Sprintf("real headless %s, Chromium and Firefox in turn: %s; in the extension (delivered → result applied) p50 %s (n=%d)",
				s.name, m.figures[j], fmtDur(pct(ext, 50)), len(rtt)), "(reference)", rtt})
		}
	}
	return rows, nil
}

// foxShots times fresh viewport screenshots as screenshotRows does (the
// heading changed untimed first, 0.3 s to paint, ≥ 0.6 s after the side's
// last capture: Chrome allows 2 a second), in each side in turn (each
// first in turn), and
// returns their calls and figures per side.
func foxShots(ctx context.Context, sides []*side) ([][]foxCall, []string, error) {
	rounds := min(*n, 30)
	logf("%d warm-up and %d measured screenshot rounds in turn in %d browsers", *warmup, rounds, len(sides))
	calls := make([][]foxCall, len(sides))
	last := make([]time.Time, len(sides))
	shots := make([]shotView, len(sides))
	for i := range *warmup + rounds {
		js := fmt.Sprintf("document.querySelector('h1').textContent = 'Bench %d'", i)
		for _, s := range sides {
			if r, err := s.mc.ExecuteJS(ctx, js, map[string]any{"wait_ms": 10000}); err != nil || r.Status != "complete" {
				return nil, nil, fmt.Errorf("%s: changing the page: %s %v", s.name, r, err)
			}
		}
		time.Sleep(300 * time.Millisecond) // lets the change paint, as screenshotRows does
		for k := range sides {
			j := (i + k) % len(sides) // each side first in turn
			s := sides[j]
			time.Sleep(time.Until(last[j].Add(600 * time.Millisecond)))
			last[j] = time.Now()
			start := time.Now()
			r, err := s.mc.Call(ctx, "interact", map[string]any{"action": "screenshot", "wait_ms": 10000})
			took := time.Since(start)
			if err != nil {
				return nil, nil, err
			}
			json.Unmarshal(r.Raw, &shots[j])
			if r.Status != "complete" || len(r.Images) != 1 || shots[j].Result.Reused {
				return nil, nil, fmt.Errorf("%s: screenshot %d of a changed page: %s, want complete with one fresh image", s.name, i, r)
			}
			if i >= *warmup {
				calls[j] = append(calls[j], foxCall{r.CorrelationID, took})
			}
		}
	}
	var figures []string
	for _, v := range shots {
		figures = append(figures, fmt.Sprintf("`interact screenshot` of the viewport, fresh capture (page changed before, ≥ 0.6 s after the last capture) → image block (%s captured, %d bytes)",
			v.Result.Captured, v.Result.Bytes))
	}
	return calls, figures, nil
}

// printFoxRows prints rows (Chromium's and Firefox's of each action in
// turn) with Firefox's p50 as a multiple of Chromium's in the × baseline
// column.
func printFoxRows(rows []truthRow, sides int) {
	for i, r := range rows {
		ratio := "1.00×"
		if k := i % sides; k > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(pct(r.samples, 50))/float64(pct(rows[i-k].samples, 50)))
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.figure, fmtDur(pct(r.samples, 50)), fmtDur(pct(r.samples, 99)), ratio, r.target)
	}
}

// inExtension evaluates expr in the extension's popup page, opened in a
// window of its own behind the bench page's (a tab in the bench page's
// window would hide it), with bg bound to the extension's background page
// (Firefox's event page, where Chrome has its worker), and closes the
// window. What expr leaves in bg must be made by bg's own constructors: an
// object of the popup's realm is dead once its window closes.
func inExtension(ctx context.Context, b *firefox.Browser, expr string, out any) error {
	var w struct {
		Context string `json:"context"`
	}
	if err := b.BiDi.Call(ctx, "browsingContext.create", map[string]any{"type": "window", "background": true}, &w); err != nil {
		return err
	}
	defer b.BiDi.CloseTab(context.WithoutCancel(ctx), w.Context)
	if err := b.BiDi.Navigate(ctx, w.Context, firefox.PopupURL); err != nil {
		return err
	}
	return b.BiDi.Evaluate(ctx, w.Context, "chrome.runtime.getBackgroundPage().then((bg) => "+expr+")", out)
}

// foxTraceOn turns the stage marks on in Firefox's background page
// (extension/trace.js).
func foxTraceOn(ctx context.Context, b *firefox.Browser) error {
	if err := inExtension(ctx, b, "{ bg.gasolineTrace = new bg.Array(); return true }", nil); err != nil {
		return fmt.Errorf("turning the stage marks on in Firefox's background page: %w", err)
	}
	return nil
}

// foxTrace reads the stage marks of Firefox's background page.
func foxTrace(b *firefox.Browser) func(context.Context) (map[string]map[string]float64, error) {
	return func(ctx context.Context) (map[string]map[string]float64, error) {
		var raw string
		if err := inExtension(ctx, b, "bg.JSON.stringify({ origin: bg.performance.timeOrigin, marks: bg.gasolineTrace || null })", &raw); err != nil {
			return nil, fmt.Errorf("reading the stage marks of Firefox's background page: %w", err)
		}
		return parseTrace(raw)
	}
}

// foxCallCosts times the browser calls of a screenshot in Firefox's
// extension (callCosts), in the tab that shows base.
func foxCallCosts(b *firefox.Browser) func(ctx context.Context, base string, rounds int) (callTimes, error) {
	return func(ctx context.Context, base string, rounds int) (callTimes, error) {
		var ms callTimes
		err := inExtension(ctx, b, "("+fmt.Sprintf(callCosts, base, rounds)+")", &ms)
		return ms, err
	}
}

// foxOnlyRun is -stages and -firefox-only: with -stages, Chromium's stages
// (unless -firefox-only) and Firefox's (unless -firefox=false or there is
// no Firefox); without, the Chromium | Firefox rows alone.
func foxOnlyRun(ctx context.Context, mc *gasoline.Client, d *gasoline.Daemon, bins gasoline.Bins, tmp, base, wsURL string) error {
	if *stages && !*firefoxOnly {
		trace := func(ctx context.Context) (map[string]map[string]float64, error) { return readTrace(ctx, wsURL) }
		if err := stageRun(ctx, "Chromium", base, mc, d, trace, chromiumCallCosts(wsURL)); err != nil {
			return err
		}
	}
	if !*withFirefox && !*firefoxOnly {
		return nil
	}
	window, err := chromiumWindow(ctx, mc)
	if err != nil {
		return err
	}
	fox, stop, err := firefoxSide(ctx, bins, tmp, base+"/", window)
	defer stop()
	if err != nil {
		return err
	}
	if fox == nil {
		if *firefoxOnly {
			return fmt.Errorf("-firefox-only: %w", firefox.ErrNotFound)
		}
		return nil
	}
	if *stages {
		return stageRun(ctx, "Firefox", base, fox.mc, fox.d, foxTrace(fox.fox), foxCallCosts(fox.fox))
	}
	rows, err := foxRows(ctx, []*side{{name: "Chromium", mc: mc, d: d}, fox}, base)
	if err != nil {
		return err
	}
	if *header {
		fmt.Println("| figure | p50 | p99 | × baseline p50 | target |")
		fmt.Println("|---|---|---|---|---|")
	}
	printFoxRows(rows, 2)
	return nil
}

// chromiumWindow is the size of the window of Chromium's agent tab
// (outerWidth, outerHeight), read through mc.
func chromiumWindow(ctx context.Context, mc *gasoline.Client) ([2]int, error) {
	var size [2]int
	r, err := mc.ExecuteJS(ctx, "[outerWidth, outerHeight]", map[string]any{"wait_ms": 10000})
	if err != nil {
		return size, err
	}
	js, err := r.JS()
	if err == nil {
		err = json.Unmarshal(js.Value, &size)
	}
	if r.Status != "complete" || err != nil || size[0] < 100 || size[1] < 100 {
		return size, fmt.Errorf("reading the size of Chromium's window: %s %v", r, err)
	}
	return size, nil
}
