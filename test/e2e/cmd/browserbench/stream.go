package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var streamOnly = flag.Bool("stream-only", false, "measure only the clicks on a quiet page and on a page that never goes quiet (issue 28 item 5)")

// benchButton is the quiet page's button: the click changes a data attribute.
const benchButton = `<button onclick="this.dataset.n=(+this.dataset.n||0)+1">Bench button</button>`

// livePage is benchButton on a page that holds an EventSource (a message
// every 200 ms, rendered 30 ms later, debounced, as a dashboard does), a
// long poll answered every 25 s and a fetch whose body comes a chunk every
// 2 s, all opened while it loads.
const livePage = `<!doctype html><title>Live</title><h1>Live</h1><p id="last"></p>` + benchButton + `<script>
let render = 0;
new EventSource('/events').onmessage = (e) => {
  clearTimeout(render); // a dashboard's debounced render
  render = setTimeout(() => { document.getElementById('last').textContent = e.data; }, 30);
};
(async () => { for (;;) { try { await (await fetch('/poll')).text(); } catch { await new Promise((r) => setTimeout(r, 1000)); } } })();
(async () => { const r = (await fetch('/ticker')).body.getReader(); while (!(await r.read()).done); })();
addEventListener('unload', () => {}); // kept out of the back/forward cache, which held its streams open
</script>`

// liveSite serves /quiet and /live; its streams end when stop is called.
func liveSite() (*httptest.Server, func()) {
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /quiet", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Quiet</title><h1>Quiet</h1>`+benchButton)
	})
	mux.HandleFunc("GET /live", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store") // not kept in the back/forward cache with its streams open
		fmt.Fprint(w, livePage)
	})
	stream := func(mime string, every time.Duration, chunk func(int) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", mime)
			tick := time.NewTicker(every)
			defer tick.Stop()
			for i := 0; ; i++ {
				fmt.Fprint(w, chunk(i))
				w.(http.Flusher).Flush()
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				case <-done:
					return
				}
			}
		}
	}
	mux.Handle("GET /events", stream("text/event-stream", 200*time.Millisecond, func(i int) string { return fmt.Sprintf("data: %d\n\n", i) }))
	mux.Handle("GET /ticker", stream("text/plain", 2*time.Second, func(i int) string { return fmt.Sprintf("tick %d\n", i) }))
	mux.HandleFunc("GET /poll", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(25 * time.Second):
			fmt.Fprint(w, "news")
		case <-r.Context().Done():
		case <-done:
		}
	})
	s := httptest.NewServer(mux)
	return s, func() {
		close(done)
		s.Close()
	}
}

