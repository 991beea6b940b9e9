//go:build !unix

package daemon

// openFileLimit is unknown here (Windows has no descriptor limit of this
// kind); the daemon sizes its connection limits for 4096.
func openFileLimit() (uint64, bool) { return 0, false }
