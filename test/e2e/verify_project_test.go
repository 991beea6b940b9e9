//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// TestVerifyUsesAgentsProject: with no GASOLINE_PLAYWRIGHT on the daemon
// and none in its folder, analyze test's verify runs with the Playwright
// of the project the agent works in (where its gasoline-mcp was started:
// test/npm, which has @playwright/test), and passes; so it does for an
// agent started elsewhere whose MCP roots name test/npm. For another agent
// at work in a folder without Playwright, on the same daemon and tab,
// verify says it found none and names that agent's folder, never the
// others'.
func TestVerifyUsesAgentsProject(t *testing.T) {
	proj, _ := filepath.Abs("../npm")
	if _, err := os.Stat(filepath.Join(proj, "node_modules/@playwright/test/cli.js")); err != nil {
		requireBrowser(t)
		t.Fatalf("@playwright/test is not installed in test/npm: run make npm-deps")
	}
	t.Setenv("GASOLINE_PLAYWRIGHT", "")
	t.Setenv("GASOLINE_PLAYWRIGHT_BROWSER", "/usr/bin/chromium")
	e := ready(t)
	bare, elsewhere := t.TempDir(), t.TempDir()
	agents := map[string]*gasoline.Client{}
	for name, dir := range map[string][]string{"with-playwright": {proj}, "rooted": {elsewhere, proj}, "without": {bare}} {
		c, err := gasoline.ConnectIn(e.ctx, e.daemon, name, dir[0], dir[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		agents[name] = c
	}

	site := newRecordedSite(t)
	p := e.openPage(site.URL + "/tg/login.html")
	p.typeInto("#email", "ada@example.test")
	tab := e.tabOf(site.URL + "/tg/login.html")
	e.generate(map[string]any{"what": "test", "tab_id": tab}, "fill('ada@example.test')")

	verify := func(name string) generated {
		r, err := agents[name].Call(e.ctx, "analyze", map[string]any{"what": "test", "tab_id": tab, "verify": true})
		if err != nil || r.IsError {
			t.Fatalf("%s: analyze test verify: %v %s", name, err, r)
		}
		var g generated
		if err := json.Unmarshal(r.Raw, &g); err != nil {
			t.Fatalf("%s: analyze test verify: %v: %s", name, err, r.Raw)
		}
		return g
	}
	if g := verify("with-playwright"); g.Verdict == nil || !g.Verdict.Passed {
		t.Errorf("the agent in %s (with @playwright/test): got verified %q, verdict %+v; want passed\n%s", proj, g.Verified, g.Verdict, g.File)
	}
	if g := verify("rooted"); g.Verdict == nil || !g.Verdict.Passed {
		t.Errorf("the agent in %s with the root %s: got verified %q, verdict %+v; want passed\n%s", elsewhere, proj, g.Verified, g.Verdict, g.File)
	}
	g := verify("without")
	if g.Verdict != nil || !strings.Contains(g.Verified, "no Playwright") || !strings.Contains(g.Verified, bare) {
		t.Errorf("the agent in %s (no Playwright): got verified %q, verdict %+v; want no Playwright found, naming its folder", bare, g.Verified, g.Verdict)
	}
	if strings.Contains(g.Verified, proj) || strings.Contains(g.Verified, elsewhere) {
		t.Errorf("the agent in %s was told of another agent's folder (%s, %s): %q", bare, proj, elsewhere, g.Verified)
	}
}