// streamRows clicks the button of the quiet page and of the live page in
// one tab (a background tab's timers are throttled), in blocks of 10
// clicks that alternate between the pages so that the machine's load
// weighs on both alike, *warmup unmeasured and *n measured clicks of
// each; it returns their rows and that of navigate to the live page (n/10
// times).
func streamRows(ctx context.Context, mc *gasoline.Client) ([]truthRow, error) {
	site, stop := liveSite()
	defer stop()
	r, err := mc.Call(ctx, "interact", map[string]any{"action": "new_tab", "url": site.URL + "/quiet", "wait_ms": 20000})
	if err != nil || r.Status != "complete" {
		return nil, fmt.Errorf("new_tab: %s %v", r, err)
	}
	var v struct {
		TabID json.Number `json:"tab_id"`
	}
	json.Unmarshal(r.Value, &v)
	tab := v.TabID
	// sinceLoad is how long before answered (when navigate answered) the
	// tab's page had its load event, by the page's clock.
	sinceLoad := func(answered time.Time) (time.Duration, error) {
		r, err := mc.ExecuteJS(ctx, `performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventEnd`, map[string]any{"tab_id": tab, "wait_ms": 10000})
		if err != nil || r.Status != "complete" {
			return 0, fmt.Errorf("load time: %s %v", r, err)
		}
		js, err := r.JS()
		if err != nil {
			return 0, err
		}
		var loadEnd float64
		if err := json.Unmarshal(js.Value, &loadEnd); err != nil {
			return 0, fmt.Errorf("load time %s: %w", js.Value, err)
		}
		return time.Duration((float64(answered.UnixMicro())/1000 - loadEnd) * float64(time.Millisecond)), nil
	}
	firstLive := true
	open := func(path string) error {
		start := time.Now()
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": site.URL + path, "tab_id": tab, "wait_ms": 20000})
		answered := time.Now()
		if err != nil || r.Status != "complete" {
			return fmt.Errorf("navigate to %s: %s %v", path, r, err)
		}
		if path == "/live" && firstLive { // nothing learned of its long poll yet
			firstLive = false
			after, err := sinceLoad(answered)
			if err != nil {
				return err
			}
			logf("first navigate to the streaming page: %v, %v after its load event", answered.Sub(start).Round(time.Millisecond), after.Round(time.Millisecond))
		}
		return nil
	}
	click := func() (time.Duration, error) {
		start := time.Now()
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "click", "role": "button", "name": "Bench button", "tab_id": tab, "wait_ms": 10000})
		took := time.Since(start)
		if err != nil {
			return 0, err
		}
		var v struct {
			Effects struct {
				Settled bool `json:"settled"`
			} `json:"effects"`
		}
		json.Unmarshal(r.Value, &v)
		if r.Status != "complete" || !v.Effects.Settled {
			return 0, fmt.Errorf("click: %s, want complete and settled", r)
		}
		return took, nil
	}
	logf("%d warm-up and %d measured clicks on a quiet page and on a streaming one, alternating in blocks of 10", *warmup, *n)
	var quiet, live []time.Duration
	for done := -*warmup; done < *n; done += 10 {
		for _, page := range []struct {
			path string
			out  *[]time.Duration
		}{{"/quiet", &quiet}, {"/live", &live}} {
			if err := open(page.path); err != nil {
				return nil, err
			}
			for i := range 10 {
				d, err := click()
				if err != nil {
					return nil, err
				}
				if done+i >= 0 && done+i < *n {
					*page.out = append(*page.out, d)
				}
			}
		}
	}
	navs := max(3, *n/10)
	logf("%d navigations to the streaming page", navs)
	var nav, afterLoad []time.Duration
	unsettled := 0
	for range navs {
		start := time.Now()
		r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": site.URL + "/live", "tab_id": tab, "wait_ms": 20000})
		took := time.Since(start)
		if err != nil || r.Status != "complete" {
			return nil, fmt.Errorf("navigate to the streaming page: %s %v", r, err)
		}
		after, err := sinceLoad(start.Add(took))
		if err != nil {
			return nil, err
		}
		afterLoad = append(afterLoad, after)
		var v struct {
			Settled *bool `json:"settled"`
		}
		json.Unmarshal(r.Value, &v)
		if v.Settled != nil {
			unsettled++
		}
		nav = append(nav, took)
	}
	return []truthRow{
		{fmt.Sprintf("real headless Chromium: `interact click` (settling) on a quiet page, alternating with the next row in blocks of 10 (n=%d)", *n), "(reference)", quiet},
		{fmt.Sprintf("real headless Chromium: `interact click` (settling) on a page holding an EventSource (5 messages a second), a 25 s long poll and a streamed fetch (n=%d)", *n), "p50 within 20 ms of the quiet page's", live},
		{fmt.Sprintf("real headless Chromium: `interact navigate` to that page, %d of them not settled (n=%d)", unsettled, navs), "settled within 1 s of load", nav},
		{fmt.Sprintf("real headless Chromium: those navigates' answer after the page's load event, its long poll known by then (n=%d)", navs), "≤ 1 s", afterLoad},
	}, nil
}
