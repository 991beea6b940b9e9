//go:build unix

// Command browserbench measures the real-browser rows of the bench table
// (make bench; the other rows are scripts/bench's): it
// builds and starts the gasoline daemon, starts headless Chromium with the
// extension, pairs it through the popup, serves a page on 127.0.0.1, and
// times interact execute_js through gasoline-mcp with the official MCP SDK
// client. It prints Markdown rows for the repository's bench table on
// stdout (progress goes to stderr) and stops everything it started.
//
// It then times 10 000 console.log calls in a page with and without the
// extension (console.go).
//
// With -playwright and -devtools (peers.go) the same clicks go through
// playwright-mcp and chrome-devtools-mcp too, interleaved with gasoline's.
//
//	cd test/e2e && go run ./cmd/browserbench [-n 200] [-warmup 20] [-console-runs 15] [-playwright PATH] [-devtools PATH]
//
// -stream-only times clicks on a quiet page and on one that never goes
// quiet, interleaved, and navigate to the latter (stream.go); -changed-only
// measures effects.changed on TodoMVC and Python's docs (changed.go);
// -stages prints where the time of execute_js, a click and a screenshot
// goes, stage by stage, in Chromium and in Firefox (stages.go).
//
// With a Firefox found (-firefox, on by default), execute_js, a click and
// a screenshot are timed in Firefox too, with the extension's Firefox
// build, in turn with the same calls in Chromium, and printed beside them
// (firefox.go); -firefox-only prints only those rows.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var (
	n      = flag.Int("n", 200, "measured commands")
	cold   = flag.Int("cold", 5, "first calls timed with the daemon down (0 skips the cold row)")
	warmup = flag.Int("warmup", 20, "unmeasured commands first")
	header = flag.Bool("header", false, "print the table header before the rows")
)

func main() {
	flag.Parse()
	// SIGPIPE: a reader of the table that stopped early (| head) stops
	// the run as Ctrl-C does, so its browsers and daemons are stopped too
	// (otherwise the first write after it kills the process and leaves them).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "browserbench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "browserbench: "+format+"\n", args...)
}

