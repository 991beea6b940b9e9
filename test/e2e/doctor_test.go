//go:build unix

package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDoctor runs 'gasoline doctor' against a healthy setup: the real
// extension in Chromium, paired, on a page. Every check must pass, the
// round trip must have run in the page, and the exit code is 0.
func TestDoctor(t *testing.T) {
	e := ready(t)
	out, err := e.daemon.CLI(e.ctx, "doctor")
	if err != nil {
		t.Fatalf("doctor on a healthy setup: %v", err)
	}
	t.Logf("gasoline doctor:\n%s", out)
	for _, subject := range []string{"gasoline", "bridge", "browser", "state dir", "token", "port", "daemon", "auth", "pairing", "extension", "round trip"} {
		if !regexp.MustCompile(`(?m)^ok +` + subject + ` `).MatchString(out) {
			t.Errorf("no ok line for %s:\n%s", subject, out)
		}
	}
	if !strings.Contains(out, e.site.URL+"/a") || !regexp.MustCompile(`in \d+(\.\d+)?m?s\n`).MatchString(out) {
		t.Errorf("the round trip should name the page it ran in and its latency:\n%s", out)
	}

	e.stopBrowser()
	e.waitConnected(false, 30*time.Second)
	out, err = e.daemon.CLI(e.ctx, "doctor")
	if err == nil || !regexp.MustCompile(`(?m)^problem +extension +the extension is not polling`).MatchString(out) {
		t.Errorf("doctor with the browser closed: err %v, want exit 1 and an extension problem:\n%s", err, out)
	}
}
