//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// readyPage is a page whose parsing stops at a script the server holds
// back (held.js), and whose image the server never sends while the test
// runs (held.png): once released it stays "interactive", after
// DOMContentLoaded and before load. Its buttons have no test id, so only
// the DOM engine gives their locator (role and name).
const readyPage = `<!doctype html><html><head><title>ready</title>
<script>window.hits = []; addEventListener('click', (e) => hits.push(e.target.textContent), true);</script>
</head><body>
<button>Save</button>
<div><button>Go</button></div>
<script src="/held.js?n=%[1]s"></script>
<img src="/held.png?n=%[1]s" alt="">
</body></html>`

// readySite serves readyPage at /ready.html?n=N; release(N) lets its
// held.js through. Every held request is let go at the test's end.
type readySite struct {
	*httptest.Server
	mu    sync.Mutex
	gates map[string]chan struct{} // guarded by mu; closed when released
}

func newReadySite(t *testing.T) *readySite {
	s := &readySite{gates: map[string]chan struct{}{}}
	end := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		hold := func(gate <-chan struct{}) bool {
			select {
			case <-gate:
				return true
			case <-end:
				return false
			case <-r.Context().Done():
				return false
			}
		}
		switch r.URL.Path {
		case "/ready.html":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprintf(w, readyPage, n)
		case "/held.js":
			if hold(s.gate(n)) {
				w.Header().Set("Content-Type", "text/javascript")
				fmt.Fprint(w, "window.held = true;")
			}
		case "/held.png":
			hold(nil)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(end) }) // before Close, which waits for the held requests
	return s
}

func (s *readySite) gate(n string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gates[n] == nil {
		s.gates[n] = make(chan struct{})
	}
	return s.gates[n]
}

func (s *readySite) release(n string) { close(s.gate(n)) }

// clickAtReady opens readyPage (?n=n) in a new tab as the user does, and
// clicks as a user would (CDP Input) its Go button while the page parses
// (before DOMContentLoaded), once its first contentful paint is shown (a
// user clicks what is on screen, and Blink drops input that comes before a
// new page's first non-empty paint), then its Save button right after the
// page's DOMContentLoaded: the test's listener, registered while the
// parser waits for held.js, answers from that event with the button's
// place. It returns the page and the URL it loaded.
func (e *env) clickAtReady(site *readySite, n string) (*page, string) {
	e.t.Helper()
	u := site.URL + "/ready.html?n=" + n
	id, err := e.cdp.CreateTarget(e.ctx, u)
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := e.cdp.Attach(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Detach(context.WithoutCancel(e.ctx)) })
	p := &page{e: e, s: s, targetID: id}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var parsing bool
		err := s.Evaluate(e.ctx, `document.readyState === "loading" && document.querySelectorAll("button").length === 2 &&
			performance.getEntriesByName("first-contentful-paint").length > 0`, &parsing)
		if err == nil && parsing {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s did not stop at its held script, painted, within 20 s (last error %v)", u, err)
		}
	}
	// The user clicks again if the page did not see the click: a click is
	// still sometimes dropped by a busy Chrome, which is not what this
	// tests (neither the page nor the recorder sees a dropped click).
	for try := 1; ; try++ {
		p.click(`div > button`)
		var seen int
		for deadline := time.Now().Add(2 * time.Second); seen == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			p.eval(`window.hits.length`, &seen)
		}
		if seen > 0 {
			break
		}
		if try == 3 {
			e.t.Fatal("the parsing page saw none of the user's 3 clicks on Go")
		}
		e.t.Logf("the parsing page did not see click %d on Go; the user clicks again", try)
	}
	p.eval(`(window.atReady = new Promise((resolve) => document.addEventListener("DOMContentLoaded", () => {
		const r = document.querySelector("button").getBoundingClientRect();
		resolve({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
	}, { once: true })), true)`, new(bool))
	site.release(n)
	var box struct{ X, Y float64 }
	p.eval(`window.atReady`, &box)
	if err := s.Click(e.ctx, box.X, box.Y); err != nil {
		e.t.Fatal(err)
	}
	var state string
	if p.eval(`document.readyState`, &state); state != "interactive" {
		e.t.Fatalf("readyState %q after the click, want interactive (between DOMContentLoaded and load)", state)
	}
	var hits []string
	if p.eval(`window.hits`, &hits); !slices.Equal(hits, []string{"Go", "Save"}) {
		e.t.Fatalf("the user's clicks reached %v, want [Go Save]", hits)
	}
	return p, u
}

