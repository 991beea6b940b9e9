package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DaemonBinary is the name of the daemon executable.
const DaemonBinary = "gasoline"

// EnvDaemonBin overrides where the bridge finds the daemon executable.
const EnvDaemonBin = "GASOLINE_DAEMON_BIN"

// startTimeout bounds one `gasoline daemon start`, which returns once the
// daemon is healthy.
const startTimeout = 20 * time.Second

// findDaemon returns the daemon executable: explicit when set, else the
// gasoline next to the running bridge (also through a symlinked bridge),
// else gasoline on PATH.
func findDaemon(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if exe, err := os.Executable(); err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		name := DaemonBinary
		if runtime.GOOS == "windows" {
			name += ".exe" // and Windows has no execute bits to check
		}
		for _, dir := range dirs {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath(DaemonBinary)
	if err != nil {
		return "", fmt.Errorf("finding the %s executable (install it next to gasoline-mcp or on PATH, or pass --daemon-bin): %w", DaemonBinary, err)
	}
	return p, nil
}

// starter starts the daemon on behalf of every caller that found it
// unreachable, running at most one `gasoline daemon start` at a time: calls
// that overlap share its outcome. It is safe for concurrent use.
type starter struct {
	// start runs one start attempt; it is called without mu held.
	start func(ctx context.Context) error

	mu      sync.Mutex
	gen     uint64     // completed successful starts; guarded by mu
	current *startCall // the start in progress, or nil; guarded by mu
}

// startCall is one start attempt; done is closed once err is set.
type startCall struct {
	done chan struct{}
	err  error
}

// generation returns a stamp to take before a call that may find the daemon
// unreachable, and to hand to ensure.
func (s *starter) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// ensure makes sure a daemon was started after the stamp seen was taken: it
// returns at once if one was, joins a start in progress, or runs a new one.
// The start itself runs under base (not ctx), so a caller giving up does not
// abort it for the others; ensure returns early when ctx ends.
func (s *starter) ensure(ctx, base context.Context, seen uint64) error {
	s.mu.Lock()
	if s.gen > seen {
		s.mu.Unlock()
		return nil
	}
	call := s.current
	if call == nil {
		call = &startCall{done: make(chan struct{})}
		s.current = call
		go s.run(base, call)
	}
	s.mu.Unlock()
	select {
	case <-call.done:
		return call.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *starter) run(base context.Context, call *startCall) {
	ctx, cancel := context.WithTimeout(base, startTimeout)
	defer cancel()
	err := s.start(ctx)
	s.mu.Lock()
	if err == nil {
		s.gen++
	}
	s.current = nil
	call.err = err
	s.mu.Unlock()
	close(call.done)
}

// startDaemon runs `<bin> daemon start --port P --state-dir D`, which
// returns once the daemon is healthy. Its output never reaches stdout: it
// is returned in the error when the start fails.
func startDaemon(ctx context.Context, bin string, port int, stateDir string) error {
	cmd := exec.CommandContext(ctx, bin, "daemon", "start", "--port", strconv.Itoa(port), "--state-dir", stateDir)
	var out bytes.Buffer
	cmd.Stdin = nil
	cmd.Stdout = &out
	cmd.Stderr = &out
	// The detached daemon must not hold our pipe open; if it does anyway,
	// stop waiting for it shortly after the start command exits.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil || errors.Is(err, exec.ErrWaitDelay) {
		return nil
	}
	msg := strings.TrimSpace(out.String())
	if len(msg) > 2000 {
		msg = "…" + msg[len(msg)-2000:]
	}
	if msg != "" {
		return fmt.Errorf("running %s daemon start: %w: %s", bin, err, msg)
	}
	return fmt.Errorf("running %s daemon start: %w", bin, err)
}
