// Command gen writes the files generated from internal/capture's tables:
// extension/capture/secrets.js, the extension's copy of the redaction rules
// (capture.SecretsJS), and extension/capture/fields.js and
// internal/capture/fields_gen.go, from the capture event table
// (apitype.EventSpecs, capture.EventFiles). go generate runs it in
// internal/capture, whose directory the paths are relative to:
// go generate ./internal/capture, or make generate for every generated file.
package main

import (
	"fmt"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "generating from internal/capture:", err)
		os.Exit(1)
	}
}

func run() error {
	files, err := capture.EventFiles()
	if err != nil {
		return err
	}
	files[capture.SecretsFile] = capture.SecretsJS()
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