func run(ctx context.Context) (err error) {
	if *n < 1 || *warmup < 0 {
		return errors.New("-n must be at least 1 and -warmup at least 0")
	}
	bin, err := chromium.Find()
	if err != nil {
		return err
	}
	root, err := gasoline.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gasoline-browserbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	logf("building gasoline and gasoline-mcp")
	bins, err := gasoline.Build(ctx, root, tmp)
	if err != nil {
		return err
	}
	d, err := gasoline.StartDaemon(ctx, bins, filepath.Join(tmp, "state"),
		retained(), "--result-ttl=10m", "--log-level=warn")
	if err != nil {
		return err
	}
	defer func() {
		if serr := d.Stop(context.WithoutCancel(ctx)); serr != nil {
			logf("stopping the daemon: %v", serr)
		}
	}()

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if truthPage(w, r) {
			return
		}
		fmt.Fprint(w, "<!doctype html><title>Bench</title><h1>Bench</h1><button onclick=\"this.dataset.n=(+this.dataset.n||0)+1\">Bench button</button>")
		if r.URL.Path == "/list" {
			fmt.Fprint(w, "<ul>")
			for i := range 100 { // 300 elements: li, a, span
				fmt.Fprintf(w, `<li><a href="/item/%d">Item %d</a> <span>about item %d</span></li>`, i, i, i)
			}
			fmt.Fprint(w, "</ul>")
		}
	}))
	defer site.Close()

	logf("starting %s", bin)
	profile := filepath.Join(tmp, "profile")
	browser, err := chromium.Start(ctx, chromium.Options{
		Bin: bin, UserDataDir: profile, ExtensionDir: filepath.Join(root, "extension"),
		URLs: []string{site.URL + "/"}, LogPath: filepath.Join(tmp, "chromium.log"),
	})
	if err != nil {
		return err
	}
	defer browser.Stop()
	conn, err := cdp.Dial(ctx, browser.WebSocketURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := chromium.WaitForWorker(ctx, conn, 20*time.Second); err != nil {
		return err
	}
	if err := chromium.PairDaemon(ctx, conn, d); err != nil {
		return err
	}
	if *stages {
		if err := traceOn(ctx, conn); err != nil {
			return err
		}
	}
	// No DevTools session stays open while measuring.
	conn.Close()

	mc, err := gasoline.Connect(ctx, d)
	if err != nil {
		return err
	}
	defer mc.Close()

	if *workerProfile {
		return workerProfileRun(ctx, mc, browser.WebSocketURL)
	}

	if *streamOnly || *changedOnly {
		measure := streamRows
		if *changedOnly {
			measure = changedRows
		}
		rows, err := measure(ctx, mc)
		if err != nil {
			return err
		}
		for _, r := range rows {
			fmt.Printf("| %s | %s | %s | | %s |\n", r.figure, fmtDur(pct(r.samples, 50)), fmtDur(pct(r.samples, 99)), r.target)
		}
		return nil
	}

	if *stages || *firefoxOnly {
		return foxOnlyRun(ctx, mc, d, bins, tmp, site.URL, browser.WebSocketURL)
	}

	if *floorOnly {
		return floorRun(ctx, mc, bin, site.URL)
	}

	if *shotsOnly {
		shotRows, err := screenshotRows(ctx, mc, d, bin, site.URL)
		if err != nil {
			return err
		}
		if *header {
			fmt.Println("| figure | p50 | p99 | × baseline p50 | target |")
			fmt.Println("|---|---|---|---|---|")
		}
		for _, sr := range shotRows {
			fmt.Printf("| %s | %s | %s | | %s |\n", sr.figure, fmtDur(pct(sr.samples, 50)), fmtDur(pct(sr.samples, 99)), sr.target)
		}
		return nil
	}

	// The script returns the page's wall clock in ms when it starts running.
	const script = "performance.timeOrigin + performance.now()"
	type sample struct {
		id     string
		rtt    time.Duration
		inPage float64 // page clock, Unix ms
	}
	samples := make([]sample, 0, *n)
	logf("%d warm-up and %d measured execute_js calls", *warmup, *n)
	for i := range *warmup + *n {
		start := time.Now()
		r, err := mc.ExecuteJS(ctx, script, map[string]any{"wait_ms": 10000})
		rtt := time.Since(start)
		if err != nil {
			return err
		}
		if r.Status != "complete" {
			return fmt.Errorf("execute_js %d: %s, want complete", i, r)
		}
		js, err := r.JS()
		if err != nil {
			return err
		}
		var inPage float64
		if err := json.Unmarshal(js.Value, &inPage); err != nil {
			return fmt.Errorf("execute_js %d: value %s: %w", i, js.Value, err)
		}
		if i >= *warmup {
			samples = append(samples, sample{id: r.CorrelationID, rtt: rtt, inPage: inPage})
		}
	}

	cs, err := d.Commands(ctx)
	if err != nil {
		return err
	}
	var rtt, dispatch, toPage []time.Duration
	for _, s := range samples {
		c, ok := cs.Find(s.id)
		if !ok || c.DeliveredAt == nil {
			return fmt.Errorf("GET /commands lacks the delivery time of %s", s.id)
		}
		rtt = append(rtt, s.rtt)
		dispatch = append(dispatch, c.DeliveredAt.Sub(c.CreatedAt))
		created := float64(c.CreatedAt.UnixNano()) / 1e6
		toPage = append(toPage, time.Duration((s.inPage-created)*float64(time.Millisecond)))
	}

	if *header {
		fmt.Println("| figure | p50 | p99 | × baseline p50 | target |")
		fmt.Println("|---|---|---|---|---|")
	}
	row := func(figure string, s []time.Duration, target string) {
		fmt.Printf("| %s | %s | %s | | %s |\n", figure, fmtDur(pct(s, 50)), fmtDur(pct(s, 99)), target)
	}
	clicks, err := timeCalls(ctx, mc, "interact", map[string]any{"action": "click", "role": "button", "name": "Bench button", "wait_ms": 10000})
	if err != nil {
		return err
	}
	quiet, err := timeCalls(ctx, mc, "interact", map[string]any{"action": "click", "role": "button", "name": "Bench button", "settle_ms": 0, "wait_ms": 10000})
	if err != nil {
		return err
	}
	truth, err := truthRows(ctx, mc, site.URL)
	if err != nil {
		return err
	}
	peerClicks, err := peerRows(ctx, mc, bin, site.URL)
	if err != nil {
		return err
	}
	if r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": site.URL + "/list", "wait_ms": 20000}); err != nil || r.Status != "complete" {
		return fmt.Errorf("navigate to the list: %s %v", r, err)
	}
	doms, err := timeCalls(ctx, mc, "analyze", map[string]any{"what": "dom", "wait_ms": 10000})
	if err != nil {
		return err
	}

	shotRows, err := screenshotRows(ctx, mc, d, bin, site.URL)
	if err != nil {
		return err
	}

	row(fmt.Sprintf("real headless Chromium: `interact execute_js` with wait_ms → inline result (SDK tools/call through gasoline-mcp, n=%d)", *n), rtt, "p50 ≤ 30 ms")
	row(fmt.Sprintf("real headless Chromium: `interact click` (role + name, auto-wait) with wait_ms → inline result (n=%d)", *n), clicks, "p50 ≤ 30 ms")
	row(fmt.Sprintf("real headless Chromium: `interact click` as above with settle_ms 0 (reports at once; n=%d)", *n), quiet, "(reference)")
	for _, tr := range append(truth, peerClicks...) {
		row(tr.figure, tr.samples, tr.target)
	}
	row(fmt.Sprintf("real headless Chromium: `analyze dom` of a 300-element page with wait_ms → inline outline (n=%d)", *n), doms, "p50 ≤ 50 ms")
	for _, sr := range shotRows {
		row(sr.figure, sr.samples, sr.target)
	}
	if *withFirefox {
		window, err := chromiumWindow(ctx, mc)
		if err != nil {
			return err
		}
		fox, stopFox, err := firefoxSide(ctx, bins, tmp, site.URL+"/", window)
		if err != nil {
			return err
		}
		if fox != nil {
			foxed, err := foxRows(ctx, []*side{{name: "Chromium", mc: mc, d: d}, fox}, site.URL)
			stopFox()
			if err != nil {
				return err
			}
			printFoxRows(foxed, 2)
		}
	}
	row("real headless Chromium: dispatch, queued → the extension's held long-poll takes it (daemon delivered_at − created_at, before the HTTP response is written)", dispatch, "p50 ≤ 2 ms")
	row("real headless Chromium: queued → script running in the page (page clock − daemon created_at)", toPage, "(reference)")
	if err := consoleRows(ctx, bin, root, tmp, d); err != nil {
		return err
	}
	colds, err := timeCold(ctx, mc, d, *cold)
	if err != nil || len(colds) == 0 {
		return err
	}
	row(fmt.Sprintf("real headless Chromium: first `interact execute_js` with the daemon down → inline result (gasoline-mcp starts the daemon, the extension finds it; n=%d)", len(colds)), colds, "(issue 17: was 2.2–2.4 s)")
	return nil
}

