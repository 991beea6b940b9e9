// Package version holds the build's version, set at link time with
// -ldflags "-X github.com/gasoline-mcp/gasoline/internal/version.Version=...".
package version

// Version is the gasoline release this binary was built from.
var Version = "0.1.0-dev"
