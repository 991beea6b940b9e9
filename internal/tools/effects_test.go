package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// TestPresentEffects merges the tab's errors, console errors and failed
// requests stamped during an action into the effects the extension
// reported, and leaves out other tabs' and earlier events.
func TestPresentEffects(t *testing.T) {
	capt := capture.New(capture.Options{})
	t.Cleanup(capt.Close)
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	tl := New(Deps{Tracker: trk, Capture: capt, Log: zerolog.Nop()})

	created := time.Now().Add(-time.Second)
	finished := created.Add(200 * time.Millisecond)
	ms := func(at time.Time) float64 { return float64(at.UnixMilli()) }
	body := fmt.Sprintf(`{"events":[
		{"kind":"error","ts":%[1]v,"tab_id":7,"page_url":"http://x/","type":"uncaught","message":"TypeError: x is undefined\n    at f (app.js:1)"},
		{"kind":"log","ts":%[1]v,"tab_id":7,"page_url":"http://x/","level":"error","message":"save failed"},
		{"kind":"log","ts":%[1]v,"tab_id":7,"page_url":"http://x/","level":"info","message":"fine"},
		{"kind":"network","ts":%[1]v,"tab_id":7,"page_url":"http://x/","request_id":"1","method":"POST","url":"http://x/api/save","status":500,"resource_type":"fetch","source":"page"},
		{"kind":"network","ts":%[1]v,"tab_id":7,"page_url":"http://x/","request_id":"2","method":"GET","url":"http://x/ok","status":200,"resource_type":"fetch","source":"page"},
		{"kind":"error","ts":%[2]v,"tab_id":7,"page_url":"http://x/","type":"uncaught","message":"before the action"},
		{"kind":"error","ts":%[1]v,"tab_id":8,"page_url":"http://y/","type":"uncaught","message":"another tab"},
		{"kind":"error","ts":%[3]v,"tab_id":7,"page_url":"http://x/","type":"uncaught","message":"after the result"}
	]}`, ms(created.Add(100*time.Millisecond)), ms(created.Add(-time.Minute)), ms(finished.Add(300*time.Millisecond)))
	if _, err := capt.IngestJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
	c := tracker.Command{ID: "act_1", Action: "click", State: tracker.StateComplete, CreatedAt: created, FinishedAt: &finished,
		Result: json.RawMessage(`{"tab_id":7,"url":"http://x/","effects":{"navigated":true,"url_before":"http://x/a"}}`)}
	v := tl.commandView(c, finished, false)
	var got struct {
		Effects struct {
			Navigated      bool       `json:"navigated"`
			URLBefore      string     `json:"url_before"`
			Errors         eventCount `json:"errors"`
			FailedRequests eventCount `json:"failed_requests"`
		} `json:"effects"`
	}
	if err := json.Unmarshal(v.Result, &got); err != nil {
		t.Fatal(err)
	}
	e := got.Effects
	if !e.Navigated || e.URLBefore != "http://x/a" {
		t.Errorf("the extension's effects were lost: %s", v.Result)
	}
	if e.Errors.Count != 2 || strings.Join(e.Errors.First, "|") != "TypeError: x is undefined|console: save failed" {
		t.Errorf("errors %+v, want the uncaught error (first line) and the console error, not the one after the result", e.Errors)
	}
	if e.FailedRequests.Count != 1 || e.FailedRequests.First[0] != "POST http://x/api/save → 500" {
		t.Errorf("failed requests %+v", e.FailedRequests)
	}

	quiet := tracker.Command{ID: "act_2", Action: "click", State: tracker.StateComplete, CreatedAt: created, FinishedAt: &finished,
		Result: json.RawMessage(`{"tab_id":9,"url":"http://z/"}`)}
	if v := tl.commandView(quiet, finished, false); string(v.Result) != `{"tab_id":9,"url":"http://z/"}` {
		t.Errorf("an action with no effects: %s, want the result unchanged", v.Result)
	}
}

