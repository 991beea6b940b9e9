package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/peers"
)

// The same clicks through the peer MCP servers, measured by hand only:
//
//	npm install --prefix /tmp/peers @playwright/mcp chrome-devtools-mcp
//	go run ./cmd/browserbench -playwright /tmp/peers/node_modules/.bin/playwright-mcp \
//	    -devtools /tmp/peers/node_modules/.bin/chrome-devtools-mcp
var (
	playwright = flag.String("playwright", "", "path of playwright-mcp (npm @playwright/mcp): time the same clicks through its browser_click")
	devtools   = flag.String("devtools", "", "path of chrome-devtools-mcp (npm chrome-devtools-mcp): time the same clicks through its click")
)

// clickPages are the pages clicked by gasoline and the peers alike; seen is
// text the peer's snapshot must hold before click i (its earlier click's
// effect), "" for none.
var clickPages = []struct {
	name, path, role, label string
	seen                    func(i int) string
}{
	{"a quiet page (the click changes a data attribute)", "/", "button", "Bench button", func(int) string { return "" }},
	{"a link that navigates", "/go/0", "link", "Next", func(i int) string { return fmt.Sprintf("Go %d", i) }},
	{"a button whose handler fetches", "/fetch", "button", "Load", func(i int) string {
		if i == 0 {
			return ""
		}
		return "42"
	}},
}

// peerRows clicks every page of clickPages through gasoline and each peer
// given by a flag, one click of each per iteration, and returns a row per
// page and tool. A peer's click is timed from its click call to its answer;
// the snapshot that finds the ref before it is not timed. Gasoline clicks
// by role and name, with settling, as in its own rows.
func peerRows(ctx context.Context, mc *gasoline.Client, bin, base string) ([]truthRow, error) {
	var ps []*peers.Peer
	for _, p := range []struct {
		path  string
		start func(context.Context, string, string) (*peers.Peer, error)
	}{{*playwright, peers.Playwright}, {*devtools, peers.DevTools}} {
		if p.path == "" {
			continue
		}
		peer, err := p.start(ctx, p.path, bin)
		if err != nil {
			return nil, err
		}
		defer peer.Close()
		ps = append(ps, peer)
	}
	if len(ps) == 0 {
		return nil, nil
	}
	var rows []truthRow
	for _, pg := range clickPages {
		logf("%d warm-up and %d measured clicks on %s, interleaved: gasoline and %d peers", *warmup, *n, pg.path, len(ps))
		if r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": base + pg.path, "wait_ms": 20000}); err != nil || r.Status != "complete" {
			return nil, fmt.Errorf("navigate %s: %s %v", pg.path, r, err)
		}
		for _, p := range ps {
			if err := p.Navigate(ctx, base+pg.path); err != nil {
				return nil, err
			}
		}
		samples := make([][]time.Duration, 1+len(ps))
		for i := range *warmup + *n {
			start := time.Now()
			r, err := mc.Call(ctx, "interact", map[string]any{"action": "click", "role": pg.role, "name": pg.label, "wait_ms": 10000})
			d := time.Since(start)
			if err != nil {
				return nil, err
			}
			if r.Status != "complete" {
				return nil, fmt.Errorf("gasoline click %d on %s: %s, want complete", i, pg.path, r)
			}
			if i >= *warmup {
				samples[0] = append(samples[0], d)
			}
			for j, p := range ps {
				snap, err := p.Snapshot(ctx)
				if err != nil {
					return nil, err
				}
				if want := pg.seen(i); !strings.Contains(snap, want) {
					return nil, fmt.Errorf("%s on %s before click %d: the snapshot lacks %q:\n%s", p.Name, pg.path, i, want, snap)
				}
				ref := p.FindRef(snap, pg.role, pg.label)
				if ref == "" {
					return nil, fmt.Errorf("%s on %s: no %s %q in the snapshot:\n%s", p.Name, pg.path, pg.role, pg.label, snap)
				}
				start := time.Now()
				if _, err := p.Click(ctx, ref, pg.role+" "+pg.label); err != nil {
					return nil, err
				}
				if i >= *warmup {
					samples[1+j] = append(samples[1+j], time.Since(start))
				}
			}
		}
		rows = append(rows, truthRow{fmt.Sprintf("real headless Chromium, peers interleaved: gasoline `interact click` (role + name, settling) on %s (n=%d)", pg.name, *n), "(reference)", samples[0]})
		for j, p := range ps {
			rows = append(rows, truthRow{fmt.Sprintf("real headless Chromium, peers interleaved: %s `%s` (%s from `%s`, not timed) on %s (n=%d)", p.Name, p.ClickTool(), p.RefWord, p.SnapshotTool(), pg.name, *n), "(reference)", samples[1+j]})
		}
	}
	return rows, nil
}
