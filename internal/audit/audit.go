// Package audit shapes the accessibility audit the extension runs with
// axe-core: the rules a page violates, grouped by rule and cut to a token
// budget for an agent (Summarize), or as a SARIF 2.1.0 log (SARIF).
package audit

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Report is what the extension reports for analyze accessibility: axe's
// violations grouped by rule, each element named by its outline ref, with
// the tab's facts beside them. Everything in it comes from the page.
type Report struct {
	Rules []Rule `json:"rules"`
	// Review holds the rules axe could not decide (axe's "incomplete"):
	// elements to check by hand, such as duplicate ids that ARIA refers to.
	Review []Rule `json:"review"`
	Passes int    `json:"passes"` // rules the page satisfies
	Engine string `json:"axe_version"`
	TabID  int64  `json:"tab_id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	// Format is the format the agent asked for ("sarif", or ""), which the
	// extension hands back: the daemon keeps no params past a command's end.
	Format string `json:"format,omitempty"`
}

// A Rule is one axe rule the page violates. Count is how many elements
// violate it; Nodes holds at most the extension's per-rule cap of them.
type Rule struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"` // critical, serious, moderate, minor, or ""
	Help    string   `json:"help"`
	HelpURL string   `json:"help_url"`
	Tags    []string `json:"tags,omitempty"`
	Count   int      `json:"count"`
	Nodes   []Node   `json:"nodes,omitempty"`
}

// A Node is one element that violates a rule: its ref in the runtime's ref
// map (the refs analyze dom and interact use), role and accessible name
// from the DOM engine, axe's CSS target, what is wrong, and its markup.
type Node struct {
	Ref     string `json:"ref,omitempty"`
	Role    string `json:"role,omitempty"`
	Name    string `json:"name,omitempty"`
	Target  string `json:"target,omitempty"`
	Summary string `json:"summary,omitempty"`
	HTML    string `json:"html,omitempty"`
}

// View is the audit as an agent reads it: the rules, most severe first,
// each with as many of its elements as the budget holds.
type View struct {
	Violations int        `json:"violations"` // elements in all rules
	Rules      []RuleView `json:"rules"`
	Review     []RuleView `json:"review,omitempty"` // to check by hand
	Passes     int        `json:"passes"`
	Omitted    string     `json:"omitted,omitempty"`
	TabID      int64      `json:"tab_id"`
	URL        string     `json:"url"`
}

// A RuleView is one rule in a View. Elements are outline-style lines
// ("e12 img", `e3 textbox "Email"`; axe's CSS target when an element has
// no ref); More counts those left out.
type RuleView struct {
	ID       string   `json:"id"`
	Impact   string   `json:"impact,omitempty"`
	Count    int      `json:"count"`
	Help     string   `json:"help"`
	HelpURL  string   `json:"help_url"`
	Elements []string `json:"elements"`
	More     int      `json:"more,omitempty"`
}

// impactRank orders impacts, most severe first.
func impactRank(impact string) int {
	switch impact {
	case "critical":
		return 0
	case "serious":
		return 1
	case "moderate":
		return 2
	case "minor":
		return 3
	}
	return 4
}

// line is how a View names one element.
func (n Node) line() string {
	if n.Ref == "" {
		return n.Target
	}
	s := n.Ref
	if n.Role != "" {
		s += " " + n.Role
	}
	if n.Name != "" {
		s += " " + fmt.Sprintf("%q", n.Name)
	}
	return s
}

// sorted returns rules most severe first, then by count (larger first),
// then by id; rules is not modified.
func sorted(rules []Rule) []Rule {
	rules = slices.Clone(rules)
	slices.SortStableFunc(rules, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(impactRank(a.Impact), impactRank(b.Impact)), cmp.Compare(b.Count, a.Count), strings.Compare(a.ID, b.ID))
	})
	return rules
}

// Summarize returns r as a View of about budget estimated tokens (4
// characters a token) at most: every rule's header while they fit, the
// violations most severe first and then those to review, then the rules'
// elements a round at a time (the first element of every rule, then the
// second, ...), so that each rule shows some before any shows many.
// Omitted says what was left out; it is empty when the View holds
// everything.
func Summarize(r Report, budget int) View {
	v := View{Passes: r.Passes, TabID: r.TabID, URL: r.URL, Rules: []RuleView{}}
	limit := budget * 4
	size := jsonLen(v) + 100 // room for Omitted and the review key
	violations := sorted(r.Rules)
	rules := append(violations, sorted(r.Review)...)
	total := 0
	for i, rule := range rules {
		total += rule.Count
		if i < len(violations) {
			v.Violations += rule.Count
		}
	}
	var shown []RuleView
	for _, rule := range rules {
		rv := RuleView{ID: rule.ID, Impact: rule.Impact, Count: rule.Count, Help: rule.Help, HelpURL: rule.HelpURL, Elements: []string{}}
		n := jsonLen(rv) + 12 // the comma and More
		if size+n > limit {
			break
		}
		size += n
		shown = append(shown, rv)
	}
	full := true
	for round := 0; full; round++ {
		added := false
		for i := range shown {
			nodes := rules[i].Nodes
			if round >= len(nodes) {
				continue
			}
			l := nodes[round].line()
			n := jsonLen(l) + 1
			if size+n > limit {
				full = false
				break
			}
			size += n
			shown[i].Elements = append(shown[i].Elements, l)
			added = true
		}
		if !added {
			break
		}
	}
	elements := 0
	for i := range shown {
		shown[i].More = rules[i].Count - len(shown[i].Elements)
		elements += len(shown[i].Elements)
		if i < len(violations) {
			v.Rules = append(v.Rules, shown[i])
		} else {
			v.Review = append(v.Review, shown[i])
		}
	}
	if len(shown) < len(rules) || elements < total {
		v.Omitted = fmt.Sprintf("%d of %d rules and %d of %d elements past the %d-token budget", len(rules)-len(shown), len(rules), total-elements, total, budget)
	}
	return v
}

func jsonLen(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
