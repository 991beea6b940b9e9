package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrLocked means another process holds the state dir's daemon lock: a
// gasoline daemon already runs with this state dir.
var ErrLocked = errors.New("another gasoline daemon holds the state dir")

// Lock is a daemon's exclusive hold on its state directory. It lasts until
// Unlock or the end of the process, whichever comes first.
type Lock struct {
	f *os.File
}

// Lock takes the directory's daemon lock without waiting, and records the
// current pid in the lock file. When another process holds it, Lock fails
// at once with an error wrapping ErrLocked that names the holder's pid when
// it is known. The lock is advisory: flock on Unix, an exclusive open on
// Windows.
func (d Dir) Lock() (*Lock, error) {
	f, err := lockFile(d)
	if errors.Is(err, ErrLocked) {
		if pid, ok := d.holderPID(); ok {
			return nil, fmt.Errorf("%w %s (pid %d); stop it with 'gasoline daemon stop' first, or pass another --state-dir", ErrLocked, d.Path, pid)
		}
		return nil, fmt.Errorf("%w %s; stop it with 'gasoline daemon stop' first, or pass another --state-dir", ErrLocked, d.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("locking state dir %s: %w", d.Path, err)
	}
	// Best effort: the pid helps the next starter name the holder.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. It may be called more than once.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the lock
	l.f = nil
	return err
}

// holderPID reads the pid the holder recorded, from the lock file or, where
// the lock keeps others from reading it, from the pid file.
func (d Dir) holderPID() (int, bool) {
	for _, name := range []string{LockFile, PIDFile} {
		b, err := os.ReadFile(d.File(name))
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid, true
		}
	}
	return 0, false
}
