// Package harness is the test harness shared by gasoline's packages: free
// loopback ports, the two binaries built once per test process, a real
// daemon in the test's process with a scripted extension, and a state dir
// and port for tests that run the binaries. It is imported by tests only.
package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Binaries are gasoline (the daemon and CLI) and gasoline-mcp (the bridge),
// built side by side as in an install, so the bridge finds the daemon next
// to itself.
type Binaries struct {
	Dir    string // holds both; the caller removes it
	Daemon string
	Bridge string
}

// Build builds both binaries into a new temporary directory, the bridge
// with the race detector when race is set. Call it once, from TestMain, and
// remove Dir when the tests are done.
func Build(race bool) (Binaries, error) {
	dir, err := os.MkdirTemp("", "gasoline-test-bin-")
	if err != nil {
		return Binaries{}, err
	}
	b := Binaries{Dir: dir, Daemon: filepath.Join(dir, "gasoline"), Bridge: filepath.Join(dir, "gasoline-mcp")}
	builds := [][]string{
		{"build", "-o", b.Daemon, "github.com/gasoline-mcp/gasoline/cmd/daemon"},
		{"build", "-o", b.Bridge, "github.com/gasoline-mcp/gasoline/cmd/bridge"},
	}
	if race {
		builds[1] = append([]string{"build", "-race"}, builds[1][1:]...)
	}
	for _, args := range builds {
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			os.RemoveAll(dir)
			return Binaries{}, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return b, nil
}

// CleanEnv is the environment without any GASOLINE_ setting of the machine
// running the tests, and without the race detector's 1 s pause at exit,
// followed by extra.
func CleanEnv(extra ...string) []string {
	env := []string{"GORACE=atexit_sleep_ms=0"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GASOLINE_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// BuildDaemonVersion builds gasoline into dir with version.Version set to v,
// as an older (or newer) release would report itself, and returns its path.
func BuildDaemonVersion(dir, v string) (string, error) {
	out := filepath.Join(dir, "gasoline-"+v)
	args := []string{"build", "-ldflags", "-X github.com/gasoline-mcp/gasoline/internal/version.Version=" + v,
		"-o", out, "github.com/gasoline-mcp/gasoline/cmd/daemon"}
	if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out, nil
}
