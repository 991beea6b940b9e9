package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// auditModes is analyze's accessibility mode: the extension runs axe-core
// (extension/audit/) in the page and reports the violations by rule with
// outline refs; internal/audit shapes them.
func auditModes() []action {
	a := browser[auditArgs]("accessibility", "audit", "axe failures by rule; or SARIF")
	asAnalyze(&a)
	a.present = (*Tools).presentAudit
	run := a.run
	a.run = func(t *Tools, ctx context.Context, act *action, client string, in *arguments) (any, error) {
		return run(t, ctx, act, client, withDefaultTimeout(in, auditTimeoutMS))
	}
	return []action{a}
}

// auditTimeoutMS is an audit's browser deadline when the call names no
// timeout_ms: axe on a large page of a busy machine takes seconds, and the
// extension probes a tab still busy 2.5 s before the deadline as frozen.
const auditTimeoutMS = 60000

// withDefaultTimeout returns the arguments in with timeout_ms set to ms
// when they name none; in as it is when they do or have no members.
func withDefaultTimeout(in *arguments, ms int64) *arguments {
	if in.obj == nil || in.obj["timeout_ms"] != nil {
		return in
	}
	obj := maps.Clone(in.obj)
	obj["timeout_ms"] = json.RawMessage(strconv.FormatInt(ms, 10))
	raw, err := json.Marshal(obj)
	if err != nil {
		return in
	}
	return &arguments{raw: raw, obj: obj}
}

// DefaultAuditTokens is the budget of an accessibility result in estimated
// tokens; the whole report stays readable by its correlation id.
const DefaultAuditTokens = 2000

// auditArgs are what analyze accessibility takes; the extension gets them
// all, and hands format back in its report.
type auditArgs struct {
	Scope  string   `json:"scope,omitempty"`
	Tags   []string `json:"tags,omitempty"` // axe tags: wcag2a, wcag2aa, best-practice, …
	Format string   `json:"format,omitempty" enum:"sarif"`
	summaryArgs
}

// maxTags bounds the tags of one audit.
const maxTags = 20

func (a auditArgs) check() error {
	if len(a.Tags) > maxTags {
		return mcp.Errorf("invalid_arguments", fmt.Sprintf("pass at most %d", maxTags), "%d tags given", len(a.Tags))
	}
	for _, tag := range a.Tags {
		if tag == "" || len(tag) > 40 || strings.ContainsAny(tag, " \t\n,") {
			return mcp.Errorf("invalid_arguments", `use axe tags such as "wcag2a", "wcag2aa", "wcag21aa", "best-practice"`, "tag %q is not an axe tag", tag)
		}
	}
	return nil
}

// sarifSuffix names the stored SARIF log of an audit: its correlation id
// and this suffix.
const sarifSuffix = ".sarif"

// sarifView is an accessibility result with format "sarif".
type sarifView struct {
	Violations int    `json:"violations"`
	Rules      int    `json:"rules"`
	URI        string `json:"uri"`
	MIMEType   string `json:"mime_type"`
	Chars      int    `json:"chars"`
	Hint       string `json:"hint"`
}

// presentAudit shapes an accessibility report: its rules within
// DefaultAuditTokens, the whole report kept readable by the command's id;
// or, for format "sarif", the SARIF log stored under id + ".sarif".
func (t *Tools) presentAudit(c tracker.Command, v *commandView) {
	raw := []byte(c.Result)
	if _, ok := result.StoredOf(c); ok {
		text, err := t.d.Results.ContentOf(c)
		if err != nil {
			return // gone under the output budget: the generic message says so
		}
		raw = []byte(text)
	}
	var r audit.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return // not an audit report: leave it as the extension sent it
	}
	if r.Format == "sarif" {
		t.presentSARIF(c, v, r)
		return
	}
	av := audit.Summarize(r, DefaultAuditTokens)
	v.Message = ""
	if av.Omitted != "" {
		if err := t.d.Results.Readable(c); err != nil {
			t.d.Log.Warn().Err(err).Str("correlation_id", c.ID).Msg("storing the whole audit failed")
		}
		v.Message = fmt.Sprintf(`The audit is cut at ~%d tokens. The whole report (every rule, up to 100 elements each, with axe's summary and markup) reads with observe({what:"command_result", correlation_id:%q, mode:"extract", query:"<rule id>"}), or narrow it with scope or tags.`, DefaultAuditTokens, c.ID)
	}
	v.Result, _ = json.Marshal(av)
}

// presentSARIF stores r as SARIF under c's id + sarifSuffix (once: a later
// read of c finds it there) and says where to read it.
func (t *Tools) presentSARIF(c tracker.Command, v *commandView, r audit.Report) {
	id := c.ID + sarifSuffix
	h, err := t.d.Results.Handle(c.Client, id)
	if err != nil {
		b, err := audit.SARIF(r)
		if err == nil {
			h, err = t.d.Results.Put(c.Client, id, string(b))
		}
		if err != nil {
			v.Message = fmt.Sprintf("Storing the SARIF log failed (%v); the report is in the result. Run the audit again.", err)
			return
		}
	}
	sv := sarifView{URI: outputURI(id), MIMEType: "application/json", Chars: h.Chars,
		Hint: fmt.Sprintf(`resources/read of the uri gives the whole log; observe({what:"command_result", correlation_id:%q, mode:"raw"}) too`, id)}
	for _, rule := range r.Rules {
		sv.Rules++
		sv.Violations += rule.Count
	}
	v.Message = ""
	v.Result, _ = json.Marshal(sv)
}
