//go:build windows

package state

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens the lock file with no sharing at all: while the daemon
// holds it open, every other open fails with a sharing violation.
func lockFile(d Dir) (*os.File, error) {
	path := d.File(LockFile)
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
		syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		const errorSharingViolation syscall.Errno = 32
		if errors.Is(err, errorSharingViolation) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}
