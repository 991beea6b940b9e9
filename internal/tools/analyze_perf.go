package tools

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gasoline-mcp/gasoline/internal/perf"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// perfModes is analyze's performance mode: what made the page slow, from
// what the browser measured (extension/perf/collect.js), ranked by
// internal/perf.
func perfModes() []action {
	p := browser[summaryArgs]("performance", "perf", "what made the page slow, biggest first")
	p.present = (*Tools).presentPerf
	asAnalyze(&p)
	return []action{p}
}

// shownCauses is how many causes the inline result shows; the rest, with
// every measurement, are read from the stored report.
const shownCauses = 4

// perfView is analyze performance's answer.
type perfView struct {
	URL    string       `json:"url"`
	TabID  int64        `json:"tab_id"`
	Vitals vitalsView   `json:"vitals"`
	Causes []perf.Cause `json:"causes"`
	More   int          `json:"more,omitempty"`
	// Unmeasured is what this browser cannot measure, with the reason
	// (perf.Unmeasured): absent from vitals and causes for that reason.
	Unmeasured []string `json:"unmeasured,omitempty"`
}

// vitalsView are the page's vitals in whole milliseconds (CLS to three
// decimals); zero ones were not measured and are left out.
type vitalsView struct {
	LCP  int     `json:"lcp_ms,omitempty"`
	CLS  float64 `json:"cls,omitempty"`
	INP  int     `json:"inp_ms,omitempty"`
	FCP  int     `json:"fcp_ms,omitempty"`
	TTFB int     `json:"ttfb_ms,omitempty"`
}

// presentPerf ranks the collector's report and shows the biggest causes;
// when there are more, the whole report is made readable under the
// command's correlation id.
func (t *Tools) presentPerf(c tracker.Command, v *commandView) {
	raw := string(c.Result)
	if _, isStored := result.StoredOf(c); isStored {
		var err error
		if raw, err = t.d.Results.ContentOf(c); err != nil {
			return
		}
	}
	var r perf.Report
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return // not a report: leave it as the extension sent it
	}
	causes := perf.Rank(r)
	round := func(f float64) int { return int(math.Round(f)) }
	pv := perfView{URL: r.URL, TabID: r.TabID, Causes: causes[:min(shownCauses, len(causes))],
		Vitals: vitalsView{LCP: round(r.Vitals.LCP), CLS: math.Round(r.Vitals.CLS*1000) / 1000, INP: round(r.Vitals.INP),
			FCP: round(r.Vitals.FCP), TTFB: round(r.Vitals.TTFB)}, Unmeasured: perf.Unmeasured(r)}
	if len(pv.Causes) == 0 {
		pv.Causes = []perf.Cause{}
		v.Message = "Nothing measured stands out: no interaction of 104 ms or more, render-blocking resource, layout shift, long frame, or LCP over 2.5 s. " +
			"Interact with the page (a click or typing that felt slow), then ask again."
		if len(pv.Unmeasured) > 0 {
			v.Message += " This browser does not measure everything: see unmeasured."
		}
	}
	if len(causes) > shownCauses {
		pv.More = len(causes) - shownCauses
		if err := t.d.Results.Readable(c); err != nil {
			t.d.Log.Warn().Err(err).Str("correlation_id", c.ID).Msg("storing the performance report failed")
		}
		v.Message = fmt.Sprintf(`%d smaller causes not shown; every measurement (frames, scripts, shifts, resources): observe({what:"command_result", correlation_id:%q, mode:"extract", query:"<what you need>"})`, pv.More, c.ID)
	}
	v.Result, _ = json.Marshal(pv)
}
