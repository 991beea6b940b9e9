package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// The rows of truth after acting (an action settles before it reports:
// docs/agent-guide.md, "Acting on the page"): a click that settles on a
// page that navigates and on one that fetches, and a navigate followed by
// the first read of the new page's console.

// truthPage serves the pages of those rows and reports whether path was one:
//
//	/go/<n>    a link "Next" to /go/<n+1>
//	/fetch     a button "Load" that fetches /api and shows its answer
//	/api       200 "42"
//	/logs/<n>  a page that console.errors "boot <n>" while it loads
func truthPage(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/go/"):
		var i int
		fmt.Sscan(strings.TrimPrefix(p, "/go/"), &i)
		fmt.Fprintf(w, `<!doctype html><title>Go %d</title><h1>Go %d</h1><a href="/go/%d">Next</a>`, i, i, i+1)
	case p == "/fetch":
		fmt.Fprint(w, `<!doctype html><title>Fetch</title><p id="out">0</p><button onclick="fetch('/api').then(r=>r.text()).then(t=>{out.textContent=t})">Load</button>`)
	case p == "/api":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "42")
	case strings.HasPrefix(p, "/logs/"):
		n := strings.TrimPrefix(p, "/logs/")
		fmt.Fprintf(w, `<!doctype html><title>Logs %s</title><h1>Logs</h1><script>console.error("boot %s")</script>`, n, n)
	default:
		return false
	}
	return true
}

type truthRow struct {
	figure, target string
	samples        []time.Duration
}

// truthRows measures the truth rows, n each, after the warm-up.
func truthRows(ctx context.Context, mc *gasoline.Client, base string) ([]truthRow, error) {
	effects := func(r gasoline.Result) map[string]any {
		var v struct {
			Result struct {
				Effects map[string]any `json:"effects"`
			} `json:"result"`
		}
		json.Unmarshal(r.Raw, &v)
		return v.Result.Effects
	}
	nav := func(url string) error {
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": url, "wait_ms": 20000})
		if err == nil && r.Status != "complete" {
			err = fmt.Errorf("navigate %s: %s", url, r)
		}
		return err
	}

	logf("%d warm-up and %d measured clicks that navigate", *warmup, *n)
	if err := nav(base + "/go/0"); err != nil {
		return nil, err
	}
	var navClicks []time.Duration
	for i := range *warmup + *n {
		start := time.Now()
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "click", "role": "link", "name": "Next", "wait_ms": 10000})
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		if eff := effects(r); r.Status != "complete" || eff["navigated"] != true || eff["title"] != fmt.Sprintf("Go %d", i+1) || eff["settled"] != true {
			return nil, fmt.Errorf("click %d that navigates: %s, want navigated to Go %d and settled", i, r, i+1)
		}
		if i >= *warmup {
			navClicks = append(navClicks, d)
		}
	}

	logf("%d warm-up and %d measured clicks that fetch", *warmup, *n)
	if err := nav(base + "/fetch"); err != nil {
		return nil, err
	}
	var fetchClicks []time.Duration
	for i := range *warmup + *n {
		start := time.Now()
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "click", "role": "button", "name": "Load", "wait_ms": 10000})
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		reqs, _ := effects(r)["requests"].([]any)
		if r.Status != "complete" || len(reqs) != 1 || reqs[0].(map[string]any)["status"] != 200.0 {
			return nil, fmt.Errorf("click %d that fetches: %s, want the request with status 200", i, r)
		}
		if i >= *warmup {
			fetchClicks = append(fetchClicks, d)
		}
	}

	logf("%d warm-up and %d measured navigate + first observe logs", *warmup, *n)
	var reads []time.Duration
	for i := range *warmup + *n {
		start := time.Now()
		if err := nav(fmt.Sprintf("%s/logs/%d", base, i)); err != nil {
			return nil, err
		}
		r, err := mc.Call(ctx, "observe", map[string]any{"what": "logs", "min_level": "error", "text": fmt.Sprintf("boot %d", i)})
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(r.Raw), fmt.Sprintf(`"boot %d"`, i)) {
			return nil, fmt.Errorf("navigate %d: the first observe logs after it lacks the page's console.error: %s", i, r)
		}
		if i >= *warmup {
			reads = append(reads, d)
		}
	}
	return []truthRow{
		{fmt.Sprintf("real headless Chromium: `interact click` on a link, settling through the navigation it starts (effects.navigated, title; n=%d)", *n), "(reference)", navClicks},
		{fmt.Sprintf("real headless Chromium: `interact click` whose handler fetches, settling until the response (effects.requests status; n=%d)", *n), "(reference)", fetchClicks},
		{fmt.Sprintf("real headless Chromium: `navigate` to a page that console.errors while loading, then the first `observe logs` (has it every time; n=%d)", *n), "(reference)", reads},
	}, nil
}