// TestWaitingOn: while a click waits in the page for its target, the
// extension's pending posts say for what, and command_result shows it
// as waiting until the action answers.
func TestWaitingOn(t *testing.T) {
	e := newEnv(t)
	id := e.call(t, "agent", "interact", `{"action":"click","selector":"#save"}`).field("correlation_id").(string)
	e.delivered(t)
	on := "disabled: button 'Save' is disabled"
	if _, err := e.keep.Report("ext", apitype.QueryResult{CorrelationID: id, Status: "pending", WaitingOn: &on}); err != nil {
		t.Fatal(err)
	}
	r := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	if r.field("phase") != "running" || r.field("waiting") != on {
		t.Errorf("while it waits: got %s, want phase running, waiting %q", r.Text, on)
	}
	if _, err := e.keep.Report("ext", reportOf(id, `{"tab_id":3,"url":"http://x/"}`)); err != nil {
		t.Fatal(err)
	}
	r = e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	if r.field("status") != "complete" || r.field("waiting") != nil {
		t.Errorf("done: got %s, want complete, nothing waited on", r.Text)
	}
}

// TestChangedRest: when more changed than effects.changed holds, the
// action's result names the whole list in changed.rest (the list itself is
// not in it) and the agent reads it by that id with command_result's modes
// and resources/read, as page text between the fence's markers; another
// agent cannot.
func TestChangedRest(t *testing.T) {
	e := newEnv(t)
	id := e.call(t, "agent", "interact", `{"action":"click","selector":"#load"}`).field("correlation_id").(string)
	e.delivered(t)
	var all strings.Builder
	for i := range 20 { // within the env's 100-token inline limit, so raw reads it whole
		fmt.Fprintf(&all, "+ Row %d <paid>\n", i)
	}
	list, _ := json.Marshal(all.String())
	res := `{"tab_id":3,"url":"http://x/","effects":{"settled":true,"changed":{"appeared":["Row 0 <paid>"],"more":19,"all":` + string(list) + `}}}`
	if _, err := e.keep.Report("ext", reportOf(id, res)); err != nil {
		t.Fatal(err)
	}
	r := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	if strings.Contains(r.Text, `"all"`) {
		t.Errorf("the action's result carries the whole list: %s", r.Text)
	}
	rest, _ := r.field("result", "effects", "changed", "rest", "correlation_id").(string)
	if rest != id+result.ChangedSuffix || r.field("result", "effects", "changed", "more") != 19.0 {
		t.Fatalf("changed %v, want more 19 and rest naming %s", r.field("result", "effects", "changed"), id+result.ChangedSuffix)
	}

	// Without a mode, the rest's handle says how to read it.
	h := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+rest+`"}`)
	if hint, _ := h.field("output", "hint").(string); h.IsError || h.field("stored") != true || !strings.Contains(hint, `mode:"raw"`) {
		t.Errorf("command_result of the rest without a mode: %s, want its handle and how to read it", h.Text)
	}
	raw := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+rest+`","mode":"raw"}`)
	if raw.IsError || raw.field("content") != all.String() {
		t.Fatalf("raw read of the rest: %s", raw.Text)
	}
	open, row, closing := strings.Index(raw.Text, string(pageFence.open)), strings.Index(raw.Text, "Row 19"), strings.Index(raw.Text, string(pageFence.close))
	if open < 0 || open > row || row > closing {
		t.Errorf("the rest read whole is not fenced as page text: %.300s", raw.Text)
	}
	sl := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+rest+`","mode":"slice","anchor":"Row 15 ","window":30}`)
	if text, _ := sl.field("text").(string); !strings.Contains(text, "+ Row 15 <paid>") {
		t.Errorf("slice of the rest: %s", sl.Text)
	}
	read, _ := e.rpc(t, "agent", "resources/read", `{"uri":"gasoline://output/`+rest+`"}`, false)
	var rr struct{ Contents []struct{ Text string } }
	json.Unmarshal(read, &rr)
	if len(rr.Contents) != 1 || rr.Contents[0].Text != pageFence.fenceText(all.String()) {
		t.Errorf("resources/read of the rest: %.300s, want the list fenced", read)
	}
	for _, args := range []string{`,"mode":"raw"`, ``} {
		if other := e.call(t, "someone-else", "observe", `{"what":"command_result","correlation_id":"`+rest+`"`+args+`}`); !other.IsError || other.errorCode() != "unknown_correlation_id" {
			t.Errorf("another agent's read of the rest (%s): %s, want unknown_correlation_id", args, other.Text)
		}
	}
}
