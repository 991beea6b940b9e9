package tools

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// analyze reads the page in few tokens. Its modes, in tools/list order:
// pageModes below.
var analyze = tool{
	name:        "analyze",
	key:         "what",
	title:       "Read the page compactly",
	preamble:    "Read the page in few tokens; async like interact (correlation_id, wait_ms, tab_id?, force?).",
	label:       "what",
	annotations: protocol.ToolAnnotations{ReadOnlyHint: boolp(true), IdempotentHint: boolp(false), OpenWorldHint: boolp(true)},
	tasks:       true,
	families:    []func() []action{pageModes, perfModes, auditModes, annotationModes, testModes},
}

// pageModes read the page: its outline with refs, or a summary.
func pageModes() []action {
	d := browser[domArgs]("dom", "dom", "outline with refs (max_tokens 3000)")
	d.present = (*Tools).presentDOM
	s := browser[summaryArgs]("page_summary", "dom", "headings, forms, counts, text")
	asAnalyze(&d)
	asAnalyze(&s)
	return []action{d, s}
}

// asAnalyze makes a, a browser action, an idempotent mode of analyze
// whose schema leaves tab_id, force, timeout_ms and wait_ms undescribed:
// interact describes them, with their bounds (still enforced here).
func asAnalyze(a *action) {
	a.Tool, a.Idempotent = "analyze", true
	for i, f := range a.fields {
		if f.name == "tab_id" || f.name == "force" || f.name == "timeout_ms" || f.name == "wait_ms" {
			a.fields[i] = bare(a.fields[i : i+1])[0]
			a.fields[i].min, a.fields[i].max = nil, nil
		}
	}
}

// DefaultDOMTokens is analyze dom's default budget in estimated tokens.
const DefaultDOMTokens = 3000

type summaryArgs struct {
	tabArg
}

type domArgs struct {
	Scope           string `json:"scope,omitempty" desc:"ref or selector of a region"`
	InteractiveOnly bool   `json:"interactive_only,omitempty"`
	MaxTokens       int    `json:"max_tokens,omitempty" min:"100" max:"9000"`
	summaryArgs
}

// presenters returns the actions' present functions by the name of the
// commands they shape (action.command, else the action's name).
func presenters() map[string]func(t *Tools, c tracker.Command, v *commandView) {
	m := map[string]func(t *Tools, c tracker.Command, v *commandView){}
	for _, tl := range all {
		for _, a := range tl.actions() {
			if a.present == nil {
				continue
			}
			name := cmp.Or(a.command, a.Name)
			if _, dup := m[name]; dup {
				panic("tools: two actions present " + name + " commands")
			}
			m[name] = a.present
		}
	}
	return m
}

// domView is analyze dom's answer.
type domView struct {
	Clipped     string `json:"clipped,omitempty"`
	Interactive int    `json:"interactive"`
	Omitted     string `json:"omitted,omitempty"`
	Outline     string `json:"outline"`
	TabID       int64  `json:"tab_id"`
	Title       string `json:"title,omitempty"`
	Tokens      int    `json:"tokens"`
	URL         string `json:"url"`
}

// domReport is what the extension reports for dom: the whole outline as
// value (so that a large one is stored as text) and facts beside it.
type domReport struct {
	Value       string `json:"value"`
	Clipped     int    `json:"clipped"`
	Interactive int    `json:"interactive"`
	MaxTokens   int    `json:"max_tokens"`
	TabID       int64  `json:"tab_id"`
	Title       string `json:"title"`
	URL         string `json:"url"`
}

// outlineRef finds the refs in an outline: a link's "[name](e12 …)", or
// "e12 role" (f3e12 in a frame) starting a line or a table cell.
var outlineRef = regexp.MustCompile(`(?m)\]\((?:f\d+)?e\d+[ )]|(?:^|[ |])(?:f\d+)?e\d+ [a-z]+\b`)

// presentDOM cuts the outline of a dom command at its token budget, on a
// line boundary, and makes the whole one readable by slice and extract
// under the command's correlation id.
func (t *Tools) presentDOM(c tracker.Command, v *commandView) {
	var r domReport
	var whole string
	stored, isStored := result.StoredOf(c)
	if isStored {
		for k, raw := range stored.Meta {
			json.Unmarshal([]byte(fmt.Sprintf(`{%q:%s}`, k, raw)), &r)
		}
	} else if err := json.Unmarshal(c.Result, &r); err != nil {
		return // not a dom report: leave it as the extension sent it
	}
	budget := r.MaxTokens
	if budget <= 0 {
		budget = DefaultDOMTokens
	}
	limit := budget * 4 // the estimate of output.Store.EstimateTokens: 4 characters a token
	total := len(r.Value)
	if isStored {
		sl, err := t.d.Results.SliceOf(c, output.SliceRequest{Start: ptr(0), Length: limit + 1})
		if err != nil {
			return
		}
		whole, total = sl.Text, sl.TotalChars
	} else {
		whole = r.Value
	}
	shown := whole
	if total > limit {
		cut := strings.LastIndexByte(whole[:min(limit, len(whole))], '\n')
		if cut < 0 {
			cut = min(limit, len(whole))
		}
		shown = whole[:cut]
	}
	dv := domView{Interactive: r.Interactive, Outline: shown, TabID: r.TabID, Title: r.Title, URL: r.URL,
		Tokens: (len(shown) + 3) / 4}
	if r.Clipped > 0 {
		dv.Clipped = fmt.Sprintf(`%d of the lines end in … where their text was cut at 100 characters; interact get_text with text:"<its start>" reads one whole`, r.Clipped)
	}
	if len(shown) < total {
		if !isStored {
			if err := t.d.Results.Readable(c); err != nil {
				t.d.Log.Warn().Err(err).Str("correlation_id", c.ID).Msg("storing the whole outline failed")
			}
		}
		refs := len(outlineRef.FindAllStringIndex(shown, -1))
		dv.Omitted = fmt.Sprintf("%d of %d characters (about %d of %d interactive elements) past the %d-token budget",
			total-len(shown), total, max(0, r.Interactive-refs), r.Interactive, budget)
		v.Message = fmt.Sprintf(`The outline is cut at max_tokens. Read on with observe({what:"command_result", correlation_id:%q, mode:"slice", start:%d, length:12000}), `+
			`find a part with mode:"extract", query:"<what you need>", or narrow it with scope or interactive_only.`, c.ID, len(shown)+1)
	}
	v.Result, _ = json.Marshal(dv)
}
