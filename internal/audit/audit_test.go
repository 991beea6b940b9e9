package audit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/audit/sarifcheck"
)

// fixture is a report as the extension sends it for a page with the
// usual violations.
func fixture(nodes int) audit.Report {
	r := audit.Report{Passes: 20, Engine: "4.14.1", TabID: 7, URL: "http://127.0.0.1:8080/bad.html", Title: "Bad"}
	add := func(id, impact string, n int) {
		rule := audit.Rule{ID: id, Impact: impact, Help: "Help for " + id, HelpURL: "https://dequeuniversity.com/rules/axe/4.14/" + id,
			Tags: []string{"wcag2a", "cat.test"}, Count: n}
		for i := range n {
			rule.Nodes = append(rule.Nodes, audit.Node{Ref: "e" + strings.Repeat("1", i%3+1), Role: "img", Name: "a name",
				Target: "#x", Summary: "Fix any of the following: ...", HTML: `<img src="a.png">`})
		}
		r.Rules = append(r.Rules, rule)
	}
	add("color-contrast", "serious", nodes)
	add("image-alt", "critical", nodes)
	add("region", "moderate", nodes)
	add("duplicate-id", "minor", 1)
	r.Review = append(r.Review, audit.Rule{ID: "duplicate-id-aria", Impact: "critical", Help: "ARIA ids are unique", Count: 1,
		Nodes: []audit.Node{{Ref: "e9", Target: "#dup"}}})
	return r
}

func TestSummarize(t *testing.T) {
	t.Run("everything fits", func(t *testing.T) {
		v := audit.Summarize(fixture(2), 3000)
		if v.Omitted != "" {
			t.Errorf("got Omitted %q, want none", v.Omitted)
		}
		var ids []string
		for _, r := range v.Rules {
			ids = append(ids, r.ID)
			if r.More != 0 || len(r.Elements) != r.Count {
				t.Errorf("rule %s: got %d elements, more %d, want all %d", r.ID, len(r.Elements), r.More, r.Count)
			}
		}
		if got, want := strings.Join(ids, ","), "image-alt,color-contrast,region,duplicate-id"; got != want {
			t.Errorf("got rules %s, want %s (most severe first)", got, want)
		}
		if got := v.Rules[0].Elements[0]; got != `e1 img "a name"` {
			t.Errorf("got element %q, want the outline-style line", got)
		}
		if v.Violations != 7 {
			t.Errorf("got %d violations, want 7", v.Violations)
		}
		if len(v.Review) != 1 || v.Review[0].ID != "duplicate-id-aria" || v.Review[0].Elements[0] != "e9" {
			t.Errorf("got review %+v, want duplicate-id-aria with e9", v.Review)
		}
	})
	for _, budget := range []int{100, 300, 1000} {
		t.Run("cut", func(t *testing.T) {
			v := audit.Summarize(fixture(200), budget)
			b, _ := json.Marshal(v)
			if len(b) > budget*4 {
				t.Errorf("budget %d: got %d characters, want at most %d", budget, len(b), budget*4)
			}
			if v.Omitted == "" {
				t.Errorf("budget %d: got no Omitted, want what was left out", budget)
			}
			// Each rule shown gets elements before any gets many.
			for _, r := range append(v.Rules, v.Review...) {
				if r.Count != len(r.Elements)+r.More {
					t.Errorf("rule %s: %d elements + %d more != count %d", r.ID, len(r.Elements), r.More, r.Count)
				}
				if d := len(r.Elements) - len(v.Rules[0].Elements); r.More > 0 && (d > 1 || d < -1) {
					t.Errorf("rule %s has %d elements, the first %d: want rounds", r.ID, len(r.Elements), len(v.Rules[0].Elements))
				}
			}
		})
	}
}

func TestSARIFValidates(t *testing.T) {
	for _, r := range []audit.Report{fixture(3), {URL: "about:blank"}} {
		b, err := audit.SARIF(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := sarifcheck.Validate(b); err != nil {
			t.Errorf("SARIF of %d rules does not validate: %v\n%s", len(r.Rules), err, b)
		}
	}
	// The schema is no rubber stamp: a log without version fails.
	if err := sarifcheck.Validate([]byte(`{"runs":[]}`)); err == nil {
		t.Error("a log without version validated")
	}
	b, _ := audit.SARIF(fixture(3))
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	json.Unmarshal(b, &log)
	if got := len(log.Runs[0].Results); got != 11 {
		t.Errorf("got %d results, want 11 (one per element)", got)
	}
	if r := log.Runs[0].Results[0]; r.RuleID != "image-alt" || r.Level != "error" {
		t.Errorf("got first result %+v, want image-alt at level error", r)
	}
}
