//go:build unix

package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/audit/sarifcheck"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// auditView is the part of an accessibility result the test reads.
type auditView struct {
	Violations int `json:"violations"`
	Rules      []struct {
		ID       string   `json:"id"`
		Impact   string   `json:"impact"`
		Count    int      `json:"count"`
		HelpURL  string   `json:"help_url"`
		Elements []string `json:"elements"`
	} `json:"rules"`
	Review []struct {
		ID       string   `json:"id"`
		Elements []string `json:"elements"`
	} `json:"review"`
	Passes int `json:"passes"`
}

// axeIn reports whether axe is loaded in the extension's isolated world of
// the top document of the tab showing url, asked from an extension page.
func (e *env) axeIn(url string) bool {
	e.t.Helper()
	p, err := chromium.OpenPopup(e.ctx, e.cdp)
	if err != nil {
		e.t.Fatal(err)
	}
	defer p.Close(e.ctx)
	var got bool
	expr := fmt.Sprintf(`(async () => {
		const [tab] = await chrome.tabs.query({ url: %q });
		const [r] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: () => typeof globalThis.axe === 'object' });
		return r.result;
	})()`, url)
	if err := p.Eval(e.ctx, expr, &got); err != nil {
		e.t.Fatal(err)
	}
	return got
}

// TestAccessibility: analyze accessibility on a page with known violations
// finds each (image-alt, label, color-contrast, button-name, and the
// duplicate id ARIA refers to among the rules to review), names the
// elements by refs that interact resolves to the offending elements (a
// click through each ref reaches the element with the expected id), narrows
// to tags and to a scope, and gives a SARIF log that resources/read returns
// as application/json and the SARIF 2.1.0 schema accepts. axe comes into
// the page's isolated world only with the first audit, never into its own
// world.
func TestAccessibility(t *testing.T) {
	e := ready(t)
	url := e.site.URL + "/hands/audit.html"
	e.open("/hands/audit.html")
	if e.axeIn(url) {
		t.Fatal("axe is in the page before any audit")
	}

	m, r := e.analyze("accessibility", nil)
	var v auditView
	if err := json.Unmarshal(r.Value, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.Value, err)
	}
	t.Logf("accessibility: %d characters, ~%d tokens", len(r.Text), (len(r.Text)+3)/4)
	want := map[string]string{"image-alt": "logo", "label": "email", "color-contrast": "faint", "button-name": "icon"}
	found := map[string]string{} // rule → ref
	for _, rule := range v.Rules {
		if _, ok := want[rule.ID]; !ok {
			continue
		}
		if rule.Count != 1 || len(rule.Elements) != 1 || !strings.HasPrefix(rule.HelpURL, "https://") || rule.Impact == "" {
			t.Errorf("rule %s: %+v, want one element, an impact and a help url", rule.ID, rule)
			continue
		}
		found[rule.ID], _, _ = strings.Cut(rule.Elements[0], " ")
	}
	for id := range want {
		if found[id] == "" {
			t.Errorf("rule %s not found in %s", id, r.Value)
		}
	}
	if i := slices.IndexFunc(v.Review, func(r struct {
		ID       string   `json:"id"`
		Elements []string `json:"elements"`
	}) bool {
		return r.ID == "duplicate-id-aria"
	}); i < 0 || len(v.Review[i].Elements) == 0 {
		t.Errorf("review: %+v, want duplicate-id-aria with its element", v.Review)
	}
	if v.Passes == 0 || m["tab_id"] == nil {
		t.Errorf("got %s, want passes and tab_id", r.Value)
	}
	if !e.axeIn(url) {
		t.Error("axe is not in the page's isolated world after the audit")
	}
	if got := e.js("typeof axe", nil); !strings.Contains(string(got.Value), `"value":"undefined"`) {
		t.Errorf("the page's own world sees axe: %s", got)
	}

	// Each ref is the offending element: a click through it reaches it.
	for id, ref := range found {
		e.ok("click", map[string]any{"ref": ref})
		js, err := e.js("window.clicked.at(-1)", nil).JS()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Trim(string(js.Value), `"`); got != want[id] {
			t.Errorf("rule %s: a click on %s reached #%s, want #%s", id, ref, got, want[id])
		}
	}

	// tags narrow the rules: color contrast is WCAG AA, not A.
	_, r = e.analyze("accessibility", map[string]any{"tags": []string{"wcag2a"}})
	if strings.Contains(string(r.Value), `"color-contrast"`) || !strings.Contains(string(r.Value), `"image-alt"`) {
		t.Errorf("tags wcag2a: %s, want image-alt and no color-contrast", r.Value)
	}
	// scope narrows the page: the fine section has nothing wrong.
	_, r = e.analyze("accessibility", map[string]any{"scope": "#fine"})
	if json.Unmarshal(r.Value, &v); v.Violations != 0 {
		t.Errorf("scope #fine: %s, want no violations", r.Value)
	}

	// SARIF, stored, read as a resource, validated.
	_, r = e.analyze("accessibility", map[string]any{"format": "sarif"})
	var sv struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mime_type"`
		Rules    int    `json:"rules"`
	}
	if err := json.Unmarshal(r.Value, &sv); err != nil || sv.URI == "" || sv.Rules < 4 {
		t.Fatalf("sarif: %s, want a uri and the rules", r.Value)
	}
	res, err := e.mcp.Session.ReadResource(e.ctx, &mcp.ReadResourceParams{URI: sv.URI})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %v %+v", sv.URI, err, res)
	}
	c := res.Contents[0]
	if c.MIMEType != "application/json" {
		t.Errorf("resources/read %s: mimeType %q, want application/json", sv.URI, c.MIMEType)
	}
	if err := sarifcheck.Validate([]byte(c.Text)); err != nil {
		t.Errorf("the SARIF log does not validate: %v\n%.2000s", err, c.Text)
	}
	for id := range want {
		if !strings.Contains(c.Text, `"ruleId":"`+id+`"`) {
			t.Errorf("the SARIF log has no result of %s", id)
		}
	}
}

