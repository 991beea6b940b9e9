// Command firefox writes the Firefox build of the extension (extension.WriteFirefox:
// the same files, the manifest rewritten for Firefox) into a new folder,
// build/firefox/ by default, for about:debugging's "Load Temporary Add-on"
// and the Firefox e2e tests. go generate ./... runs it after the bundles
// (internal/tools/generate.go); the folder is not committed: it is a copy of
// extension/ but for one file, and extension.WriteFirefox makes it afresh.
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
}
