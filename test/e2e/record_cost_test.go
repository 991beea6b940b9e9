//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestRecordCost prints (it does not assert) what the user-action recorder
// costs the user's input on /hands/big.html (600 links, 1 807 elements):
// the synchronous time of capture/record.js's click listener per trusted
// click, the time of its deferred uniqueness check (locatorFrom, run when
// the page is idle) and of one dom/engine.js locatorOf per link. It loads
// both files into the page's main world with a stub relay, between two
// capturing click listeners that take the time, so what is measured is the
// recorder's own listener and nothing else. It asserts only that every
// click was recorded, in order, with the link's locator.
//
//	cd test/e2e && go test -count=1 -run TestRecordCost -v ./...
func TestRecordCost(t *testing.T) {
	e := newEnv(t)
	e.startBrowser(e.site.URL + "/a")
	p := e.openPage(e.site.URL + "/hands/big.html")

	src := func(name string) string {
		b, err := os.ReadFile(filepath.Join(extensionDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	p.eval(src("dom/engine.js")+`;
		window.cost = { spans: [], recs: [], idle: [] };
		globalThis.gasolineRecord = (r) => window.cost.recs.push(r);
		if (globalThis.gasolineEngine.locatorFrom) { // the deferred part, timed where the recorder calls it
			const g = globalThis.gasolineEngine;
			globalThis.gasolineEngine = { ...g, locatorFrom(...args) {
				const t0 = performance.now();
				try { return g.locatorFrom(...args); } finally { window.cost.idle.push(performance.now() - t0); }
			} };
		}
		addEventListener('click', () => { window.cost.t0 = performance.now(); }, true);
		true`, new(bool))
	p.eval(src("capture/record.js")+`;
		addEventListener('click', (e) => { window.cost.spans.push(performance.now() - window.cost.t0); e.preventDefault(); }, true);
		true`, new(bool))

	// locatorOf on every link, as the recorder used to call it on the input path.
	var direct []float64
	p.eval(`(() => {
		const g = globalThis.gasolineEngine, out = [];
		for (const a of document.querySelectorAll('#list a')) {
			const t0 = performance.now();
			g.locatorOf(a, g.pageView);
			out.push(performance.now() - t0);
		}
		return out;
	})()`, &direct)

	const clicks = 60
	for i := range clicks {
		sel := fmt.Sprintf(`#list li:nth-of-type(%d) a`, 1+i*10)
		p.eval(fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: "center"}), true)`, sel), new(bool))
		p.click(sel)
		// The next click waits for this one's record: the recorder's
		// deferred work is not counted against the next click.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var n int
			p.eval(`window.cost.recs.length`, &n)
			if n == i+1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("click %d: %d records after 10 s, want %d", i, n, i+1)
			}
		}
	}
	var got struct {
		Spans []float64
		Idle  []float64
		Recs  []struct {
			Type    string
			Name    string
			Locator map[string]string
		}
	}
	p.eval(`window.cost`, &got)
	for i, r := range got.Recs {
		want := fmt.Sprintf("Item %d", i*10)
		if r.Type != "click" || r.Name != want || r.Locator["by"] != "role" || r.Locator["name"] != want {
			t.Errorf("record %d: %+v, want a click on link %q with its role locator", i, r, want)
		}
	}
	t.Logf("locatorOf per link (%d links):          p50 %.2f ms  p99 %.2f ms", len(direct), pct(direct, 50), pct(direct, 99))
	t.Logf("recorder's click listener (%d clicks): p50 %.2f ms  p99 %.2f ms", len(got.Spans), pct(got.Spans, 50), pct(got.Spans, 99))
	t.Logf("its deferred locatorFrom (%d, idle):    p50 %.2f ms  p99 %.2f ms", len(got.Idle), pct(got.Idle, 50), pct(got.Idle, 99))
}

// pct is the p-th percentile of xs (nearest rank).
func pct(xs []float64, p int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(i, 0)]
}
