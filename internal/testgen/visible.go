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
// recorder's "appeared" (or "agent_appeared") records of the last step, as
// shownNow keeps them, and, when there are none, nothing. Text an earlier
// action made appear is not asserted: a later action may have removed it
// (a dialog opened, then closed), and the test would fail on a correct page.
// The text is page content, so it is written only inside a string literal
// (q) and never in a comment.
func (g *gen) visibleText() {
	if len(g.steps) == 0 {
		return
	}
	from := g.steps[len(g.steps)-1]
	shown := shownNow(from)
	if len(shown) == 0 {
		if len(from.shown) > 0 {
			g.res.Notes = append(g.res.Notes, "visible text: what appeared after the last action was in an iframe or on the page it left; not asserted")
		}
		return
	}
	text, rec := chooseShown(shown)
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

// shownNow keeps the records of s's text a test can still see after s: the
// top document's (page.getByText does not look into iframes) and, when s
// navigated, the page it arrived at's (its own text, or text recorded there
// after the load), not what the page it left showed as it went.
func shownNow(s *pstep) []*capture.ActionView {
	var out []*capture.ActionView
	for _, r := range s.shown {
		if r.FrameID != 0 {
			continue
		}
		if n := len(s.navs); n > 0 {
			last := s.navs[n-1]
			if r.Selector != "html" && (r.TS < last.TS || r.PageURL != last.To) {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}
