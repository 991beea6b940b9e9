package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestTabsKnownToARestartedDaemon: after a command the worker notes its tab
// to the daemon only when the tab changed (issue 33: one POST /events fewer
// on every command's path). A daemon that restarted knows no tab: the next
// command notes it again, so observe tabs lists it without any change to
// the tab.
func TestTabsKnownToARestartedDaemon(t *testing.T) {
	e := ready(t)
	url := e.site.URL + "/a"
	title := func() {
		t.Helper()
		r := e.call("interact", map[string]any{"action": "execute_js", "script": "document.title", "wait_ms": 20000})
		complete(t, r)
	}
	listed := func() (bool, string) {
		t.Helper()
		r := e.call("observe", map[string]any{"what": "tabs"})
		return strings.Contains(string(r.Raw), url), string(r.Raw)
	}
	title()
	title()
	if ok, raw := listed(); !ok {
		t.Fatalf("observe tabs after two commands does not list %s: %s", url, raw)
	}

	if err := e.daemon.Stop(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.daemon.CLI(e.ctx, "daemon", "start"); err != nil {
		t.Fatal(err)
	}
	e.waitConnected(true, 20*time.Second)
	if ok, raw := listed(); ok {
		t.Logf("the new daemon lists the tab before any command (a tab event reached it): %s", raw)
	}
	title()
	if ok, raw := listed(); !ok {
		t.Fatalf("after a restart of the daemon and a command in the unchanged tab, observe tabs does not list %s: %s", url, raw)
	}
}
