package daemon_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

func portOf(t *testing.T, d *harness.Daemon) int {
	t.Helper()
	p, err := strconv.Atoi(d.URL[strings.LastIndexByte(d.URL, ':')+1:])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLocalClientsWithoutASocket: a state dir too deep for a socket path
// still serves the bridge and the CLI, over TCP once the daemon has proved
// it knows the token.
func TestLocalClientsWithoutASocket(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if _, ok := (state.Dir{Path: dir}).SocketPath(); ok {
		t.Fatalf("%s is short enough for a socket; the test needs a longer one", dir)
	}
	d := harness.StartDaemon(t, daemon.Options{StateDir: dir})
	if _, err := os.Lstat(filepath.Join(dir, state.SocketFile)); !os.IsNotExist(err) {
		t.Errorf("a socket file exists although its path is too long: %v", err)
	}
	c := client.Local(portOf(t, d), dir)
	defer c.CloseIdleConnections()
	h, err := c.Health(t.Context())
	if err != nil || h.PID != os.Getpid() {
		t.Fatalf("health over TCP with the proof: got %+v, %v", h, err)
	}
	resp, err := c.MCP(t.Context(), "agent", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), true)
	if err != nil || !strings.Contains(string(resp), `"result":{}`) {
		t.Fatalf("ping over TCP with the proof: got %s, %v", resp, err)
	}
}

// TestSocketIsPrivate: the daemon's socket is in its 0700 state dir, mode
// 0600, and serves the same API.
func TestSocketIsPrivate(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	fi, err := os.Lstat(filepath.Join(d.Dir, state.SocketFile))
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: got %v, %v; want a 0600 socket", fi, err)
	}
	resp, err := unixHTTP(d.Dir).Get("http://" + strings.TrimPrefix(d.URL, "http://") + "/commands")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("socket without a token: got %d, want 401 (the socket is one more way in, not a bypass)", resp.StatusCode)
	}
}

// TestNoSocketIsNotFatal: when the socket cannot be made (here a file is in
// its way), the daemon runs on TCP alone and local clients use the proof.
func TestNoSocketIsNotFatal(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, state.SocketFile)
	if err := os.WriteFile(blocker, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := harness.StartDaemon(t, daemon.Options{StateDir: dir})
	c := client.Local(portOf(t, d), dir)
	defer c.CloseIdleConnections()
	if _, err := c.Health(t.Context()); err != nil {
		t.Fatalf("health over TCP with the proof: %v", err)
	}
	if b, err := os.ReadFile(blocker); err != nil || string(b) != "not a socket" {
		t.Errorf("the file in the socket's way was changed: %q, %v", b, err)
	}
}
