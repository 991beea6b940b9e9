//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens the lock file and flocks it exclusively without waiting.
func lockFile(d Dir) (*os.File, error) {
	f, err := d.OpenFile(LockFile, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}