// TestAccessibilityTime measures analyze accessibility beside analyze dom on
// a large real page (python3-doc's library/stdtypes.html, or the page
// GASOLINE_MEASURE_PAGE names, served on 127.0.0.1): GASOLINE_MEASURE rounds of an outline then an audit, each
// with wait_ms, timed at the MCP client; it logs p50 and p99 of both, and
// the first audit (axe injected) apart. A measurement, not a check: it runs
// only when GASOLINE_MEASURE is set.
//
//	cd test/e2e && GASOLINE_MEASURE=20 go test -count=1 -v -run TestAccessibilityTime ./...
func TestAccessibilityTime(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GASOLINE_MEASURE"))
	if n <= 0 {
		t.Skip("a measurement: set GASOLINE_MEASURE to the number of rounds")
	}
	page := cmp.Or(os.Getenv("GASOLINE_MEASURE_PAGE"), "library/stdtypes.html")
	docs, _ := filepath.Glob("/usr/share/doc/python3*/html/" + page)
	if len(docs) == 0 {
		t.Skip("needs python3-doc (apt-get install -y python3-doc)")
	}
	pages := httptest.NewServer(http.FileServer(http.Dir(strings.TrimSuffix(docs[0], page))))
	defer pages.Close()
	e := ready(t)
	if r := e.act("new_tab", map[string]any{"url": pages.URL + "/" + page}); r.Status != "complete" {
		t.Fatalf("new_tab: %s", r)
	}
	timed := func(args map[string]any) (time.Duration, gasoline.Result) {
		start := time.Now()
		r := e.call("analyze", args)
		if r.Status == "pending" || r.Status == "queued" {
			r = e.await(r.CorrelationID, 2*time.Minute)
		}
		took := time.Since(start)
		if r.Status != "complete" {
			t.Fatalf("analyze %v: %s", args, r)
		}
		return took, r
	}
	var outlines, audits []time.Duration
	var first time.Duration
	var size int
	for i := range n + 1 {
		o, _ := timed(map[string]any{"what": "dom", "wait_ms": 50000})
		a, r := timed(map[string]any{"what": "accessibility", "wait_ms": 50000, "timeout_ms": 120000})
		t.Logf("round %d: outline %v, audit %v", i, o, a)
		if i == 0 {
			first, size = a, len(r.Text)
			continue
		}
		outlines, audits = append(outlines, o), append(audits, a)
	}
	pct := func(d []time.Duration, p int) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[min(len(s)-1, len(s)*p/100)]
	}
	t.Logf("%s, n=%d: analyze dom p50 %v p99 %v; analyze accessibility p50 %v p99 %v (first, axe injected: %v; result %d chars)",
		page, n, pct(outlines, 50), pct(outlines, 99), pct(audits, 50), pct(audits, 99), first, size)
}
