package testgen

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// maxShown bounds the text of an "appeared" record the assertion uses.
const maxShown = 80

// timeLike is a text that changes from run to run: a clock time or a date.
var timeLike = regexp.MustCompile(`\b\d{1,2}:\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b`)

// visibleText asserts the text that appeared after the last action: the
// recorder's "appeared" (or "agent_appeared") records of the last step that has them, unless a
// later step navigated (its text is then gone), and, when there are none,
// nothing. The text is page content, so it is written only inside a string
// literal (q) and never in a comment.
func (g *gen) visibleText() {
	var from *pstep
	for i := len(g.steps) - 1; i >= 0; i-- {
		s := g.steps[i]
		if len(s.shown) > 0 {
			from = s
			break
		}
		if len(s.navs) > 0 {
			return
		}
	}
	if from == nil {
		return
	}
	text, rec := chooseShown(from.shown)
	if rec == nil {
		g.res.Notes = append(g.res.Notes, fmt.Sprintf("visible text: what appeared after %s is numbers, times or secrets; not asserted", cmpOr(g.agent[from.a], fmt.Sprintf("action %d", from.a.ID))))
		return
	}
	code := fmt.Sprintf("await expect(page.getByText(%s, { exact: false })).toBeVisible();", q(text))
	ln := g.emit("  %s", code)
	by := fmt.Sprintf("the user's %s (action %d)", from.a.Type, from.a.ID)
	if cmd := g.agent[from.a]; cmd != "" {
		by = fmt.Sprintf("the agent's %s (command %s)", from.a.Type, cmd)
	}
	g.res.Assertions = append(g.res.Assertions, Assertion{Line: ln, Code: code, Sources: []uint64{rec.ID},
		Evidence: fmt.Sprintf("text that appeared on %s after %s: %s", cmpOr(rec.PageURL, "the page"), by, q(text))})
}

// chooseShown picks the text least likely to match another element or to
// change between runs: the shortest snippet that has a letter, no time or
// date, no redaction, and 3 characters or more; its record, or nil for
// none.
func chooseShown(recs []*capture.ActionView) (string, *capture.ActionView) {
	var best string
	var from *capture.ActionView
	for _, r := range recs {
		for _, s := range strings.Split(r.Text, "\n") {
			s = strings.Join(strings.Fields(s), " ")
			if !usableText(s) {
				continue
			}
			if from == nil || utf8.RuneCountInString(s) < utf8.RuneCountInString(best) {
				best, from = s, r
			}
		}
	}
	return best, from
}

func usableText(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 3 || n > maxShown || strings.Contains(s, "[redacted]") || strings.HasSuffix(s, "…") || timeLike.MatchString(s) {
		return false
	}
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}
