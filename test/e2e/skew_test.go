//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExtensionOlderThanDaemon: the user rebuilt gasoline but Chrome still
// runs the extension it loaded before (a copy of extension/ whose
// contract.js carries another CONTRACT_VERSION). An agent's observe tabs
// and 'gasoline doctor' say the extension is not this daemon's, with the
// reload at chrome://extensions that fixes it.
func TestExtensionOlderThanDaemon(t *testing.T) {
	old := filepath.Join(t.TempDir(), "extension")
	if err := os.CopyFS(old, os.DirFS(extensionDir)); err != nil {
		t.Fatal(err)
	}
	contract := filepath.Join(old, "contract.js")
	js, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`CONTRACT_VERSION = '([0-9a-f]+)'`)
	if !version.Match(js) {
		t.Fatalf("%s has no CONTRACT_VERSION", contract)
	}
	if err := os.WriteFile(contract, version.ReplaceAll(js, []byte(`CONTRACT_VERSION = '000000000000'`)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.extDir = old
	e.startBrowser(e.site.URL + "/a")
	e.pair()

	var tabs struct {
		Extension string `json:"extension"`
	}
	if err := json.Unmarshal(e.call("observe", map[string]any{"what": "tabs"}).Raw, &tabs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tabs.Extension, "contract 000000000000") || !strings.Contains(tabs.Extension, "chrome://extensions") {
		t.Errorf("observe tabs: extension %q, want the old contract named and the reload at chrome://extensions", tabs.Extension)
	}
	out, err := e.daemon.CLI(e.ctx, "doctor")
	if err == nil || !regexp.MustCompile(`(?m)^problem +extension +connected .*contract 000000000000`).MatchString(out) ||
		!strings.Contains(out, "fix: reload the gasoline extension at chrome://extensions") {
		t.Errorf("doctor: err %v, want exit 1 and an extension problem with its fix:\n%s", err, out)
	}
}
