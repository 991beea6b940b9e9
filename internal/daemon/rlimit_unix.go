//go:build unix

package daemon

import "syscall"

// openFileLimit returns the soft limit on open files, raised to the hard
// limit: the Go runtime does this at start (since Go 1.19); this does it
// again in case something lowered it.
func openFileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	if r.Cur < r.Max {
		want := r
		want.Cur = r.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			r = want
		}
	}
	return uint64(r.Cur), true
}
