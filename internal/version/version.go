// Package version holds the build's version, set at link time with
// -ldflags "-X github.com/gasoline-mcp/gasoline/internal/version.Version=...".
package version

// Release is the version the next release carries: 'make dist' builds with
// it, and the extension's manifest, the npm package and server.json state it
// too (a test in scripts/dist keeps them in step).
const Release = "0.1.0"

// Version is the gasoline release this binary was built from.
var Version = Release + "-dev"
