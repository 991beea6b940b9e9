//go:build unix

package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/v8prof"
)

// profileInterval is the V8 sampling profiler's interval in -profile mode:
// fine enough to see a frame's sub-millisecond setup, coarse enough that the
// profiler's own cost stays a small part of a load.
const profileInterval = 50 * time.Microsecond

// profile loads url in the side's tab (see inTab) under the V8 sampling
// profiler (all of the renderer's main-thread JavaScript: every same-origin
// frame, the page's world and the extension's) and returns the time of each
// sample charged to a label: the innermost function on the sample's stack
// that has a script, an extension script's ("capture/relay.js fn:line":
// -profile loads the debug copy of the extension, whose content scripts are
// the readable sources) or else "page"; a sample without one goes to the
// root bucket V8 gives ("(program)", "(garbage collector)", "(idle)"). A
// page callback that one of our wrappers calls (a timer's, a history
// listener's) is the page's, and a builtin is its caller's.
func (s *side) profile(ctx context.Context, url string, settle time.Duration) (map[string]time.Duration, error) {
	if err := v8prof.Start(ctx, s.tab, profileInterval); err != nil {
		return nil, fmt.Errorf("%s browser: %w", s.name, err)
	}
	if _, err := s.navigate(ctx, url, settle); err != nil {
		return nil, err
	}
	p, err := v8prof.Stop(ctx, s.tab)
	if err != nil {
		return nil, fmt.Errorf("%s browser: %w", s.name, err)
	}
	return attribute(p), nil
}

// debugExtension writes into dir (a new directory under pagebench's
// temporary one, removed with it) the extension of the repository at root
// as scripts/bundle -debug makes it: its capture/declared.json declares each
// bundle's readable sources, each its own script, so the profiler names each file
// and function as written. The bench's table measures the real extension.
func debugExtension(ctx context.Context, root, dir string) (string, error) {
	logf("writing a debug copy of the extension (content scripts unbundled) to %s", dir)
	cmd := exec.CommandContext(ctx, "go", "run", ".", "-ext", filepath.Join(root, "extension"), "-debug", dir)
	cmd.Dir = filepath.Join(root, "scripts", "bundle")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("scripts/bundle -debug: %w\n%s", err, out)
	}
	return dir, nil
}

// scriptName is how a label names the script at url: its path in the
// extension ("capture/relay.js"), or the name a sourceURL comment gives it
// ("gasoline-capture.js", the capture of capture/main/); "" for a script not the
// extension's.
func scriptName(url string) string {
	if rest, ok := strings.CutPrefix(url, "chrome-extension://"); ok {
		if _, p, ok := strings.Cut(rest, "/"); ok {
			return p
		}
		return rest
	}
	if strings.HasPrefix(url, "gasoline-") {
		return url
	}
	return ""
}

// attribute charges each sample's time to its label (see profile).
func attribute(p v8prof.Profile) map[string]time.Duration {
	return p.Charge(func(f v8prof.CallFrame) string {
		switch script := scriptName(f.URL); {
		case script != "":
			name := f.FunctionName
			if name == "" {
				name = "(top level)"
			}
			return fmt.Sprintf("%s %s:%d", script, name, f.LineNumber+1)
		case f.URL != "":
			return "page"
		case strings.HasPrefix(f.FunctionName, "(") && f.FunctionName != "(root)":
			return f.FunctionName
		}
		return ""
	}, "page")
}

// runProfile loads each page of list *n times in each browser under the
// sampling profiler (after the warm-up loads) and prints, per page, the
// mean time per load of each label in each browser, the extension's
// functions first. Profiling slows what it samples: these figures say where
// time goes, the main table says how much.
func runProfile(ctx context.Context, list []*page, base string, without, with *side) error {
	fmt.Printf("## %s\n", title())
	for _, p := range list {
		sums := map[*side]map[string]time.Duration{without: {}, with: {}}
		for i := range *warmup + *n {
			for _, s := range []*side{without, with} {
				if i < *warmup {
					if _, err := s.load(ctx, base+p.path, *settle); err != nil {
						return err
					}
					continue
				}
				var got map[string]time.Duration
				err := s.inTab(ctx, func() (err error) {
					got, err = s.profile(ctx, base+p.path, *settle)
					return err
				})
				if err != nil {
					return err
				}
				for k, v := range got {
					sums[s][k] += v
				}
			}
		}
		printProfile(p.name, sums[without], sums[with])
	}
	return nil
}

func printProfile(name string, without, with map[string]time.Duration) {
	fmt.Printf("\n### %s: sampled JavaScript time per load (mean of %d, %v interval)\n\n", name, *n, profileInterval)
	fmt.Println("| label | no extension | with extension |")
	fmt.Println("|---|---|---|")
	var labels []string
	for k := range with {
		labels = append(labels, k)
	}
	for k := range without {
		if _, ok := with[k]; !ok {
			labels = append(labels, k)
		}
	}
	ours := func(l string) bool { return !strings.HasPrefix(l, "(") && l != "page" }
	slices.SortFunc(labels, func(a, b string) int {
		if ours(a) != ours(b) {
			if ours(a) {
				return -1
			}
			return 1
		}
		return int(with[b] - with[a])
	})
	var total time.Duration
	for _, l := range labels {
		if ours(l) {
			total += with[l]
		}
	}
	mean := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(*n)/1e6) }
	fmt.Printf("| all extension functions | | %s |\n", mean(total))
	for _, l := range labels {
		if ours(l) && with[l]/time.Duration(*n) < 20*time.Microsecond {
			continue
		}
		fmt.Printf("| %s | %s | %s |\n", l, mean(without[l]), mean(with[l]))
	}
}