// TestRecordedRightAfterReady clicks, as a user, a button of a page while
// it parses and another right after its DOMContentLoaded (before its
// load), on a page loaded while no agent works (top documents only) and on
// one loaded at work. The recorder and the DOM engine come from the
// worker, which injects them when webNavigation reports the document's
// DOMContentLoaded (capture/declared.js), a round trip later;
// capture/tap.js holds the clicks till then. Each click is recorded once,
// with the engine's locator (role and name), which interact matches to
// the same button.
func TestRecordedRightAfterReady(t *testing.T) {
	e := ready(t)
	site := newReadySite(t)
	e.popupFrames(false)
	idle, idleURL := e.clickAtReady(site, "idle")
	check := func(p *page, u string) {
		t.Helper()
		// every tab: the user's, not only the agent's
		o := e.observeUntil(map[string]any{"what": "actions", "tabs": "all", "limit": 100}, 15*time.Second, func(o observed) error {
			if len(clicksOn(o, u)) < 2 {
				return fmt.Errorf("the clicks on %s are not both recorded yet", u)
			}
			return nil
		})
		clicks := clicksOn(o, u)
		if len(clicks) != 2 {
			t.Fatalf("%d clicks recorded on %s, want 2 (each once): %v", len(clicks), u, clicks)
		}
		for i, name := range []string{"Go", "Save"} {
			a := clicks[i]
			loc, _ := a["locator"].(map[string]any)
			if fmt.Sprintf("%v %v %v", loc["by"], loc["role"], loc["name"]) != "role button "+name || a["role"] != "button" || a["name"] != name {
				t.Errorf("click %d on %s is %v, want the engine's role, name and locator (role button %s)", i, u, a, name)
				continue
			}
			p.eval(`(window.hits = [], true)`, new(bool))
			e.ok("click", map[string]any{"target": targetOf(t, loc), "tab_id": a["tab_id"]})
			var hits []string
			if p.eval(`window.hits`, &hits); !slices.Equal(hits, []string{name}) {
				t.Errorf("replaying %v on %s clicked %v, want [%s]", loc, u, hits, name)
			}
		}
	}
	check(idle, idleURL) // its replay is an agent's command: the extension goes to work
	e.popupFrames(true)
	work, workURL := e.clickAtReady(site, "work")
	check(work, workURL)
}

// clicksOn is the recorded clicks in the tab that loaded url, oldest
// first (its load entry may come after a click made while it loaded).
func clicksOn(o observed, url string) []ev {
	var tab any
	for _, a := range o.Entries {
		if a.str("type") == "load" && a.str("to") == url {
			tab = a["tab_id"]
		}
	}
	var out []ev
	for _, a := range o.Entries {
		if a.str("type") == "click" && tab != nil && a["tab_id"] == tab {
			out = append(out, a)
		}
	}
	return out
}

// framesSite serves a page with three iframes, one loaded from the site,
// one inline (srcdoc, an about: document) and one from a data: URL (an
// opaque origin the top document cannot read: its button fills its
// top-left 100 × 40 pixels), each with one button.
func framesSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/frames.html":
			fmt.Fprint(w, `<!doctype html><title>frames</title><h1>Frames</h1>
<iframe id="web" src="/inner.html" width="300" height="100"></iframe>
<iframe id="inline" width="300" height="100" srcdoc="<button>Inline</button>"></iframe>
<iframe id="data" width="300" height="100" src="data:text/html,<style>body{margin:0}button{width:100px;height:40px}</style><button>Data</button>"></iframe>`)
		case "/inner.html":
			fmt.Fprint(w, `<!doctype html><title>inner</title><button>Web</button>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// clickInFrame clicks, as a user (CDP Input), the button of the iframe
// whose id is frame: where the frame's document says it is, or, in one the
// top document cannot read, at (50, 20) in the frame.
func (p *page) clickInFrame(frame string) {
	p.e.t.Helper()
	var box struct{ X, Y float64 }
	p.eval(fmt.Sprintf(`(() => {
		const f = document.getElementById(%q), r = f.getBoundingClientRect();
		const b = f.contentDocument?.querySelector("button").getBoundingClientRect() ?? { x: 0, y: 0, width: 100, height: 40 };
		return { x: r.x + f.clientLeft + b.x + b.width / 2, y: r.y + f.clientTop + b.y + b.height / 2 };
	})()`, frame), &box)
	if err := p.s.Click(p.e.ctx, box.X, box.Y); err != nil {
		p.e.t.Fatal(err)
	}
}

// TestRecordedInFramesAtWork: while an agent works, the worker brings the
// recorder into every frame of a page the user opens, at each frame's
// DOMContentLoaded (capture/declared.js: it is not registered at
// document_end, which would hold the page's load event). The user's clicks
// in an iframe loaded from the site, an inline one and a data: one are
// recorded, each once, in its frame, in order, with the engine's locator.
func TestRecordedInFramesAtWork(t *testing.T) {
	e := ready(t)
	srv := framesSite(t)
	e.agentAtWork()
	u := srv.URL + "/frames.html"
	p := e.openPage(u)
	p.eval(`(window.hits = [], [...document.querySelectorAll("iframe")].forEach((f) =>
		f.contentDocument?.addEventListener("click", (e) => hits.push(e.target.textContent), true)), true)`, new(bool))
	for _, frame := range []string{"web", "inline", "data"} {
		p.clickInFrame(frame)
	}
	var hits []string
	if p.eval(`window.hits`, &hits); !slices.Equal(hits, []string{"Web", "Inline"}) {
		t.Fatalf("the user's clicks reached %v, want [Web Inline] (and one in the data: frame)", hits)
	}
	o := e.observeUntil(map[string]any{"what": "actions", "tabs": "all", "limit": 100}, 15*time.Second, func(o observed) error {
		if n := len(clicksOn(o, u)); n < 3 {
			return fmt.Errorf("%d of the 3 clicks in %s's iframes recorded", n, u)
		}
		return nil
	})
	clicks := clicksOn(o, u)
	if len(clicks) != 3 {
		t.Fatalf("%d clicks recorded on %s, want 3 (each once): %v", len(clicks), u, clicks)
	}
	for i, name := range []string{"Web", "Inline", "Data"} {
		a := clicks[i]
		loc, _ := a["locator"].(map[string]any)
		if fmt.Sprintf("%v %v %v", loc["by"], loc["role"], loc["name"]) != "role button "+name || a.num("frame_id") <= 0 {
			t.Errorf("click %d is %v, want the engine's locator (role button %s) in an iframe (frame_id > 0)", i, a, name)
		}
	}
}