// retained is the daemon's --max-retained flag: every measured command
// must still be in GET /commands at the end (a screenshot round makes
// three; -stages makes four a round: execute_js, click, a page change
// and a screenshot).
func retained() string {
	return fmt.Sprintf("--max-retained=%d", 4*(*n+*warmup)+10)
}

// timeCold times rounds first calls made with the daemon stopped: each
// round stops it, lets the extension see it gone, and times execute_js
// through the connected gasoline-mcp, which starts a daemon again on the
// same port and state dir (so the extension's pairing still holds).
func timeCold(ctx context.Context, mc *gasoline.Client, d *gasoline.Daemon, rounds int) ([]time.Duration, error) {
	var out []time.Duration
	for i := range rounds {
		if err := d.Stop(ctx); err != nil {
			return nil, err
		}
		// The extension's held poll fails at once; give it a moment to be
		// in its reconnect wait, as after a real stop.
		time.Sleep(time.Second)
		start := time.Now()
		r, err := mc.ExecuteJS(ctx, "1 + 1", map[string]any{"wait_ms": 10000})
		took := time.Since(start)
		if err != nil {
			return nil, err
		}
		if r.Status != "complete" {
			return nil, fmt.Errorf("cold execute_js %d: %s, want complete", i, r)
		}
		out = append(out, took)
	}
	return out, nil
}

// timeCalls makes *warmup unmeasured and *n measured calls of tool with
// args, each of which must complete inline, and returns the measured
// round trips.
func timeCalls(ctx context.Context, mc *gasoline.Client, tool string, args map[string]any) ([]time.Duration, error) {
	logf("%d warm-up and %d measured %s %v calls", *warmup, *n, tool, args["action"])
	var out []time.Duration
	for i := range *warmup + *n {
		start := time.Now()
		r, err := mc.Call(ctx, tool, args)
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		if r.Status != "complete" {
			return nil, fmt.Errorf("%s %d: %s, want complete", tool, i, r)
		}
		if i >= *warmup {
			out = append(out, d)
		}
	}
	return out, nil
}

// pct is the nearest-rank percentile, as in scripts/bench.
func pct(s []time.Duration, p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	i := (len(c)*p + 99) / 100
	return c[max(0, min(len(c)-1, i-1))]
}

func fmtDur(d time.Duration) string {
	if d < time.Millisecond && d > -time.Millisecond {
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
