//go:build unix

package harness

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Env is one test's daemon port and state dir, for tests that run the
// binaries. Whatever daemon ends up serving them is stopped, by its pid
// only, when the test ends.
type Env struct {
	T    testing.TB
	Bin  Binaries
	Port int
	Dir  string // the state dir (not created)
}

// NewEnv reserves a free port and a state dir for the binaries in bin.
func NewEnv(t testing.TB, bin Binaries) *Env {
	t.Helper()
	e := &Env{T: t, Bin: bin, Port: FreePort(t), Dir: filepath.Join(t.TempDir(), "state")}
	t.Cleanup(e.StopDaemon)
	return e
}

// Flags are the --port and --state-dir flags naming e.
func (e *Env) Flags() []string {
	return []string{"--port", strconv.Itoa(e.Port), "--state-dir", e.Dir}
}

// Gasoline runs the gasoline CLI with args and e's flags, for at most 30 s,
// and returns its exit code and combined output.
func (e *Env) Gasoline(args ...string) (int, string) {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin.Daemon, append(args, e.Flags()...)...)
	cmd.Env = CleanEnv()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	e.T.Fatalf("running gasoline %v: %v", args, err)
	return -1, ""
}

// Client returns the client of e's daemon as the bridge and the CLI make
// it: through the state dir's socket, else TCP after the daemon's proof.
func (e *Env) Client() *client.Client {
	return client.Local(e.Port, e.Dir)
}

// Health returns the daemon's health, or an error when none answers within 2 s.
func (e *Env) Health() (apitype.Health, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := e.Client()
	defer c.CloseIdleConnections()
	return c.Health(ctx)
}

// DaemonPID returns the pid of the daemon answering on e's port.
func (e *Env) DaemonPID() int {
	e.T.Helper()
	h, err := e.Health()
	if err != nil {
		e.T.Fatalf("no daemon answers: %v", err)
	}
	return h.PID
}

// Kill sends SIGKILL to e's daemon and waits until it has exited (a bridge
// may start another at once). It returns the killed pid.
func (e *Env) Kill() int {
	e.T.Helper()
	pid := e.DaemonPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		e.T.Fatalf("killing daemon %d: %v", pid, err)
	}
	for deadline := time.Now().Add(5 * time.Second); Alive(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			e.T.Fatalf("daemon %d still alive 5s after SIGKILL", pid)
		}
	}
	return pid
}

// WaitGone waits up to 10 s until pid (unless 0) has exited and nothing
// answers on the port.
func (e *Env) WaitGone(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, err := e.Health()
		if errors.Is(err, client.ErrUnreachable) && (pid == 0 || !Alive(pid)) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// Alive reports whether pid runs. A killed daemon whose parent exited may
// linger as a zombie when nothing reaps orphans (pid 1 in some containers);
// it counts as gone.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// WaitStopped waits up to 30 s until every thread of pid is stopped (state
// T), as after SIGSTOP once the group stop has completed: kill returns
// before then, and on a busy machine a thread may first answer a request.
func WaitStopped(t testing.TB, pid int) {
	t.Helper()
	taskDir := "/proc/" + strconv.Itoa(pid) + "/task"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		tasks, err := os.ReadDir(taskDir)
		if errors.Is(err, fs.ErrNotExist) && runtime.GOOS != "linux" {
			time.Sleep(time.Second) // no /proc: give the stop a generous moment
			return
		}
		if err != nil {
			t.Fatalf("reading the threads of %d: %v", pid, err)
		}
		all := len(tasks) > 0
		for _, task := range tasks {
			b, err := os.ReadFile(filepath.Join(taskDir, task.Name(), "stat"))
			s := string(b)
			i := strings.LastIndexByte(s, ')')
			if err != nil || i < 0 || i+2 >= len(s) || s[i+2] != 'T' {
				all = false
				break
			}
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not stop within 30s of SIGSTOP", pid)
		}
	}
}

// StopDaemon stops the daemon serving e, if any: POST /shutdown, then
// SIGTERM to the pid it reports or its pid file names.
func (e *Env) StopDaemon() {
	pid := 0
	if h, err := e.Health(); err == nil {
		pid = h.PID
	} else if b, err := os.ReadFile(filepath.Join(e.Dir, state.PIDFile)); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGCONT) // in case a test left it stopped
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c := e.Client()
	defer c.CloseIdleConnections()
	if err := c.Shutdown(ctx); err == nil && e.WaitGone(pid) {
		return
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err == nil && !e.WaitGone(pid) {
		e.T.Errorf("daemon %d did not stop after SIGTERM", pid)
	}
}
