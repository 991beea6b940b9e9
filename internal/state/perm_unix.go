//go:build unix

package state

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes open fail on a symlink.
const noFollow = syscall.O_NOFOLLOW

// owner returns the uid owning fi.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// looseMode reports whether m grants any permission bit in mask.
func looseMode(m fs.FileMode, mask fs.FileMode) bool { return m.Perm()&mask != 0 }

// isSymlinkErr reports whether an open of path with noFollow failed because
// path is a symlink.
func isSymlinkErr(path string, err error) bool {
	if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.EMLINK) {
		return false
	}
	fi, lerr := os.Lstat(path)
	return lerr == nil && fi.Mode()&fs.ModeSymlink != 0
}
