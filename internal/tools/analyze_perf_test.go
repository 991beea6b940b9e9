package tools

import (
	"fmt"
	"strings"
	"testing"
)

// TestPerformanceQuietPage: a report with nothing over its threshold shows
// no causes, an empty list, and says what would show one.
func TestPerformanceQuietPage(t *testing.T) {
	e := newEnv(t)
	q := e.call(t, "agent", "analyze", `{"what":"performance"}`)
	id := q.field("correlation_id").(string)
	e.delivered(t)
	quiet := `{"url":"http://127.0.0.1:1/a","tab_id":7,"vitals":{"lcp_ms":300.4,"fcp_ms":200,"cls":0.0004},"blocking":[{"url":"http://127.0.0.1:1/a.css","ms":12}]}`
	if _, err := e.keep.Report("ext", reportOf(id, quiet)); err != nil {
		t.Fatal(err)
	}
	got := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	if c, ok := got.field("result", "causes").([]any); !ok || len(c) != 0 {
		t.Fatalf("causes %v, want an empty list: %s", got.field("result", "causes"), got.Text)
	}
	if lcp := got.field("result", "vitals", "lcp_ms"); lcp != float64(300) {
		t.Errorf("lcp_ms %v, want 300: %s", lcp, got.Text)
	}
	if msg, _ := got.field("message").(string); !strings.Contains(msg, "Nothing measured stands out") {
		t.Errorf("message %q, want it to say nothing stands out and what would: %s", msg, got.Text)
	}
}

// TestPerformanceUnmeasured: a browser that measures no layout shifts,
// long frames or long tasks, nor resources' render-blocking status
// (Firefox), gets a result that says so with the reason, and a quiet
// page's message points there: no silent "nothing stands out".
func TestPerformanceUnmeasured(t *testing.T) {
	e := newEnv(t)
	q := e.call(t, "agent", "analyze", `{"what":"performance"}`)
	id := q.field("correlation_id").(string)
	e.delivered(t)
	quiet := `{"url":"http://127.0.0.1:1/a","tab_id":7,"vitals":{"lcp_ms":300,"fcp_ms":200},"unmeasured":["long-animation-frame","longtask","layout-shift","render-blocking"]}`
	if _, err := e.keep.Report("ext", reportOf(id, quiet)); err != nil {
		t.Fatal(err)
	}
	got := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	un := fmt.Sprint(got.field("result", "unmeasured"))
	for _, want := range []string{"cls and layout shifts: this browser reports no layout-shift entries", "render-blocking resources: this browser gives resource timing no renderBlockingStatus",
		"long frames and long tasks, and the scripts behind slow interactions: this browser reports neither"} {
		if !strings.Contains(un, want) {
			t.Errorf("unmeasured %s, want %q", un, want)
		}
	}
	if msg, _ := got.field("message").(string); !strings.Contains(msg, "see unmeasured") {
		t.Errorf("message %q, want it to point at unmeasured", msg)
	}
}
