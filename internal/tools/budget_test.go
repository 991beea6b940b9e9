package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/perf"
	"github.com/gasoline-mcp/gasoline/internal/result"
)

// Response budgets, in characters of the text content an agent reads (every
// response costs it context): issue 12, part 4.
const (
	budgetCompleted = 180 // a simple completed result: execute_js of document.title
	budgetHandle    = 160 // interact's queued handle
	budgetReminder  = 80  // what the async reminder adds for one unread result
	budgetFence     = 48  // what the page fence adds to a result: 12 estimated tokens (characters / 4)
)

// TestResponseBudgets holds each response kind to its budget, with the ids
// and the result the real daemon and extension produce.
func TestResponseBudgets(t *testing.T) {
	e := newEnv(t)
	present := func() { // an extension polling, as when the agent works
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		e.trk.Poll(ctx, "ext", 0)
	}
	present()
	h := e.call(t, "agent", "interact", `{"action":"execute_js","script":"document.title"}`)
	first := h.field("correlation_id").(string)
	check(t, "queued handle", h.Text, budgetHandle)

	e.delivered(t)
	page := `{"value":"Home Page","tab_id":1794230512,"url":"https://example.com/"}`
	if _, err := e.keep.Report("ext", reportOf(first, page)); err != nil {
		t.Fatal(err)
	}
	present()
	h2 := e.call(t, "agent", "interact", `{"action":"execute_js","script":"document.title"}`)
	second := h2.field("correlation_id").(string)
	e.delivered(t)
	if _, err := e.keep.Report("ext", reportOf(second, page)); err != nil {
		t.Fatal(err)
	}

	// Reading the first with the second unread carries the reminder.
	withReminder := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+first+`"}`)
	if withReminder.field("async", "ready") == nil {
		t.Fatalf("got %s, want the second result in the async reminder", withReminder.Text)
	}
	alone := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+second+`"}`)
	if alone.field("async") != nil {
		t.Fatalf("got %s, want no reminder once everything is read", alone.Text)
	}
	// The page fence, measured in characters (the markers' brackets are one
	// each), and the result without it.
	unfenced := strings.Replace(strings.Replace(alone.Text, `,"`+string(pageFence.open)+`":""`, "", 1), `,"`+string(pageFence.close)+`":""`, "", 1)
	cost := utf8.RuneCountInString(alone.Text) - utf8.RuneCountInString(unfenced)
	t.Logf("page fence: %d characters, %d estimated tokens (budget %d characters)", cost, (cost+3)/4, budgetFence)
	if cost == 0 || cost > budgetFence {
		t.Errorf("the page fence adds %d characters to a result, want 1 to %d:\n%s", cost, budgetFence, alone.Text)
	}
	check(t, "completed result", unfenced, budgetCompleted)
	// A tool error's message is fenced too, at the same cost.
	bad := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"exec_unknown"}`)
	unfencedErr := strings.Replace(strings.Replace(bad.Text, `,"`+string(pageFence.open)+`":""`, "", 1), `,"`+string(pageFence.close)+`":""`, "", 1)
	errCost := utf8.RuneCountInString(bad.Text) - utf8.RuneCountInString(unfencedErr)
	t.Logf("page fence of a tool error: %d characters, %d estimated tokens (budget %d characters)", errCost, (errCost+3)/4, budgetFence)
	if errCost == 0 || errCost > budgetFence {
		t.Errorf("the page fence adds %d characters to a tool error, want 1 to %d:\n%s", errCost, budgetFence, bad.Text)
	}
	extra := len(withReminder.Text) - len(alone.Text)
	t.Logf("async reminder for one unread result: %d characters more (budget %d)", extra, budgetReminder)
	if extra > budgetReminder {
		t.Errorf("the async reminder for one unread result adds %d characters, budget %d:\n%s", extra, budgetReminder, withReminder.Text)
	}

	verbose := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+second+`","verbose":true}`)
	for _, f := range []string{"action", "created_at", "finished_at", "duration_ms"} {
		if verbose.field(f) == nil {
			t.Errorf("verbose result lacks %s: %s", f, verbose.Text)
		}
	}
}

func check(t *testing.T, kind, text string, budget int) {
	t.Helper()
	if len(text) > budget {
		t.Errorf("%s is %d characters, budget %d:\n%s", kind, len(text), budget, text)
	}
	t.Logf("%s: %d characters (budget %d)", kind, len(text), budget)
}

