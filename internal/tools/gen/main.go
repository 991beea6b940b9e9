// Command gen writes the files generated from package tools's declarations
// (tools.Generated: extension/contract.js, internal/extcontract/version.go,
// internal/toolpolicy/table.go). go generate runs it in internal/tools,
// whose directory the paths are relative to: go generate ./internal/tools,
// or make generate for every generated file.
package main

import (
	"fmt"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func main() {
	files, err := tools.Generated()
	if err == nil {
		for _, f := range files {
			if err = os.WriteFile(f.Path, f.Data, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "generating from internal/tools:", err)
		os.Exit(1)
	}
}
