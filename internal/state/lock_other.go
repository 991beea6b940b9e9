//go:build !unix && !windows

package state

import "os"

// lockFile cannot lock on this platform: it only opens the file, so two
// daemons sharing a state dir are not prevented here.
func lockFile(d Dir) (*os.File, error) {
	return d.OpenFile(LockFile, os.O_RDWR|os.O_CREATE)
}
