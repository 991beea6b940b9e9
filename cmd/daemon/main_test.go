//go:build unix

package main_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"
)

var bins harness.Binaries // gasoline (the binary under test) and gasoline-mcp

func TestMain(m *testing.M) {
	var err error
	if bins, err = harness.Build(false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(bins.Dir)
	os.Exit(code)
}

var pidRE = regexp.MustCompile(`pid (\d+)`)

func TestLifecycle(t *testing.T) {
	c := harness.NewEnv(t, bins)
	if code, out := c.Gasoline("daemon", "status"); code != 3 || !strings.Contains(out, "not running") {
		t.Fatalf("status before start: got %d %q, want 3 and 'not running'", code, out)
	}
	code, out := c.Gasoline("daemon", "start")
	if code != 0 || !strings.Contains(out, "started") {
		t.Fatalf("start: got %d %q", code, out)
	}
	pid := pidRE.FindStringSubmatch(out)
	code, out = c.Gasoline("daemon", "start")
	if code != 0 || !strings.Contains(out, "already running") || pidRE.FindStringSubmatch(out)[1] != pid[1] {
		t.Fatalf("second start: got %d %q, want a no-op naming pid %s", code, out, pid[1])
	}
	for name, want := range map[string]os.FileMode{"": 0o700, "token": 0o600, "daemon.log": 0o600, "daemon.pid": 0o600, "daemon.lock": 0o600, "daemon.sock": 0o600} {
		fi, err := os.Stat(filepath.Join(c.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: got mode %o, want %o", filepath.Join(c.Dir, name), got, want)
		}
	}
	if code, out := c.Gasoline("pair"); code != 0 || !regexp.MustCompile(`Pairing code: [A-Z2-9]{4}-[A-Z2-9]{4}`).MatchString(out) {
		t.Errorf("pair: got %d %q", code, out)
	}
	if code, out := c.Gasoline("daemon", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("stop: got %d %q", code, out)
	}
	for _, name := range []string{"daemon.pid", "daemon.sock"} {
		if _, err := os.Stat(filepath.Join(c.Dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s left behind after stop: %v", name, err)
		}
	}
	if code, out := c.Gasoline("daemon", "stop"); code != 0 || !strings.Contains(out, "no gasoline daemon") {
		t.Errorf("stop when stopped: got %d %q, want a calm no-op", code, out)
	}
}

// impostor squats on a port the way finding 1 of issue 7 describes: it
// says it is gasoline (with a made-up pid) to anyone, answers every request
// with 200 and JSON, and records every byte it receives.
type impostor struct {
	srv *httptest.Server
	mu  sync.Mutex
	got strings.Builder
}

func startImpostor(t *testing.T, port int) *impostor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	im := &impostor{}
	im.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, true)
		im.mu.Lock()
		im.got.Write(dump)
		im.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"service":"gasoline","pid":4242,"port":%d,"version":"evil","proof":"%s","code":"EVIL-CODE","expires_at":"2030-01-01T00:00:00Z"}`,
			port, strings.Repeat("0", 64))
	}))
	im.srv.Listener.Close()
	im.srv.Listener = ln
	im.srv.Start()
	t.Cleanup(im.srv.Close)
	return im
}

func (im *impostor) received() string {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.got.String()
}

// TestImpostorOnThePort is finding 1 of issue 7 for the CLI: with the
// daemon down and another program on its port, no command sends it the
// token or a request, none takes it for the daemon, and each says what
// holds the port.
func TestImpostorOnThePort(t *testing.T) {
	c := harness.NewEnv(t, bins)
	if code, out := c.Gasoline("daemon", "start"); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	if code, out := c.Gasoline("daemon", "stop"); code != 0 {
		t.Fatalf("stop: %d %s", code, out)
	}
	token, err := os.ReadFile(filepath.Join(c.Dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	im := startImpostor(t, c.Port)
	held := fmt.Sprintf("port %d is held by another program (pid %d), not the gasoline daemon of %s; stop it or use --port", c.Port, os.Getpid(), c.Dir)
	if runtime.GOOS != "linux" {
		held = fmt.Sprintf("port %d is held by another program (pid unknown)", c.Port)
	}
	for _, tt := range []struct {
		args    []string
		code    int
		want    string
		mustNot string
	}{
		{[]string{"daemon", "status"}, 3, "not running", "daemon running on"},
		{[]string{"daemon", "start"}, 1, held, "already running"},
		{[]string{"daemon", "stop"}, 1, "not stopping anything", "stopped"},
		{[]string{"pair"}, 1, held, "EVIL-CODE"},
	} {
		code, out := c.Gasoline(tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) || !strings.Contains(out, held) {
			t.Errorf("%v: got %d %q, want exit %d saying %q and %q", tt.args, code, out, tt.code, tt.want, held)
		}
		if strings.Contains(out, "4242") || strings.Contains(out, tt.mustNot) {
			t.Errorf("%v: %q takes the impostor for the daemon", tt.args, out)
		}
	}
	got := im.received()
	for _, leak := range []string{strings.TrimSpace(string(token)), "Authorization", "/shutdown", "/pair/code", "/health", "/commands"} {
		if strings.Contains(got, leak) {
			t.Errorf("the impostor received %q; all it got:\n%s", leak, got)
		}
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "daemon.pid")); !os.IsNotExist(err) {
		t.Errorf("a pid file exists although no daemon could start: %v", err)
	}
	if resp, err := http.Get(im.srv.URL); err != nil {
		t.Errorf("the other program was harmed: %v", err)
	} else {
		resp.Body.Close()
	}
}

// TestSecondDaemonLeavesTheFirstAlone is finding 8 of issue 7: a second
// daemon on the same state dir (on another port, so the port does not stop
// it) fails at once, naming the first, and neither its pid file nor its
// socket are touched.
func TestSecondDaemonLeavesTheFirstAlone(t *testing.T) {
	c := harness.NewEnv(t, bins)
	code, out := c.Gasoline("daemon", "start")
	if code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	pid := pidRE.FindStringSubmatch(out)[1]
	pidFile := filepath.Join(c.Dir, "daemon.pid")
	before, _ := os.ReadFile(pidFile)

	other := harness.FreePort(t)
	cmd := exec.Command(bins.Daemon, "daemon", "run", "--port", strconv.Itoa(other), "--state-dir", c.Dir)
	done := make(chan struct{})
	var runOut []byte
	var runErr error
	go func() { runOut, runErr = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the second daemon did not fail fast")
	}
	ee, ok := runErr.(*exec.ExitError)
	if !ok || ee.ExitCode() != 4 || !strings.Contains(string(runOut), "already running") || !strings.Contains(string(runOut), "pid "+pid) {
		t.Errorf("second daemon: got %v %q, want exit 4 saying one is already running as pid %s", runErr, runOut, pid)
	}
	if after, err := os.ReadFile(pidFile); err != nil || string(after) != string(before) {
		t.Errorf("pid file: got %q, %v; want it unchanged (%q)", after, err, before)
	}
	if code, out := c.Gasoline("daemon", "status"); code != 0 || !strings.Contains(out, "pid "+pid) {
		t.Errorf("the first daemon after the attempt: got %d %q, want it running as pid %s", code, out, pid)
	}
}

func TestVersion(t *testing.T) {
	out, err := exec.Command(bins.Daemon, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "gasoline ") {
		t.Fatalf("got %q, %v", out, err)
	}
}

func TestUnknownCommandExitsNonZero(t *testing.T) {
	err := exec.Command(bins.Daemon, "fly").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("got %v, want a non-zero exit", err)
	}
}

// TestStateOthersControlIsRefused is finding 7 of issue 7 against the real
// CLI and daemon: a token others could read, and a state dir that is
// another user's (through a symlink, as a root daemon was given one), are
// refused with the way out, and no daemon starts on them.
func TestStateOthersControlIsRefused(t *testing.T) {
	t.Run("world-readable token", func(t *testing.T) {
		c := harness.NewEnv(t, bins)
		if code, out := c.Gasoline("daemon", "start"); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
		c.Gasoline("daemon", "stop")
		tok := filepath.Join(c.Dir, "token")
		if err := os.Chmod(tok, 0o666); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"daemon", "start"}, {"daemon", "run"}, {"pair"}} {
			code, out := c.Gasoline(args...)
			if code == 0 || !strings.Contains(out, "other users may have read it") || !strings.Contains(out, "rm "+tok) {
				t.Errorf("%v: got %d %q, want a refusal saying how to replace the token", args, code, out)
			}
		}
		if _, err := os.Stat(filepath.Join(c.Dir, "daemon.pid")); !os.IsNotExist(err) {
			t.Errorf("a daemon started on a token others could read: %v", err)
		}
	})
	t.Run("another user's state dir", func(t *testing.T) {
		c := harness.NewEnv(t, bins)
		theirs := "/"
		if os.Geteuid() == 0 {
			theirs = filepath.Join(t.TempDir(), "theirs")
			if err := os.Mkdir(theirs, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(theirs, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		c.Dir = filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(theirs, c.Dir); err != nil {
			t.Fatal(err)
		}
		code, out := c.Gasoline("daemon", "start")
		if code == 0 || !strings.Contains(out, "belongs to uid") || !strings.Contains(out, "--state-dir") {
			t.Errorf("start on another user's state dir: got %d %q, want a refusal", code, out)
		}
		if _, err := os.Stat(filepath.Join(theirs, "token")); !os.IsNotExist(err) {
			t.Errorf("a token was written into another user's directory: %v", err)
		}
	})
}
