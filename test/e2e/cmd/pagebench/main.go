//go:build unix

// Command pagebench measures what the extension costs a user's browsing
// (issue 18, "Light pages"): it serves Debian's python3-doc pages and a
// page with many same-origin iframes on 127.0.0.1, starts two quiet
// headless Chromiums, one without extensions and one with the real
// extension paired with a gasoline daemon, and loads each page in both,
// interleaved, measuring per navigation the renderer's main-thread time
// (Performance.getMetrics TaskDuration of the new document, in the thread's
// CPU time and in wall time, up to a settle time after its load event) and
// the load time (navigation start → load event end). A third browser, also
// without extensions, loads every page too (-noise, on by default): what it
// differs from the first by is the noise of the run, printed beside each
// figure the extension adds. With -floor one more browser loads every
// page, with the floor extension (floor.go): what Chrome itself costs a
// page for an extension that injects at document_start and listens to
// webRequest, running nothing; a table then splits what the extension adds
// into that floor and its own part. It prints a Markdown
// table on stdout (progress goes to stderr) and stops everything it
// started. With -profile it prints, instead, where the extension's time
// goes by source file and function, sampled with V8's profiler in a debug
// copy of the extension (scripts/bundle -debug: the content scripts
// unbundled and unminified, written to a temporary directory and removed).
//
// The extension captures iframes only while an agent works
// (extension/capture/declared.js): by default it measures the user's
// browsing with no agent at work (top documents only); with -at-work an
// agent (an MCP client through the real bridge) sends a command first, and
// again every few minutes, so every frame is captured, as while an agent
// works.
//
// By default each browser loads every page in the one tab it keeps, with the
// daemon running. With -new-tab each load opens a new tab instead (blank,
// then navigated to the page, then closed), in every browser alike: a new
// tab's new renderer and the extension's set-up for a tab are in its
// figures. With -daemon=false no daemon runs while pages load, as in a
// user's browser most of the day: the extension is paired with the daemon,
// the daemon stopped, and every browser restarted from its profile, so the
// extension's poll loop has never reached the daemon since it started and
// backs off to its longest wait, as after a browser start without the
// daemon. The
// table's title names the mode of the run.
//
//	cd test/e2e && go run ./cmd/pagebench [-n 15] [-warmup 2] [-frames 20] [-settle 1s] [-docs DIR] [-profile] [-at-work] [-new-tab] [-daemon=false] [-noise=false] [-floor]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var (
	n        = flag.Int("n", 15, "measured loads of each page in each browser")
	warmup   = flag.Int("warmup", 2, "unmeasured loads of each page in each browser first")
	frames   = flag.Int("frames", 20, "iframes of the iframe page (0 leaves the iframe rows out)")
	settle   = flag.Duration("settle", time.Second, "wait after the load event before reading the main-thread time (work after load counts too)")
	docsDir  = flag.String("docs", "", "html directory of Python's docs (default: the first /usr/share/doc/python3*/html)")
	pages    = flag.String("pages", strings.Join(docPages, ","), "docs pages to load, comma-separated, relative to -docs")
	timeout  = flag.Duration("timeout", 30*time.Minute, "stop and fail after this long")
	verbose  = flag.Bool("v", false, "print every navigation's figures on stderr")
	atWork   = flag.Bool("at-work", false, "measure while an agent works: an agent's command (new_tab, close_tab) first, and again every 5 minutes, so the extension captures every frame, not top documents only")
	newTab   = flag.Bool("new-tab", false, "open each measured load in a new tab (blank, navigated to the page, closed after), in every browser alike, instead of navigating the one tab each browser keeps")
	daemonOn = flag.Bool("daemon", true, "keep the daemon running while pages load; -daemon=false stops it after pairing and restarts the browser with the extension, which then backs off polling for it, as on a day without the daemon (not with -at-work)")
	floor    = flag.Bool("floor", false, "load every page in one more browser too, with the floor extension (floor.go: Chrome's own cost of two empty document_start scripts and empty webRequest listeners), and print what it adds beside what the extension adds")
	noise    = flag.Bool("noise", true, "load every page in a second browser without extensions too, and print what it differs from the first by (the run's noise) beside what the extension adds")
	profile  = flag.Bool("profile", false, "instead of the table, sample each load's JavaScript with V8's profiler and print where the time goes, by extension source file and function (loads a debug copy of the extension: its content scripts unbundled and unminified)")
)

