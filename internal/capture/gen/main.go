// Command gen writes extension/capture/secrets.js, the extension's copy of
// the redaction rules (capture.SecretsJS). go generate runs it in
// internal/capture, whose directory capture.SecretsFile is relative to:
// go generate ./internal/capture, or make generate for every generated file.
package main

import (
	"fmt"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func main() {
	if err := os.WriteFile(capture.SecretsFile, capture.SecretsJS(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "generating from internal/capture:", err)
		os.Exit(1)
	}
}
