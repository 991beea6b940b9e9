package main_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var gasoline string // the built binary

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gasoline-cli-")
	if err != nil {
		panic(err)
	}
	gasoline = filepath.Join(dir, "gasoline")
	if out, err := exec.Command("go", "build", "-o", gasoline, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building gasoline: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type cli struct {
	port  int
	state string
}

func newCLI(t *testing.T) *cli {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c := &cli{port: port, state: filepath.Join(t.TempDir(), "state")}
	t.Cleanup(func() { c.run("daemon", "stop") })
	return c
}

// run executes gasoline with the CLI's port and state dir; it returns the
// exit code and combined output.
func (c *cli) run(args ...string) (int, string) {
	cmd := exec.Command(gasoline, append(args, "--port", strconv.Itoa(c.port), "--state-dir", c.state)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, string(out)
}

var pidRE = regexp.MustCompile(`pid (\d+)`)

func TestLifecycle(t *testing.T) {
	c := newCLI(t)
	if code, out := c.run("daemon", "status"); code != 3 || !strings.Contains(out, "not running") {
		t.Fatalf("status before start: got %d %q, want 3 and 'not running'", code, out)
	}
	code, out := c.run("daemon", "start")
	if code != 0 || !strings.Contains(out, "started") {
		t.Fatalf("start: got %d %q", code, out)
	}
	pid := pidRE.FindStringSubmatch(out)
	code, out = c.run("daemon", "start")
	if code != 0 || !strings.Contains(out, "already running") || pidRE.FindStringSubmatch(out)[1] != pid[1] {
		t.Fatalf("second start: got %d %q, want a no-op naming pid %s", code, out, pid[1])
	}
	for name, want := range map[string]os.FileMode{"": 0o700, "token": 0o600, "daemon.log": 0o600, "daemon.pid": 0o600} {
		fi, err := os.Stat(filepath.Join(c.state, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: got mode %o, want %o", filepath.Join(c.state, name), got, want)
		}
	}
	if code, out := c.run("pair"); code != 0 || !regexp.MustCompile(`Pairing code: [A-Z2-9]{4}-[A-Z2-9]{4}`).MatchString(out) {
		t.Errorf("pair: got %d %q", code, out)
	}
	if code, out := c.run("daemon", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("stop: got %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(c.state, "daemon.pid")); !os.IsNotExist(err) {
		t.Errorf("pid file left behind after stop: %v", err)
	}
	if code, out := c.run("daemon", "stop"); code != 0 || !strings.Contains(out, "no gasoline daemon") {
		t.Errorf("stop when stopped: got %d %q, want a calm no-op", code, out)
	}
}

func TestForeignPortHolderIsLeftAlone(t *testing.T) {
	c := newCLI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(c.port))
	if err != nil {
		t.Fatal(err)
	}
	other := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "I am someone else's server")
	}))
	other.Listener.Close()
	other.Listener = ln
	other.Start()
	defer other.Close()

	if code, out := c.run("daemon", "start"); code == 0 || !strings.Contains(out, "in use by another program") {
		t.Errorf("start on a foreign port: got %d %q, want a failure naming the cause", code, out)
	}
	if code, out := c.run("daemon", "stop"); code == 0 || !strings.Contains(out, "not touching it") {
		t.Errorf("stop on a foreign port: got %d %q, want a refusal", code, out)
	}
	if code, _ := c.run("daemon", "status"); code != 3 {
		t.Errorf("status on a foreign port: got %d, want 3", code)
	}
	resp, err := http.Get(other.URL)
	if err != nil {
		t.Fatalf("the other server was harmed: %v", err)
	}
	resp.Body.Close()
}

func TestVersion(t *testing.T) {
	out, err := exec.Command(gasoline, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "gasoline ") {
		t.Fatalf("got %q, %v", out, err)
	}
}

func TestUnknownCommandExitsNonZero(t *testing.T) {
	err := exec.Command(gasoline, "fly").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("got %v, want a non-zero exit", err)
	}
}
