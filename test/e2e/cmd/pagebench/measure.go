//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// navTimeout bounds one measured navigation, from Page.navigate to the
// load event.
const navTimeout = 30 * time.Second

// side is one browser of the comparison with the tab the bench drives
// through a DevTools session of its own (with -new-tab, while a load runs,
// the new tab's: inTab).
type side struct {
	name    string
	bin     string // startSide's arguments, for restart
	extDir  string
	dir     string // the profile
	browser *chromium.Browser
	conn    *cdp.Conn
	tab     *cdp.Session // Page events; Performance in wall time
	cpuTab  *cdp.Session // Performance in thread CPU time
	events  <-chan cdp.Event
	unsub   func()
}

// sample is what one navigation cost the page's renderer.
type sample struct {
	cpu    time.Duration // main thread's CPU time in tasks (TaskDuration, threadTicks)
	wall   time.Duration // main thread's wall time in tasks (TaskDuration, timeTicks)
	script time.Duration // CPU time running script (ScriptDuration, threadTicks)
	load   time.Duration // navigation start → load event end, page clock
	phases phases        // where in the load the time went, page clock
	frames int           // frames in the page after load (the main one included)
}

// phases are the navigation's milestones from its start, page clock
// (PerformanceNavigationTiming): where a slower load lost its time. Scripts
// injected at document_start delay parsing (dcl), those at document_end
// the DOMContentLoaded handlers and what follows (load start).
type phases struct {
	response time.Duration // responseEnd: the document's bytes arrived
	dcl      time.Duration // domContentLoadedEventStart: parsed, deferred scripts ran
	loadAt   time.Duration // loadEventStart: subresources done
}

// startSide starts a quiet headless browser in profile, with the extension
// at extDir (or with no extension when extDir is "") paired with d (unless d
// is nil: a profile whose extension was paired before), opens a blank tab
// and attaches to it (attach). The caller must close the side.
func startSide(ctx context.Context, name, bin, extDir, profile string, d *gasoline.Daemon) (_ *side, err error) {
	b, err := chromium.Start(ctx, chromium.Options{
		Bin: bin, UserDataDir: profile, ExtensionDir: extDir, LogPath: profile + ".log", Quiet: true,
	})
	if err != nil {
		return nil, err
	}
	s := &side{name: name, bin: bin, extDir: extDir, dir: profile, browser: b}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.conn, err = cdp.Dial(ctx, b.WebSocketURL); err != nil {
		return nil, err
	}
	if extDir != "" && name == floorName {
		if err := waitFloorWorker(ctx, s.conn); err != nil {
			return nil, err
		}
	} else if extDir != "" {
		if _, err := chromium.WaitForWorker(ctx, s.conn, 20*time.Second); err != nil {
			return nil, err
		}
		if d != nil {
			if err := chromium.PairDaemon(ctx, s.conn, d); err != nil {
				return nil, err
			}
		}
	}
	id, err := s.conn.CreateTarget(ctx, "about:blank")
	if err != nil {
		return nil, err
	}
	if err := s.attach(ctx, id); err != nil {
		return nil, err
	}
	return s, nil
}

// attach makes the tab id the one the side measures: it attaches to it
// twice, one session with the Page domain and Performance counting wall
// time (DevTools' default), one with Performance counting the thread's CPU
// time, which a busy machine's scheduling does not inflate, and subscribes
// to the first session's events.
func (s *side) attach(ctx context.Context, id string) error {
	var err error
	if s.tab, err = s.conn.Attach(ctx, id); err != nil {
		return fmt.Errorf("%s browser: %w", s.name, err)
	}
	if s.cpuTab, err = s.conn.Attach(ctx, id); err != nil {
		return fmt.Errorf("%s browser: %w", s.name, err)
	}
	s.events, s.unsub = s.conn.Subscribe(s.tab.ID, 4096)
	for _, c := range []struct {
		session *cdp.Session
		method  string
		params  any
	}{
		{s.tab, "Page.enable", nil},
		{s.tab, "Page.setLifecycleEventsEnabled", map[string]any{"enabled": true}},
		{s.tab, "Performance.enable", map[string]any{"timeDomain": "timeTicks"}},
		{s.cpuTab, "Performance.enable", map[string]any{"timeDomain": "threadTicks"}},
	} {
		if err := c.session.Call(ctx, c.method, c.params, nil); err != nil {
			return fmt.Errorf("%s browser: %w", s.name, err)
		}
	}
	return nil
}

// inTab runs fn on the side's tab, or, with -new-tab, on a new tab: a blank
// one it opens (Target.createTarget, as a new tab starts), attaches to and
// measures through while fn runs, then closes, waiting until the browser no
// longer lists it, and the side is back on its first tab.
func (s *side) inTab(ctx context.Context, fn func() error) (err error) {
	if !*newTab {
		return fn()
	}
	first := *s
	id, err := s.conn.CreateTarget(ctx, "about:blank")
	if err != nil {
		return fmt.Errorf("%s browser: opening a new tab: %w", s.name, err)
	}
	defer func() {
		if s.unsub != nil { // the new tab's subscription
			s.unsub()
		}
		s.tab, s.cpuTab, s.events, s.unsub = first.tab, first.cpuTab, first.events, first.unsub
		if cerr := s.closeTab(context.WithoutCancel(ctx), id); err == nil {
			err = cerr
		}
	}()
	s.unsub = nil
	if err := s.attach(ctx, id); err != nil {
		return err
	}
	return fn()
}

