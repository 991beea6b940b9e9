//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var (
	consoleRuns   = flag.Int("console-runs", 15, "measured runs of the console.log loop per browser (0 skips the console rows)")
	consoleCalls  = flag.Int("console-calls", 10000, "console.log calls per run")
	consoleRounds = flag.Int("console-rounds", 3, "browser starts per side, alternating without and with the extension")
)

const consoleWarmup = 3

// consolePage runs the bench by itself once loaded, with no DevTools
// session attached (an attached one makes every console call store its
// message for the inspector, and would dominate the figure): warm-up plus
// measured runs of n console.log calls (a string, a number and a small
// object each, as apps log), 300 ms apart so the capture relay and the worker
// take each run's records before the next, then it posts the page's times
// in ms to /result.
const consolePage = `<!doctype html><title>Console bench</title><script>
const q = new URLSearchParams(location.search);
const n = +q.get("n"), runs = +q.get("runs");
const bench = () => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) console.log("bench line", i, { i, ok: true });
  return performance.now() - t0;
};
(async () => {
  await new Promise((r) => setTimeout(r, 1000));
  const times = [];
  for (let i = 0; i < runs; i++) {
    times.push(bench());
    await new Promise((r) => setTimeout(r, 300));
  }
  fetch("/result", { method: "POST", body: JSON.stringify(times) });
})();
</script>`

// consoleRows times *consoleCalls console.log calls in a page of a browser
// without the extension, then of one with it loaded and paired with d (its
// capture hooks recording every call), and prints the two rows with their
// ratio. Both browsers run without --enable-logging, as a user's does.
func consoleRows(ctx context.Context, bin, root, tmp string, d *gasoline.Daemon) error {
	if *consoleRuns < 1 {
		return nil
	}
	results := make(chan []float64, 1)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/result" {
			var times []float64
			if err := json.NewDecoder(r.Body).Decode(&times); err == nil {
				select {
				case results <- times:
				default:
				}
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, consolePage)
	}))
	defer site.Close()
	pageURL := fmt.Sprintf("%s/?n=%d&runs=%d", site.URL, *consoleCalls, consoleWarmup+*consoleRuns)
	logf("%d console.log calls, %d warm-up and %d measured runs per browser, %d rounds alternating without and with the extension",
		*consoleCalls, consoleWarmup, *consoleRuns, *consoleRounds)
	// Alternating spreads the machine's load changes over both sides.
	var without, with []time.Duration
	for round := range max(1, *consoleRounds) {
		w, err := consoleTimes(ctx, bin, "", filepath.Join(tmp, fmt.Sprintf("console-without-%d", round)), pageURL, nil, results)
		if err != nil {
			return fmt.Errorf("without the extension: %w", err)
		}
		without = append(without, w...)
		w, err = consoleTimes(ctx, bin, filepath.Join(root, "extension"), filepath.Join(tmp, fmt.Sprintf("console-with-%d", round)), pageURL, d, results)
		if err != nil {
			return fmt.Errorf("with the extension: %w", err)
		}
		with = append(with, w...)
	}
	base := pct(without, 50)
	ratio := float64(pct(with, 50)) / float64(base)
	fmt.Printf("| real headless Chromium: %d `console.log` calls in a page, no extension (n=%d runs) | %s | %s | 1.00× | (baseline) |\n",
		*consoleCalls, len(without), fmtDur(base), fmtDur(pct(without, 99)))
	fmt.Printf("| real headless Chromium: %d `console.log` calls in a page, extension loaded and paired (capture on) | %s | %s | %.2f× | ≤ 1.5× |\n",
		*consoleCalls, fmtDur(pct(with, 50)), fmtDur(pct(with, 99)), ratio)
	return nil
}

// consoleTimes starts a quiet browser (with the extension at extDir and
// paired with d, or without any), opens the bench page in a tab no DevTools
// session attaches to, and returns the measured runs the page reports.
func consoleTimes(ctx context.Context, bin, extDir, profile, pageURL string, d *gasoline.Daemon, results <-chan []float64) ([]time.Duration, error) {
	browser, err := chromium.Start(ctx, chromium.Options{
		Bin: bin, UserDataDir: profile, ExtensionDir: extDir, LogPath: profile + ".log", Quiet: true,
	})
	if err != nil {
		return nil, err
	}
	defer browser.Stop()
	conn, err := cdp.Dial(ctx, browser.WebSocketURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if extDir != "" {
		if _, err := chromium.WaitForWorker(ctx, conn, 20*time.Second); err != nil {
			return nil, err
		}
		if err := chromium.PairDaemon(ctx, conn, d); err != nil {
			return nil, err
		}
	}
	if _, err := conn.CreateTarget(ctx, pageURL); err != nil {
		return nil, err
	}
	select {
	case times := <-results:
		if len(times) != consoleWarmup+*consoleRuns {
			return nil, fmt.Errorf("the page reported %d runs, want %d", len(times), consoleWarmup+*consoleRuns)
		}
		var out []time.Duration
		for _, ms := range times[consoleWarmup:] {
			out = append(out, time.Duration(ms*float64(time.Millisecond)))
		}
		return out, nil
	case <-time.After(5 * time.Minute):
		return nil, errors.New("the bench page reported no result within 5 minutes")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
