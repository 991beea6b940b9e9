// Command firefox writes the Firefox build of the extension (extension.WriteFirefox:
// the same files, the manifest rewritten for Firefox) into a new folder,
// build/firefox/ by default, for about:debugging's "Load Temporary Add-on"
// and the Firefox e2e tests. go generate ./... runs it after the bundles
// (internal/tools/generate.go); the folder is not committed: it is a copy of
// extension/ but for one file, and extension.WriteFirefox makes it afresh.
// With a second argument it also writes the Firefox manifest there:
// extension/test/firefox-manifest.json, committed, so that the extension's
// node tests check both manifests in a clone where go generate never ran
// (extension.TestFirefoxManifestCommitted fails while it is stale).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/extension"
)

func main() {
	dir := filepath.Join("build", "firefox")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	// The folder is this command's own: a file the Chrome package dropped
	// must not linger in the next build.
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "firefox:", err)
		os.Exit(1)
	}
	if err := extension.WriteFirefox(dir); err != nil {
		fmt.Fprintln(os.Stderr, "firefox:", err)
		os.Exit(1)
	}
	if len(os.Args) > 2 {
		m, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err == nil {
			err = os.WriteFile(os.Args[2], m, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "firefox: the manifest for the node tests:", err)
			os.Exit(1)
		}
	}
}