// TestPerformanceResultBudget holds analyze performance's answer to its
// budget for the largest report the collector sends (every list at its
// bound: extension/perf/collect.js), stored behind the command's id: the
// biggest causes inline, every measurement readable by extract.
func TestPerformanceResultBudget(t *testing.T) {
	const budgetPerf = 1800 // characters: 4 causes with their evidence, the vitals, the pointer to the rest
	e := newEnv(t)
	q := e.call(t, "agent", "analyze", `{"what":"performance"}`)
	id := q.field("correlation_id").(string)
	e.delivered(t)
	// Every cause a culprit of its own (one culprit's repeats are one
	// cause), with long names and URLs.
	longURL := func(i int) string {
		return fmt.Sprintf("https://cdn.example.com/assets/js/%sa1b2c3-%d.js", strings.Repeat("chunk-", 12), i)
	}
	element := func(i int) perf.Element {
		return perf.Element{Ref: fmt.Sprintf("e%d", 1000+i), Role: "button", Name: strings.Repeat("Add to basket ", 5)}
	}
	el := element(99)
	long := longURL(99)
	r := perf.Report{URL: "https://shop.example.com/p/1", TabID: 1794230512,
		Vitals: perf.Vitals{LCP: 4100, LCPElement: &el, LCPURL: long, CLS: 0.42, INP: 640, FCP: 1900, TTFB: 300}}
	for i := range 10 {
		el, long := element(i), longURL(i)
		s := perf.Script{MS: 300, URL: long, Fn: "handleClickWithAVeryLongName", Char: 123456, Invoker: "BUTTON#add-to-basket.onclick", Type: "event-listener"}
		r.Interactions = append(r.Interactions, perf.Interaction{Type: "click", Start: float64(5000 * i), MS: 640 - float64(i), Delay: 20, Processing: 600, Presentation: 20, Target: &el, Script: &s})
		r.Blocking = append(r.Blocking, perf.Resource{URL: long, Type: "script", MS: 900})
		r.Shifts = append(r.Shifts, perf.Shift{Start: 900, Value: 0.1, Sources: []perf.Element{el, el, el},
			Image: &perf.Image{Element: el, URL: long, Loaded: 880}})
	}
	for i := range 20 {
		long := longURL(100 + i)
		r.Frames = append(r.Frames, perf.Frame{Start: float64(100000 + 1000*i), MS: 300, Blocking: 250,
			Scripts: []perf.Script{{MS: 200, URL: long, Fn: "render", Char: 99}, {MS: 50, URL: long}, {MS: 20, URL: long}}})
		r.LongTasks = append(r.LongTasks, perf.Task{Start: float64(100000 + 1000*i), MS: 300})
	}
	raw, _ := json.Marshal(r)
	if _, err := e.keep.Report("ext", reportOf(id, string(raw))); err != nil {
		t.Fatal(err)
	}
	got := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	if n := len(got.field("result", "causes").([]any)); n != shownCauses {
		t.Fatalf("%d causes shown, want %d: %s", n, shownCauses, got.Text)
	}
	if more, _ := got.field("result", "more").(float64); int(more) != 10+10+10+20+1-shownCauses {
		t.Errorf("more %v, want every other cause counted: %s", more, got.Text)
	}
	t.Logf("%s", got.Text)
	check(t, "performance result", got.Text, budgetPerf)
	ex := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`","mode":"extract","query":"render"}`)
	if !strings.Contains(ex.Text, "render") {
		t.Errorf("extract of the stored report lacks the frames' scripts: %s", ex.Text)
	}
}

// budgetAudit bounds an accessibility result as an agent reads it: the
// rules within DefaultAuditTokens, and the envelope and message around
// them.
const budgetAudit = DefaultAuditTokens*4 + 800

// TestAuditBudget holds an accessibility result of a page with many
// violations (12 rules, 100 elements each, as the extension caps them) to
// budgetAudit, and its whole report stays readable by correlation id.
func TestAuditBudget(t *testing.T) {
	e := newEnv(t)
	q := e.call(t, "agent", "analyze", `{"what":"accessibility"}`)
	id := q.field("correlation_id").(string)
	e.delivered(t)
	if _, err := e.keep.Report("ext", reportOf(id, bigAudit(12, 100, ""))); err != nil {
		t.Fatal(err)
	}
	r := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	check(t, "accessibility result", r.Text, budgetAudit)
	if r.field("result", "omitted") == nil || r.field("result", "rules") == nil {
		t.Errorf("got %s, want rules and what was omitted", r.Text)
	}
	whole := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`","mode":"extract","query":"rule-11"}`)
	if !strings.Contains(whole.Text, "rule-11") {
		t.Errorf("extract of the whole report: %.300s, want rule-11 found", whole.Text)
	}
}

// bigAudit is an extension's accessibility report of rules rules with
// nodes elements each, in format.
func bigAudit(rules, nodes int, format string) string {
	var b strings.Builder
	b.WriteString(`{"rules":[`)
	for i := range rules {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"rule-%d","impact":"serious","help":"Elements must do thing %d","help_url":"https://dequeuniversity.com/rules/axe/4.14/rule-%d","tags":["wcag2aa"],"count":%d,"nodes":[`, i, i, i, nodes)
		for n := range nodes {
			if n > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"ref":"e%d","role":"link","name":"Item %d of a long list","target":"#list > li:nth-child(%d) > a","summary":"Fix any of the following: Element has insufficient color contrast of 2.1","html":"<a href=\"/item/%d\">Item %d of a long list</a>"}`, i*nodes+n, n, n, n, n)
		}
		b.WriteString("]}")
	}
	fmt.Fprintf(&b, `],"review":[],"passes":30,"axe_version":"4.14.1","tab_id":3,"url":"https://example.com/","title":"Big","format":%q}`, format)
	return b.String()
}