func main() {
	flag.Parse()
	// SIGPIPE: a reader of the table that stopped early (| head) stops
	// the run as Ctrl-C does, so its browsers and daemons are stopped too
	// (otherwise the first write after it kills the process and leaves them).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "pagebench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pagebench: "+format+"\n", args...)
}

// page is one URL of the bench and its samples in each browser.
type page struct {
	name          string
	path          string
	frames        int // iframes it holds (iframe pages only)
	without, with []sample
	twin          []sample // the second browser without extensions (-noise)
	floor         []sample // the browser with the floor extension (-floor)
}

func run(ctx context.Context) error {
	if *n < 1 || *warmup < 0 || *frames < 0 || *frames > maxFrames || *settle < 0 {
		return fmt.Errorf("-n must be at least 1, -warmup and -settle at least 0, -frames 0 to %d", maxFrames)
	}
	if *atWork && !*daemonOn {
		return errors.New("-at-work needs the daemon (an agent's commands go through it): drop -at-work or -daemon=false")
	}
	var docNames []string
	for p := range strings.SplitSeq(*pages, ",") {
		if p = strings.TrimSpace(p); p != "" {
			docNames = append(docNames, p)
		}
	}
	docs, err := findDocs(*docsDir, docNames)
	if err != nil {
		return err
	}
	bin, err := chromium.Find()
	if err != nil {
		return err
	}
	root, err := gasoline.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gasoline-pagebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var list []*page
	for _, p := range docNames {
		list = append(list, &page{name: p, path: "/docs/" + p})
	}
	if *frames > 0 {
		list = append(list,
			&page{name: "frames (0 iframes)", path: "/frames?n=0"},
			&page{name: fmt.Sprintf("frames (%d iframes)", *frames), path: fmt.Sprintf("/frames?n=%d", *frames), frames: *frames})
	}

	srv := httptest.NewServer(site(docs)) // 127.0.0.1
	defer srv.Close()
	logf("serving %s on %s", docs, srv.URL)

	logf("building gasoline and gasoline-mcp")
	bins, err := gasoline.Build(ctx, root, tmp)
	if err != nil {
		return err
	}
	d, err := gasoline.StartDaemon(ctx, bins, filepath.Join(tmp, "state"), "--log-level=warn")
	if err != nil {
		return err
	}
	defer func() {
		if serr := d.Stop(context.WithoutCancel(ctx)); serr != nil {
			logf("stopping the daemon: %v", serr)
		}
	}()

	logf("starting %s without extensions and with the extension (paired)", bin)
	without, err := startSide(ctx, "without", bin, "", filepath.Join(tmp, "without"), nil)
	if err != nil {
		return fmt.Errorf("starting the browser without the extension: %w", err)
	}
	defer without.close()
	var twin *side
	if *noise && !*profile {
		if twin, err = startSide(ctx, "twin", bin, "", filepath.Join(tmp, "twin"), nil); err != nil {
			return fmt.Errorf("starting the second browser without the extension: %w", err)
		}
		defer twin.close()
	}
	var floorSide *side
	if *floor && !*profile {
		dir, err := writeFloor(filepath.Join(tmp, "floor-extension"), *atWork)
		if err != nil {
			return err
		}
		if floorSide, err = startSide(ctx, floorName, bin, dir, filepath.Join(tmp, "floor"), nil); err != nil {
			return fmt.Errorf("starting the browser with the floor extension: %w", err)
		}
		defer floorSide.close()
	}
	ext := filepath.Join(root, "extension")
	if *profile {
		// The real extension's content scripts are minified bundles, which
		// the profiler can only name by bundle and mangled function name.
		if ext, err = debugExtension(ctx, root, filepath.Join(tmp, "extension-debug")); err != nil {
			return err
		}
	}
	with, err := startSide(ctx, "with", bin, ext, filepath.Join(tmp, "with"), d)
	if err != nil {
		return fmt.Errorf("starting the browser with the extension: %w", err)
	}
	defer with.close()
	if !*daemonOn {
		// Every browser restarts, not only the one with the extension, so
		// that all three run their profile's second launch alike: a trial
		// with only that one restarted had it load stdtypes.html faster
		// than both browsers without extensions.
		logf("stopping the daemon and restarting every browser (the extension paired, no daemon to reach)")
		if err := d.Stop(ctx); err != nil {
			return fmt.Errorf("-daemon=false: stopping the daemon: %w", err)
		}
		for _, s := range []*side{without, twin, floorSide, with} {
			if s == nil {
				continue
			}
			if err := s.restart(ctx); err != nil {
				return fmt.Errorf("-daemon=false: %w", err)
			}
		}
		if err := waitUnreachable(ctx, with); err != nil {
			return fmt.Errorf("-daemon=false: %w", err)
		}
	}

	version, err := without.version(ctx)
	if err != nil {
		return err
	}
	var a *agent
	if *atWork {
		logf("an agent's command puts the extension at work (every frame captured)")
		if a, err = startAgent(ctx, d, srv.URL+"/frames?n=1"); err != nil {
			return fmt.Errorf("-at-work: %w", err)
		}
		defer a.close()
	}
	if *profile {
		return runProfile(ctx, list, srv.URL, without, with)
	}
	load0 := loadAvg()
	logf("%d warm-up and %d measured loads of %d pages in each browser, interleaved, %v settle", *warmup, *n, len(list), *settle)
	started := time.Now()
	for i := range *warmup + *n {
		if a != nil {
			if err := a.keep(ctx); err != nil {
				return fmt.Errorf("-at-work: %w", err)
			}
		}
		for j, p := range list {
			// Rotate which browser goes first, so none always follows
			// another's load: each goes first, second, ... and last in
			// turn.
			sides := []*side{without, with}
			for _, s := range []*side{twin, floorSide} {
				if s != nil {
					sides = append(sides, s)
				}
			}
			k := (i + j) % len(sides)
			order := append(slices.Clone(sides[k:]), sides[:k]...)
			for _, s := range order {
				smp, err := s.load(ctx, srv.URL+p.path, *settle)
				if err != nil {
					return err
				}
				if p.frames > 0 && smp.frames != p.frames+1 {
					return fmt.Errorf("%s browser: %s has %d frames after load, want %d", s.name, p.path, smp.frames, p.frames+1)
				}
				if *verbose {
					logf("%d %s %s: CPU %s wall %s script %s load %s frames %d", i, s.name, p.name,
						fmtMS(smp.cpu), fmtMS(smp.wall), fmtMS(smp.script), fmtMS(smp.load), smp.frames)
				}
				if i < *warmup {
					continue
				}
				switch s {
				case with:
					p.with = append(p.with, smp)
				case twin:
					p.twin = append(p.twin, smp)
				case floorSide:
					p.floor = append(p.floor, smp)
				default:
					p.without = append(p.without, smp)
				}
			}
		}
		if i == *warmup-1 || i == *warmup+*n-1 || (i-*warmup+1)%5 == 0 {
			logf("round %d of %d done (%v)", i+1, *warmup+*n, time.Since(started).Round(time.Second))
		}
	}
	printTable(list, version, load0, loadAvg())
	return nil
}
