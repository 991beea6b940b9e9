//go:build unix

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/peers"
)

var shotsOnly = flag.Bool("shots-only", false, "measure only the screenshot rows (with -playwright and -devtools: the peers' too, interleaved)")

// shotView is the part of a screenshot's result the rows check.
type shotView struct {
	Result struct {
		Bytes       int    `json:"bytes"`
		ImageTokens int    `json:"image_tokens"`
		Captured    string `json:"captured"`
		WaitedMS    int    `json:"waited_ms"`
		Reused      bool   `json:"reused"`
	} `json:"result"`
}

// screenshotRows times viewport screenshots of the bench page: per round,
// the page's heading changes (untimed, so the capture is fresh), the round
// waits 0.3 s and until Chrome's capture quota allows a capture at once
// (0.6 s after the last), then times a gasoline screenshot (a fresh capture), a second
// one at once (the viewport is unchanged: served from the first capture),
// and one screenshot through each peer given by a flag.
func screenshotRows(ctx context.Context, mc *gasoline.Client, d *gasoline.Daemon, bin, base string) ([]truthRow, error) {
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
		if err := peer.Navigate(ctx, base+"/"); err != nil {
			return nil, err
		}
		ps = append(ps, peer)
	}
	if r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": base + "/", "wait_ms": 20000}); err != nil || r.Status != "complete" {
		return nil, fmt.Errorf("navigate to the bench page: %s %v", r, err)
	}
	rounds := min(*n, 30)
	logf("%d warm-up and %d measured screenshot rounds, interleaved: gasoline and %d peers", *warmup, rounds, len(ps))
	type call struct {
		id         string
		start, end time.Time
	}
	var calls []call // the measured fresh captures
	shoot := func(i int, fresh bool) (time.Duration, shotView, error) {
		start := time.Now()
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "screenshot", "wait_ms": 10000})
		d := time.Since(start)
		var v shotView
		if err != nil {
			return 0, v, err
		}
		if fresh && i >= *warmup {
			calls = append(calls, call{r.CorrelationID, start, start.Add(d)})
		}
		if r.Status != "complete" || len(r.Images) != 1 {
			return 0, v, fmt.Errorf("screenshot %d: %s, want complete with one image", i, r)
		}
		json.Unmarshal(r.Raw, &v)
		return d, v, nil
	}
	fresh, reused := []time.Duration{}, []time.Duration{}
	peerShots := make([][]time.Duration, len(ps))
	var last shotView
	waits, hits := 0, 0 // fresh captures that waited for the quota; second shots reused
	lastCapture := time.Time{}
	for i := range *warmup + rounds {
		js := fmt.Sprintf("document.querySelector('h1').textContent = 'Bench %d'", i)
		if r, err := mc.ExecuteJS(ctx, js, map[string]any{"wait_ms": 10000}); err != nil || r.Status != "complete" {
			return nil, fmt.Errorf("changing the page: %s %v", r, err)
		}
		// Let the change paint (a capture is served again only when the page
		// was quiet for 150 ms before it) and the capture quota pass.
		time.Sleep(max(300*time.Millisecond, time.Until(lastCapture.Add(600*time.Millisecond))))
		lastCapture = time.Now()
		d, v, err := shoot(i, true)
		if err != nil {
			return nil, err
		}
		if v.Result.Reused {
			return nil, fmt.Errorf("screenshot %d of a changed page was served from an earlier capture", i)
		}
		last = v
		d2, v2, err := shoot(i, false)
		if err != nil {
			return nil, err
		}
		if i >= *warmup {
			fresh, reused = append(fresh, d), append(reused, d2)
			if v.Result.WaitedMS > 0 {
				waits++
			}
			if v2.Result.Reused {
				hits++
			}
		}
		for j, p := range ps {
			start := time.Now()
			if err := p.Screenshot(ctx); err != nil {
				return nil, err
			}
			if i >= *warmup {
				peerShots[j] = append(peerShots[j], time.Since(start))
			}
		}
	}
	rows := []truthRow{
		{fmt.Sprintf("real headless Chromium, peers interleaved: gasoline `interact screenshot` of the viewport, fresh capture (page changed before, ≥ 0.6 s after the last capture: Chrome allows 2 a second) → image block (n=%d, %d waited for the quota; %s captured, %d bytes, %d image tokens)",
			rounds, waits, last.Result.Captured, last.Result.Bytes, last.Result.ImageTokens), "ahead of both peers", fresh},
		{fmt.Sprintf("real headless Chromium: gasoline `interact screenshot` again at once, viewport unchanged → served from the first capture (n=%d, %d reused)", rounds, hits), "(reference)", reused},
	}
	cs, err := d.Commands(ctx)
	if err != nil {
		return nil, err
	}
	var in, dispatch, ext, out []time.Duration
	for _, c := range calls {
		got, ok := cs.Find(c.id)
		if !ok || got.DeliveredAt == nil || got.FinishedAt == nil {
			return nil, fmt.Errorf("GET /commands lacks the times of %s", c.id)
		}
		in = append(in, got.CreatedAt.Sub(c.start))
		dispatch = append(dispatch, got.DeliveredAt.Sub(got.CreatedAt))
		ext = append(ext, got.FinishedAt.Sub(*got.DeliveredAt))
		out = append(out, c.end.Sub(*got.FinishedAt))
	}
	rows = append(rows,
		truthRow{"… of which: tools/call sent → command queued (gasoline-mcp, daemon)", "(reference)", in},
		truthRow{"… of which: queued → the extension's held long-poll takes it", "(reference)", dispatch},
		truthRow{"… of which: delivered → result posted (the extension: capture, encode, POST)", "(reference)", ext},
		truthRow{"… of which: result posted → tools/call answered (daemon builds the image block, gasoline-mcp)", "(reference)", out},
	)
	for j, p := range ps {
		rows = append(rows, truthRow{fmt.Sprintf("real headless Chromium, peers interleaved: %s `%s` of the viewport, its defaults (PNG) (n=%d)", p.Name, p.ShotTool(), rounds), "(reference)", peerShots[j]})
	}
	return rows, nil
}