// TestMoveResultBudgets holds the answers of fill_form, drag and resize,
// read back as an agent reads a completed command, to their budgets, with
// results shaped as the extension sends them (extension/actions/runtime.js,
// dom.js, moves.js) and the daemon's default inline limit (10 000
// estimated tokens), so that what is measured is the inline answer.
func TestMoveResultBudgets(t *testing.T) {
	var keep *result.Keeper
	e := newEnv(t, func(d *Deps) {
		keep = result.NewKeeper(d.Tracker, output.New(output.Options{}), d.Log)
		d.Results = keep
	})
	e.keep = keep
	field := func(i int, name, value string) string {
		return fmt.Sprintf(`{"ref":"e%d","role":"textbox","name":%q,"value":%q}`, 1000+i, name, value)
	}
	envelope := func(inner string) string {
		return `{"tab_id":1794230512,"url":"https://shop.example.com/checkout/address?step=2",` + inner +
			`,"effects":{"requests":[{"method":"POST","url":"https://shop.example.com/api/validate-address","status":200}],"settled":true}}`
	}
	// The 8 kinds of field of the e2e test: text, password (never echoed),
	// textarea, select, multiple select, checkbox, radio, contenteditable.
	typical := []string{field(0, "Full name", "Ada Lovelace"), `{"ref":"e1001","role":"textbox","name":"Password","secret":true}`,
		field(2, "Bio", "Line one\nLine two"), `{"ref":"e1003","role":"combobox","name":"Color","selected":["Green"]}`,
		`{"ref":"e1004","role":"listbox","name":"Tags","selected":["x","z"]}`, `{"ref":"e1005","role":"checkbox","name":"Newsletter","checked":true,"changed":true}`,
		`{"ref":"e1006","role":"radio","name":"Large","checked":true,"changed":true}`, field(7, "Notes", "Hello")}
	// The most fields one call takes, each with a long label and value.
	var most []string
	for i := range maxFormFields {
		most = append(most, field(i, strings.Repeat("Billing address line ", 3)[:60], strings.Repeat("221B Baker Street ", 3)[:48]))
	}
	// A long text comes back as its first 60 characters and its length
	// (fieldOutcome in runtime.js), so 50 letters answer inline.
	var huge []string
	for i := range maxFormFields {
		letter := strings.Repeat("Dear Sir or Madam, ", 200)
		huge = append(huge, strings.TrimSuffix(field(i, "Letter", letter[:59]+"…"), "}")+fmt.Sprintf(`,"chars":%d}`, len(letter)))
	}
	for _, c := range []struct {
		name, args, result string
		budget             int // characters
		stored             bool
	}{
		{"fill_form of 8 fields", `{"action":"fill_form","fields":[{"target":"#a","value":"x"}]}`, envelope(`"fields":[` + strings.Join(typical, ",") + `]`), 1300, false},
		{"fill_form of 50 long fields", `{"action":"fill_form","fields":[{"target":"#a","value":"x"}]}`, envelope(`"fields":[` + strings.Join(most, ",") + `]`), 9000, false},
		{"fill_form of 50 letters", `{"action":"fill_form","fields":[{"target":"#a","value":"x"}]}`, envelope(`"fields":[` + strings.Join(huge, ",") + `]`), 7500, false},
		{"drag (HTML5, refused)", `{"action":"drag","target":"#card2","to":"#nodrop"}`,
			envelope(`"to":{"ref":"e1042","role":"region","name":"Drop zone that refuses"},"mode":"html5","dropped":false,` +
				`"note":"the element under the drop point did not accept the drop (no dragover listener called preventDefault)"`), 800, false},
		{"resize (refused by the screen)", `{"action":"resize","width":375,"height":667}`,
			`{"tab_id":1794230512,"url":"https://shop.example.com/checkout/address?step=2","viewport":{"width":500,"height":667},"window":{"width":500,"height":754},` +
				`"note":"the viewport is 500x667, not 375x667: Chrome draws no window narrower than 500 px on this screen; use a wider size or emulation"}`, 700, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := e.call(t, "agent", "interact", c.args)
			id, _ := q.field("correlation_id").(string)
			if id == "" {
				t.Fatalf("interact %s: got %s, want a queued command", c.args, q.Text)
			}
			e.delivered(t)
			if _, err := e.keep.Report("ext", reportOf(id, c.result)); err != nil {
				t.Fatal(err)
			}
			got := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
			if got.IsError || got.field("result") == nil || (got.field("result", "stored") == true) != c.stored {
				t.Fatalf("got %.300s, want the result %s", got.Text, map[bool]string{false: "inline", true: "stored behind a handle"}[c.stored])
			}
			t.Logf("%s: ~%d tokens", c.name, (len(got.Text)+3)/4)
			check(t, c.name, got.Text, c.budget)
		})
	}
}
