//go:build unix

package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/v8prof"
)

var workerProfile = flag.Bool("worker-profile", false, "instead of the table: sample the extension's service worker with V8's profiler during the measured execute_js and settled clicks, and print where its JavaScript time goes per command, by function (issue 33; the profiler slows what it samples: the table says how much, this says where)")

// workerProfileInterval is the sampling interval in -worker-profile mode.
const workerProfileInterval = 100 * time.Microsecond

// workerProfileRun makes *warmup and then *n execute_js calls and as many
// settled clicks, the measured ones under the V8 profiler of the
// extension's service worker (a DevTools session on it, opened over
// wsURL), and prints each kind's profile.
func workerProfileRun(ctx context.Context, mc *gasoline.Client, wsURL string) error {
	conn, err := cdp.Dial(ctx, wsURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	w, err := chromium.WaitForWorker(ctx, conn, 20*time.Second)
	if err != nil {
		return err
	}
	s, err := conn.Attach(ctx, w.TargetID)
	if err != nil {
		return err
	}
	kinds := []struct {
		name, tool string
		args       map[string]any
	}{
		{"`interact execute_js` of document.title", "interact", map[string]any{"action": "execute_js", "script": "document.title", "wait_ms": 10000}},
		{"`interact click` (role + name, settled)", "interact", map[string]any{"action": "click", "role": "button", "name": "Bench button", "wait_ms": 10000}},
	}
	fmt.Printf("## browserbench -worker-profile: the extension's service worker, sampled every %v\n", workerProfileInterval)
	for _, k := range kinds {
		for i := range *warmup {
			if r, err := mc.Call(ctx, k.tool, k.args); err != nil || r.Status != "complete" {
				return fmt.Errorf("%s warm-up %d: %v %v", k.name, i, r, err)
			}
		}
		if err := v8prof.Start(ctx, s, workerProfileInterval); err != nil {
			return err
		}
		start := time.Now()
		for i := range *n {
			if r, err := mc.Call(ctx, k.tool, k.args); err != nil || r.Status != "complete" {
				return fmt.Errorf("%s %d: %v %v", k.name, i, r, err)
			}
		}
		wall := time.Since(start)
		p, err := v8prof.Stop(ctx, s)
		if err != nil {
			return err
		}
		printWorkerProfile(k.name, wall, p.Charge(workerLabel, "(builtin)"))
	}
	return nil
}

// workerLabel names a frame of the worker's own modules by file, function
// and line; V8's root buckets by themselves; a builtin or a function
// without a script is left to its caller.
func workerLabel(f v8prof.CallFrame) string {
	if rest, ok := strings.CutPrefix(f.URL, "chrome-extension://"); ok {
		_, file, _ := strings.Cut(rest, "/")
		name := f.FunctionName
		if name == "" {
			name = "(top level)"
		}
		return fmt.Sprintf("%s %s:%d", file, name, f.LineNumber+1)
	}
	if f.URL == "" && strings.HasPrefix(f.FunctionName, "(") && f.FunctionName != "(root)" {
		return f.FunctionName
	}
	return ""
}

// printWorkerProfile prints the time per command of each label of got,
// the largest first, and the worker's busy share of the wall time.
func printWorkerProfile(name string, wall time.Duration, got map[string]time.Duration) {
	per := func(d time.Duration) string { return fmtDur(d / time.Duration(*n)) }
	var busy time.Duration
	labels := make([]string, 0, len(got))
	for l, d := range got {
		labels = append(labels, l)
		if l != "(idle)" {
			busy += d
		}
	}
	slices.SortFunc(labels, func(a, b string) int { return int(got[b] - got[a]) })
	fmt.Printf("\n### %s, n=%d: %s of wall time per command, the worker busy %s of it\n\n", name, *n, per(wall), per(busy))
	fmt.Println("| self time of | per command |")
	fmt.Println("|---|---|")
	for i, l := range labels {
		if i >= 30 || got[l]/time.Duration(*n) < 10*time.Microsecond {
			break
		}
		fmt.Printf("| %s | %s |\n", l, per(got[l]))
	}
}
