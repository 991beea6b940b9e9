//go:build unix

package main

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// printTable prints one row per page and, for the iframe pages, the added
// main-thread time per extra frame.
func printTable(list []*page, version, load0, load1 string) {
	fmt.Printf("## %s\n\n", title())
	fmt.Printf("%s, headless, %d CPUs (load average %s at the start, %s at the end). n=%d loads per page per browser after %d warm-up, "+
		"interleaved; %s. Main thread: Performance.getMetrics TaskDuration of the new document up to %v after "+
		"its load event, in the thread's CPU time (threadTicks) and in wall time (DevTools' default, inflated when the machine is busy). "+
		"Load: navigation start → load event end. \"added\" is with − without of each percentile; \"noise\" is the same difference between two identical "+
		"browsers without extensions (the second loads every page too, interleaved: -noise), so an added figure within it is no cost the run can show. "+
		"Targets (issue 18): ≤ 3 ms p50 main-thread time added per page, ≤ 1 ms per extra frame, load time within noise.\n\n",
		version, runtime.NumCPU(), load0, load1, *n, *warmup, mode(), *settle)
	fmt.Println("| page | main-thread CPU, no extension p50 / p99 | with extension p50 / p99 | added p50 / p99 | noise p50 / p99 | main-thread wall p50: no extension / with / added / noise | script CPU added p50 / noise | load, no extension p50 / p99 | with extension p50 / p99 | load added p50 / noise |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	var base, many *page
	for _, p := range list {
		cw, cx := field(p.without, cpuOf), field(p.with, cpuOf)
		ww, wx := field(p.without, wallOf), field(p.with, wallOf)
		sw, sx := field(p.without, scriptOf), field(p.with, scriptOf)
		lw, lx := field(p.without, loadOf), field(p.with, loadOf)
		fmt.Printf("| %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s / %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |\n", p.name,
			fmtMS(pct(cw, 50)), fmtMS(pct(cw, 99)), fmtMS(pct(cx, 50)), fmtMS(pct(cx, 99)),
			fmtMS(pct(cx, 50)-pct(cw, 50)), fmtMS(pct(cx, 99)-pct(cw, 99)),
			noiseOf(p, cpuOf, 50), noiseOf(p, cpuOf, 99),
			fmtMS(pct(ww, 50)), fmtMS(pct(wx, 50)), fmtMS(pct(wx, 50)-pct(ww, 50)), noiseOf(p, wallOf, 50),
			fmtMS(pct(sx, 50)-pct(sw, 50)), noiseOf(p, scriptOf, 50),
			fmtMS(pct(lw, 50)), fmtMS(pct(lw, 99)), fmtMS(pct(lx, 50)), fmtMS(pct(lx, 99)),
			fmtMS(pct(lx, 50)-pct(lw, 50)), noiseOf(p, loadOf, 50))
		switch {
		case p.path == "/frames?n=0":
			base = p
		case p.frames > 0:
			many = p
		}
	}
	fmt.Println("\nWhere the load time goes, p50 from navigation start, no extension → with (added): the document's bytes arrived (responseEnd); " +
		"parsed (DOMContentLoaded start: document_start scripts delay it); subresources done (load event start: document_end scripts and DOMContentLoaded handlers delay it); load event end.")
	fmt.Println()
	fmt.Println("| page | responseEnd | DOMContentLoaded start | load event start | load event end |")
	fmt.Println("|---|---|---|---|---|")
	for _, p := range list {
		cell := func(f func(sample) time.Duration) string {
			w, x := pct(field(p.without, f), 50), pct(field(p.with, f), 50)
			return fmt.Sprintf("%s → %s (%s)", fmtMS(w), fmtMS(x), fmtMS(x-w))
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", p.name, cell(responseOf), cell(dclOf), cell(loadAtOf), cell(loadOf))
	}
	if base != nil && many != nil {
		added := func(p *page, f func(sample) time.Duration, q int) time.Duration {
			return pct(field(p.with, f), q) - pct(field(p.without, f), q)
		}
		perFrame := func(f func(sample) time.Duration, q int) time.Duration {
			return (added(many, f, q) - added(base, f, q)) / time.Duration(many.frames)
		}
		fmt.Printf("\nAdded per extra frame ((%s − %s) / %d): main-thread CPU p50 %s, p99 %s; wall p50 %s; load p50 %s.\n",
			many.name, base.name, many.frames,
			fmtMS(perFrame(cpuOf, 50)), fmtMS(perFrame(cpuOf, 99)), fmtMS(perFrame(wallOf, 50)), fmtMS(perFrame(loadOf, 50)))
		if len(many.twin) > 0 && len(base.twin) > 0 {
			twin := func(f func(sample) time.Duration, q int) time.Duration {
				d := func(p *page) time.Duration { return pct(field(p.twin, f), q) - pct(field(p.without, f), q) }
				return (d(many) - d(base)) / time.Duration(many.frames)
			}
			fmt.Printf("Noise per extra frame (the same, second browser without extensions − first): main-thread CPU p50 %s, p99 %s; wall p50 %s; load p50 %s.\n",
				fmtMS(twin(cpuOf, 50)), fmtMS(twin(cpuOf, 99)), fmtMS(twin(wallOf, 50)), fmtMS(twin(loadOf, 50)))
		}
	}
	printFloor(list)
}

// printFloor prints, for each page, what the floor extension (-floor)
// adds and what the extension adds, p50 and p99, and the difference: the
// extension's own part, beyond what Chrome costs any extension that asks
// for what it asks. Nothing without -floor.
func printFloor(list []*page) {
	if len(list) == 0 || len(list[0].floor) == 0 {
		return
	}
	fmt.Println("\nThe floor (-floor): a browser with an extension that registers the same document_start content scripts, " +
		"each a lone \";\", and the same webRequest listeners, each empty (floor.go), loads every page too, interleaved. " +
		"\"floor adds\" is floor − no extension; \"own\" is with extension − floor: the extension's part beyond Chrome's cost.")
	fmt.Println()
	fmt.Println("| page | main-thread CPU: floor adds p50 / p99 | extension adds p50 / p99 | own p50 / p99 | script CPU: floor adds / own p50 | load: floor adds / own p50 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, p := range list {
		d := func(a, b []sample, f func(sample) time.Duration, q int) string {
			return fmtMS(pct(field(a, f), q) - pct(field(b, f), q))
		}
		fmt.Printf("| %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |\n", p.name,
			d(p.floor, p.without, cpuOf, 50), d(p.floor, p.without, cpuOf, 99),
			d(p.with, p.without, cpuOf, 50), d(p.with, p.without, cpuOf, 99),
			d(p.with, p.floor, cpuOf, 50), d(p.with, p.floor, cpuOf, 99),
			d(p.floor, p.without, scriptOf, 50), d(p.with, p.floor, scriptOf, 50),
			d(p.floor, p.without, loadOf, 50), d(p.with, p.floor, loadOf, 50))
	}
}

// noiseOf is the q-th percentile of f in p's second browser without
// extensions minus that in the first: the difference two identical
// browsers show in this run; "—" without the second (-noise=false).
func noiseOf(p *page, f func(sample) time.Duration, q int) string {
	if len(p.twin) == 0 {
		return "—"
	}
	return fmtMS(pct(field(p.twin, f), q) - pct(field(p.without, f), q))
}

func cpuOf(s sample) time.Duration    { return s.cpu }
func wallOf(s sample) time.Duration   { return s.wall }
func scriptOf(s sample) time.Duration { return s.script }
func loadOf(s sample) time.Duration   { return s.load }

func responseOf(s sample) time.Duration { return s.phases.response }
func dclOf(s sample) time.Duration      { return s.phases.dcl }
func loadAtOf(s sample) time.Duration   { return s.phases.loadAt }

func field(ss []sample, f func(sample) time.Duration) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
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

func fmtMS(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// title names the run's mode in a few words (how each page opens, whether
// the daemon runs, whether an agent works), so that figures of runs in
// different modes are not taken for one another.
func title() string {
	open, daemon, work := "one tab navigated", "daemon running", "idle"
	if *newTab {
		open = "each page in a new tab (-new-tab)"
	}
	if !*daemonOn {
		daemon = "no daemon (-daemon=false)"
	}
	if *atWork {
		work = "an agent at work (-at-work)"
	}
	return fmt.Sprintf("pagebench: %s, %s, %s", open, daemon, work)
}

// mode says in full what the run measured: how each page opens, whether
// the daemon runs, and which of the extension's modes was measured.
func mode() string {
	open := "each browser navigates the one tab it keeps to every page"
	if *newTab {
		open = "each load opens a new tab in its browser (blank, then navigated to the page, closed after)"
	}
	daemon := "the extension paired with a daemon that runs throughout"
	if !*daemonOn {
		daemon = "the extension paired with a daemon that was then stopped, every browser restarted: no daemon runs while pages load, and the extension backs off polling for it"
	}
	work := "no agent at work (top documents captured, iframes not)"
	if *atWork {
		work = "an agent at work (-at-work: every frame captured)"
	}
	return open + "; " + daemon + "; " + work
}
