//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// floodBodies counts the large bodies /flood/body served, so a test can
// tell its flood is under way.
var floodBodies atomic.Int64

// floodPages serves testdata/flood and /flood/body, 256 KB of text.
func floodPages() http.Handler {
	files := http.FileServer(http.Dir("testdata"))
	body := strings.Repeat("0123456789abcdef", 16<<10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == "/flood/body" {
			floodBodies.Add(1)
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, body)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// TestNoisyTabDoesNotBlindTheAgent is issue 16's finding 5 in a real
// browser: a tab the user opened floods console logs and 256 KB responses
// while the agent's own tab logs a few lines and runs execute_js. Every line
// of the agent's tab stays readable (default scope and tab_id), without
// missed or a drop count (the flood's losses, counted in the extension or
// the daemon, are the noisy tab's), and execute_js under the flood stays
// near its quiet p50, both measured here.
func TestNoisyTabDoesNotBlindTheAgent(t *testing.T) {
	requireBrowser(t)
	e := ready(t)
	// An agent at work: the user's tab then loads with the full capture,
	// bodies included, which is what makes its flood lose records (a tab
	// opened while no agent works keeps the bodies of failed requests only
	// and loses nothing here).
	e.agentAtWork()
	// The user's noisy tab, opened before the agent has a tab, so it is not
	// the agent's; it floods when told to.
	target, err := e.cdp.CreateTarget(e.ctx, e.site.URL+"/flood/noisy.html")
	if err != nil {
		t.Fatal(err)
	}
	defer e.cdp.CloseTarget(e.ctx, target)
	noisy, err := e.cdp.Attach(e.ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	nt := e.act("new_tab", map[string]any{"url": e.site.URL + "/flood/quiet.html"})
	var opened struct {
		TabID int64 `json:"tab_id"`
	}
	if nt.Status != "complete" || json.Unmarshal(nt.Value, &opened) != nil || opened.TabID == 0 {
		t.Fatalf("new_tab: %s, want complete with the tab's id", nt)
	}
	quiet := opened.TabID
	const runs = 21
	timed := func(script string) time.Duration {
		t.Helper()
		start := time.Now()
		r := e.js(script, map[string]any{"tab_id": quiet})
		took := time.Since(start)
		if js := complete(t, r); js.TabID != quiet {
			t.Fatalf("execute_js ran in tab %d, want the quiet tab %d", js.TabID, quiet)
		}
		return took
	}
	p50 := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	for range 3 { // warm up
		timed("return 1")
	}
	var calm []time.Duration
	for range runs {
		calm = append(calm, timed("return 1"))
	}

	from := floodBodies.Load()
	if err := noisy.Evaluate(e.ctx, "flood(30000, 1500), true", nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); floodBodies.Load()-from < 20; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the noisy tab fetched %d bodies in 20 s, want the flood under way", floodBodies.Load()-from)
		}
	}
	before := floodBodies.Load()
	var flooded []time.Duration
	for i := range runs {
		flooded = append(flooded, timed(fmt.Sprintf("console.warn('quiet line %d'); return %d", i, i)))
	}
	during := floodBodies.Load() - before
	if during < runs {
		t.Fatalf("the noisy tab fetched only %d bodies while execute_js ran %d times: the flood was not under way", during, runs)
	}
	calmP50, floodP50 := p50(calm), p50(flooded)
	t.Logf("execute_js p50 quiet %v, under the flood %v (max %v); %d bodies of 256 KB during the runs", calmP50, floodP50, flooded[len(flooded)-1], during)
	// The target is 2x the quiet p50 (issue 16; measured 46-76 ms against
	// 25-31 ms quiet here, and 593 ms before the fix). A busy 2-core CI
	// machine adds scheduling delays of its own, so the assertion leaves
	// room for them (a run with the machine's load average above 20 measured
	// 234 ms against 33 ms quiet) and still fails on the regression it guards
	// against (593 ms).
	if floodP50 > 6*calmP50+250*time.Millisecond {
		t.Errorf("execute_js p50 under the flood %v, want at most 6x its quiet p50 %v + 250 ms (target 2x)", floodP50, calmP50)
	}

	var want []string
	for i := range runs {
		want = append(want, fmt.Sprintf("quiet line %d", i))
	}
	for _, scope := range []map[string]any{{}, {"tab_id": quiet}} {
		args := map[string]any{"what": "logs", "text": "quiet line", "limit": 100, "since": 0}
		for k, v := range scope {
			args[k] = v
		}
		o := e.observe(args)
		var got []string
		for _, l := range o.Entries {
			got = append(got, l.str("message"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("observe %v: got %d lines %q, want all %d", scope, len(got), got, runs)
		}
		if strings.Contains(o.Raw, `"missed":true`) {
			t.Errorf("observe %v says missed although the quiet tab lost nothing: %s", scope, o.Raw)
		}
		// The flood's losses, the extension's included, are the noisy tab's.
		if o.Dropped != 0 || strings.Contains(o.Raw, "dropped_tab_unknown") {
			t.Errorf("observe %v reports dropped %d although the quiet tab lost nothing: %.300s", scope, o.Dropped, o.Raw)
		}
	}
	all := e.observe(map[string]any{"what": "logs", "tabs": "all", "limit": 1})
	t.Logf("every tab's logs: dropped %d", all.Dropped)
	if all.Dropped == 0 {
		t.Errorf("a read of every tab reports no drops: the flood lost nothing, so the quiet tab's reads prove nothing: %.300s", all.Raw)
	}
}