// closeTab closes the tab id and waits up to 15 s until the browser no
// longer lists it, so that the next load does not start while it closes.
func (s *side) closeTab(ctx context.Context, id string) error {
	if err := s.conn.CloseTarget(ctx, id); err != nil {
		return fmt.Errorf("%s browser: closing a tab: %w", s.name, err)
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		ts, err := s.conn.Targets(ctx)
		if err != nil {
			return fmt.Errorf("%s browser: %w", s.name, err)
		}
		if !slices.ContainsFunc(ts, func(t cdp.TargetInfo) bool { return t.TargetID == id }) {
			return nil
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("%s browser: a closed tab was still listed after 15 s", s.name)
}

// load measures url's load as navigate does, in the side's tab or, with
// -new-tab, in a new one (inTab).
func (s *side) load(ctx context.Context, url string, settle time.Duration) (smp sample, err error) {
	err = s.inTab(ctx, func() error {
		smp, err = s.navigate(ctx, url, settle)
		return err
	})
	return smp, err
}

// close stops the side's browser (its process group, by PID).
func (s *side) close() {
	if s.unsub != nil {
		s.unsub()
	}
	if s.conn != nil {
		s.conn.Close()
	}
	s.browser.Stop()
}

// waitUnreachable waits up to 20 s until the extension of s, paired, says
// it cannot reach the daemon (its stored status, read in its popup, which
// it opens in a tab and closes): -daemon=false measures that state.
func waitUnreachable(ctx context.Context, s *side) error {
	p, err := chromium.OpenPopup(ctx, s.conn)
	if err != nil {
		return err
	}
	defer p.Close(context.WithoutCancel(ctx))
	var st struct {
		Paired    bool   `json:"paired"`
		Reachable *bool  `json:"daemon_reachable"`
		LastError string `json:"last_error"`
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		var raw json.RawMessage
		if err := p.Eval(ctx, `chrome.storage.local.get("status").then((g) => g.status ?? {})`, &raw); err != nil {
			return fmt.Errorf("reading the extension's status: %w", err)
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			return fmt.Errorf("decoding the extension's status %s: %w", raw, err)
		}
		if st.Paired && st.Reachable != nil && !*st.Reachable {
			logf("the extension, paired, reports: %s", st.LastError)
			return nil
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("the restarted extension did not report the daemon unreachable within 20 s (paired %t, last error %q)", st.Paired, st.LastError)
}

// restart stops the side's browser and starts it again from its profile,
// its extension (if it has one) not paired again: the profile's second
// launch, as a user's browser started another day.
func (s *side) restart(ctx context.Context) error {
	s.close()
	started, err := startSide(ctx, s.name, s.bin, s.extDir, s.dir, nil)
	if err != nil {
		return fmt.Errorf("restarting the %s browser: %w", s.name, err)
	}
	*s = *started
	return nil
}

// version is the browser's product name and version.
func (s *side) version(ctx context.Context) (string, error) {
	var v struct {
		Product string `json:"product"`
	}
	if err := s.conn.Call(ctx, "", "Browser.getVersion", nil, &v); err != nil {
		return "", err
	}
	return v.Product, nil
}

// loadAvg is the machine's 1-minute load average, "?" when unknown.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// counters are the tab's Performance.getMetrics by name, in wall and in
// CPU time.
type counters struct{ wall, cpu map[string]float64 }

func (s *side) counters(ctx context.Context) (counters, error) {
	var c counters
	var err error
	if c.wall, err = s.metrics(ctx, s.tab); err != nil {
		return c, err
	}
	c.cpu, err = s.metrics(ctx, s.cpuTab)
	return c, err
}

// metrics reads one session's Performance.getMetrics by name.
func (s *side) metrics(ctx context.Context, tab *cdp.Session) (map[string]float64, error) {
	var r struct {
		Metrics []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"metrics"`
	}
	if err := tab.Call(ctx, "Performance.getMetrics", nil, &r); err != nil {
		return nil, fmt.Errorf("%s browser: %w", s.name, err)
	}
	m := make(map[string]float64, len(r.Metrics))
	for _, x := range r.Metrics {
		m[x.Name] = x.Value
	}
	return m, nil
}

// navigate loads url in the side's tab and measures it: the renderer's
// main-thread time of the new document from its start to settle after its
// load event, then the page's load time and frame count.
//
// Chromium gives each new document a Performance agent of its own, whose
// counters start at zero (the navigation's own cost, nothing of the
// document before): navigate reads the counters once more when the
// navigation commits, and counts from zero when they went back, or from
// the reading before Page.navigate when they kept counting. Nothing else
// calls into the page until the final reading.
func (s *side) navigate(ctx context.Context, url string, settle time.Duration) (sample, error) {
	before, err := s.counters(ctx)
	if err != nil {
		return sample{}, err
	}
	for drained := false; !drained; {
		select {
		case <-s.events:
		default:
			drained = true
		}
	}
	var nav struct {
		FrameID   string `json:"frameId"`
		LoaderID  string `json:"loaderId"`
		ErrorText string `json:"errorText"`
	}
	if err := s.tab.Call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return sample{}, fmt.Errorf("%s browser: %w", s.name, err)
	}
	if nav.ErrorText != "" {
		return sample{}, fmt.Errorf("%s browser: navigating to %s: %s", s.name, url, nav.ErrorText)
	}
	var committed counters
	err = s.waitLoad(ctx, nav.FrameID, nav.LoaderID, url, func() error {
		committed, err = s.counters(ctx)
		return err
	})
	if err != nil {
		return sample{}, err
	}
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return sample{}, ctx.Err()
	}
	after, err := s.counters(ctx)
	if err != nil {
		return sample{}, err
	}
	var timing struct {
		ResponseEnd                float64 `json:"responseEnd"`
		DomContentLoadedEventStart float64 `json:"domContentLoadedEventStart"`
		LoadEventStart             float64 `json:"loadEventStart"`
		LoadEventEnd               float64 `json:"loadEventEnd"`
	}
	if err := s.tab.Evaluate(ctx, `performance.getEntriesByType("navigation")[0].toJSON()`, &timing); err != nil {
		return sample{}, fmt.Errorf("%s browser: %w", s.name, err)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	var tree struct {
		FrameTree frameTree `json:"frameTree"`
	}
	if err := s.tab.Call(ctx, "Page.getFrameTree", nil, &tree); err != nil {
		return sample{}, fmt.Errorf("%s browser: %w", s.name, err)
	}
	if *verbose {
		logf("%s %s: CPU counters before %.1f ms, at commit %.1f ms, after %.1f ms", s.name, url,
			before.cpu["TaskDuration"]*1e3, committed.cpu["TaskDuration"]*1e3, after.cpu["TaskDuration"]*1e3)
	}
	return sample{
		cpu:    spent(before.cpu, committed.cpu, after.cpu, "TaskDuration"),
		wall:   spent(before.wall, committed.wall, after.wall, "TaskDuration"),
		script: spent(before.cpu, committed.cpu, after.cpu, "ScriptDuration"),
		load:   ms(timing.LoadEventEnd),
		phases: phases{response: ms(timing.ResponseEnd), dcl: ms(timing.DomContentLoadedEventStart), loadAt: ms(timing.LoadEventStart)},
		frames: tree.FrameTree.count(),
	}, nil
}

// spent is the counter name's growth over a navigation: its value after,
// when the counters started again at the commit (a new document's agent),
// else after − before.
func spent(before, committed, after map[string]float64, name string) time.Duration {
	v := after[name]
	if committed["TaskDuration"] >= before["TaskDuration"] {
		v -= before[name]
	}
	return time.Duration(v * float64(time.Second))
}

// frameTree is Page.getFrameTree's tree, reduced to its shape.
type frameTree struct {
	ChildFrames []frameTree `json:"childFrames"`
}

func (t frameTree) count() int {
	n := 1
	for _, c := range t.ChildFrames {
		n += c.count()
	}
	return n
}

// waitLoad waits for the load lifecycle event of the navigation
// (frameID, loaderID), calling onCommit once when it commits (the main
// frame's Page.frameNavigated).
func (s *side) waitLoad(ctx context.Context, frameID, loaderID, url string, onCommit func() error) error {
	timeout := time.NewTimer(navTimeout)
	defer timeout.Stop()
	committed := false
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return fmt.Errorf("%s browser: the DevTools connection ended while loading %s", s.name, url)
			}
			switch ev.Method {
			case "Page.frameNavigated":
				var p struct {
					Frame struct {
						ID       string `json:"id"`
						LoaderID string `json:"loaderId"`
					} `json:"frame"`
				}
				if !committed && json.Unmarshal(ev.Params, &p) == nil && p.Frame.ID == frameID {
					committed = true
					if err := onCommit(); err != nil {
						return err
					}
				}
			case "Page.lifecycleEvent":
				var p struct {
					FrameID  string `json:"frameId"`
					LoaderID string `json:"loaderId"`
					Name     string `json:"name"`
				}
				if json.Unmarshal(ev.Params, &p) == nil && p.Name == "load" && p.FrameID == frameID && (loaderID == "" || p.LoaderID == loaderID) {
					if !committed {
						return fmt.Errorf("%s browser: %s loaded without a Page.frameNavigated event", s.name, url)
					}
					return nil
				}
			}
		case <-timeout.C:
			return fmt.Errorf("%s browser: %s did not fire its load event within %v", s.name, url, navTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
