package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
