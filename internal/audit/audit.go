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
	// Passes and Incomplete count the rules axe found satisfied, and those
	// it could not decide (to review by hand).
	Passes     int    `json:"passes"`
	Incomplete int    `json:"incomplete"`
	Engine     string `json:"axe_version"`
	TabID      int64  `json:"tab_id"`
	URL        string `json:"url"`
	Title      string `json:"title"`
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
	Passes     int        `json:"passes"`
	Incomplete int        `json:"incomplete,omitempty"`
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

// Sorted returns r's rules most severe first, then by count (larger
// first), then by id. r is not modified.
func (r Report) Sorted() []Rule {
	rules := slices.Clone(r.Rules)
	slices.SortStableFunc(rules, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(impactRank(a.Impact), impactRank(b.Impact)), cmp.Compare(b.Count, a.Count), strings.Compare(a.ID, b.ID))
	})
	return rules
}

// Summarize returns r as a View of about budget estimated tokens (4
// characters a token) at most: every rule's header while they fit, most
// severe first, then the rules' elements a round at a time (the first
// element of every rule, then the second, ...), so that each rule shows
// some before any shows many. Omitted says what was left out; it is empty
// when the View holds everything.
func Summarize(r Report, budget int) View {
	v := View{Passes: r.Passes, Incomplete: r.Incomplete, TabID: r.TabID, URL: r.URL, Rules: []RuleView{}}
	limit := budget * 4
	size := jsonLen(v) + 80 // room for Omitted
	rules := r.Sorted()
	for _, rule := range rules {
		v.Violations += rule.Count
	}
	for _, rule := range rules {
		rv := RuleView{ID: rule.ID, Impact: rule.Impact, Count: rule.Count, Help: rule.Help, HelpURL: rule.HelpURL, Elements: []string{}}
		n := jsonLen(rv) + 12 // the comma and More
		if size+n > limit {
			break
		}
		size += n
		v.Rules = append(v.Rules, rv)
	}
	full := true
	for round := 0; full; round++ {
		added := false
		for i := range v.Rules {
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
			v.Rules[i].Elements = append(v.Rules[i].Elements, l)
			added = true
		}
		if !added {
			break
		}
	}
	shown := 0
	for i := range v.Rules {
		v.Rules[i].More = rules[i].Count - len(v.Rules[i].Elements)
		shown += len(v.Rules[i].Elements)
	}
	if len(v.Rules) < len(rules) || shown < v.Violations {
		v.Omitted = fmt.Sprintf("%d of %d rules and %d of %d elements past the %d-token budget", len(rules)-len(v.Rules), len(rules), v.Violations-shown, v.Violations, budget)
	}
	return v
}

func jsonLen(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
