package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/audit/sarifcheck"
)

// TestAuditSARIF: format "sarif" stores the log under the command's id +
// ".sarif", says where it is, and resources/read returns it as
// application/json that the SARIF 2.1.0 schema accepts; a second read of
// the command finds the same output.
func TestAuditSARIF(t *testing.T) {
	e := newEnv(t)
	q := e.call(t, "agent", "analyze", `{"what":"accessibility","format":"sarif","tags":["wcag2aa"]}`)
	id := q.field("correlation_id").(string)
	e.delivered(t)
	if _, err := e.keep.Report("ext", reportOf(id, bigAudit(3, 2, "sarif"))); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
		if got, want := r.field("result", "uri"), outputURI(id+sarifSuffix); got != want {
			t.Fatalf("got uri %v, want %s: %s", got, want, r.Text)
		}
		if got := r.field("result", "violations"); got != float64(6) {
			t.Errorf("got violations %v, want 6", got)
		}
	}
	read, _ := e.rpc(t, "agent", "resources/read", `{"uri":"`+outputURI(id+sarifSuffix)+`"}`, false)
	var rr struct {
		Contents []struct {
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	json.Unmarshal(read, &rr)
	if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" {
		t.Fatalf("resources/read: %.300s, want one application/json content", read)
	}
	text := rr.Contents[0].Text
	if err := sarifcheck.Validate([]byte(text)); err != nil {
		t.Errorf("the stored log does not validate: %v", err)
	}
	open, runs, closing := strings.Index(text, string(pageFence.open)), strings.Index(text, `"runs":`), strings.Index(text, string(pageFence.close))
	if open < 0 || runs < open || closing < runs || strings.Count(text, string(pageFence.open)) != 1 {
		t.Errorf("the SARIF log read as a resource: want its runs between the page fence's markers: %.300s … %.200s", text, text[max(0, len(text)-200):])
	}
	if _, msg := e.rpc(t, "other", "resources/read", `{"uri":"`+outputURI(id+sarifSuffix)+`"}`, true); !strings.Contains(msg, "not a stored output of yours") {
		t.Errorf("another client's read: %q, want not found", msg)
	}
}

// TestAuditArgs: tags are checked before anything reaches the extension.
func TestAuditArgs(t *testing.T) {
	e := newEnv(t)
	for _, args := range []string{
		`{"what":"accessibility","tags":["wcag2a aa"]}`,
		`{"what":"accessibility","tags":[""]}`,
		`{"what":"accessibility","format":"html"}`,
	} {
		r := e.call(t, "agent", "analyze", args)
		if !strings.Contains(r.Text, "invalid_arguments") {
			t.Errorf("%s: got %s, want invalid_arguments", args, r.Text)
		}
	}
}

// TestAuditTimeout: an audit without timeout_ms gets auditTimeoutMS; one
// that names it keeps it.
func TestAuditTimeout(t *testing.T) {
	for args, want := range map[string]float64{
		`{"what":"accessibility"}`:                   auditTimeoutMS,
		`{"what":"accessibility","timeout_ms":5000}`: 5000,
	} {
		e := newEnv(t)
		e.call(t, "agent", "analyze", args)
		if got := e.delivered(t).Timeout.Milliseconds(); float64(got) != want {
			t.Errorf("%s: got deadline %d ms, want %v", args, got, want)
		}
	}
}
