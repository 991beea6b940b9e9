package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Effects are what an action caused, beside its result: the extension
// reports the navigation (navigated with url_before, url, title, loading;
// or navigation_failed, url and error, when one began and never replaced
// the page), the requests the action started with their status
// (more_requests beyond five), the tabs it opened (new_tabs, more_tabs
// beyond five), dialogs (with popups Chrome blocked), whether
// everything it started landed within its settle time (settled, or
// pending), the page's long-lived requests, which settling does not
// wait for (streaming: event streams, WebSockets, long polls), and what
// the action changed on the page (changed: text and controls with refs
// that appeared or went away, controls' states, value, focus, title;
// about 60 tokens at most, the rest stored apart and named in rest:
// result.ChangedSuffix); the daemon adds the
// errors and failed requests the capture buffers hold for the tab from when
// the action was queued to when its result arrived. The extension delivers
// the tab's capture events before it posts the result (flushAfter in
// extension/capture/worker.js), so
// that window is complete when the result is, and every read of the result
// gives the same effects.

// maxEffectsListed is how many errors or requests effects quote.
const maxEffectsListed = 3

// effectsView is the daemon's part of an action's effects.
type effectsView struct {
	Errors         *eventCount `json:"errors,omitempty"`          // uncaught errors and console errors
	FailedRequests *eventCount `json:"failed_requests,omitempty"` // no response, or status >= 400
}

// eventCount is a count and the first few, in a line each.
type eventCount struct {
	Count int      `json:"count"`
	First []string `json:"first"`
}

func (c *eventCount) add(line string) {
	c.Count++
	if len(c.First) < maxEffectsListed {
		c.First = append(c.First, line)
	}
}

// presentEffects adds the capture buffers' effects to a complete DOM
// action's result, merged into the "effects" the extension reported.
func (t *Tools) presentEffects(c tracker.Command, v *commandView) {
	if t.d.Capture == nil || len(v.Result) == 0 || v.Result[0] != '{' {
		return
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(v.Result, &res) != nil {
		return
	}
	var tab int64
	if json.Unmarshal(res["tab_id"], &tab) != nil || tab == 0 {
		return
	}
	if c.FinishedAt == nil {
		return
	}
	eff := t.captureEffects(tab, c.CreatedAt, *c.FinishedAt)
	if eff.Errors == nil && eff.FailedRequests == nil {
		return
	}
	merged := map[string]json.RawMessage{}
	json.Unmarshal(res["effects"], &merged)
	if eff.Errors != nil {
		merged["errors"], _ = json.Marshal(eff.Errors)
	}
	if eff.FailedRequests != nil {
		merged["failed_requests"], _ = json.Marshal(eff.FailedRequests)
	}
	res["effects"], _ = json.Marshal(merged)
	v.Result, _ = json.Marshal(res)
}

// captureEffects reads the tab's errors, console errors and failed
// requests stamped between from and to.
func (t *Tools) captureEffects(tab int64, from, to time.Time) effectsView {
	var eff effectsView
	in := func(ts int64) bool {
		at := time.UnixMilli(ts)
		return !at.Before(from.Add(-50*time.Millisecond)) && !at.After(to)
	}
	read := func(f capture.Filter) []capture.View {
		f.TabID, f.Limit = &tab, capture.MaxLimit
		p, err := t.d.Capture.Query(f)
		if err != nil {
			t.d.Log.Warn().Err(err).Msg("reading effects from the capture buffers")
			return nil
		}
		return p.Entries
	}
	errs := &eventCount{First: []string{}}
	for _, e := range read(capture.Filter{Kind: capture.KindError}) {
		if ev, ok := e.(*capture.ErrorView); ok && in(ev.TS) {
			errs.add(clipLine(ev.Message))
		}
	}
	for _, e := range read(capture.Filter{Kind: capture.KindLog, Level: "error"}) {
		if lv, ok := e.(*capture.LogView); ok && in(lv.TS) {
			errs.add("console: " + clipLine(lv.Message))
		}
	}
	if errs.Count > 0 {
		eff.Errors = errs
	}
	reqs := &eventCount{First: []string{}}
	for _, status := range []string{"failed", ">=400"} {
		for _, e := range read(capture.Filter{Kind: capture.KindNetwork, Status: status}) {
			nv, ok := e.(*capture.NetworkView)
			if !ok || !in(nv.TS) || (status == ">=400" && nv.Status == 0) {
				continue
			}
			what := fmt.Sprint(nv.Status)
			if nv.Status == 0 {
				what = "failed"
				if nv.Error != "" {
					what += ": " + nv.Error
				}
			}
			reqs.add(fmt.Sprintf("%s %s → %s", nv.Method, clipLine(nv.URL), what))
		}
	}
	if reqs.Count > 0 {
		eff.FailedRequests = reqs
	}
	return eff
}

// clipLine keeps a quoted event to one short line.
func clipLine(s string) string {
	const max = 160
	r := []rune(s)
	for i, c := range r {
		if c == '\n' {
			r = r[:i]
			break
		}
	}
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return string(r)
}
