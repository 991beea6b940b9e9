// Package gasoline drives the project's own binaries for the browser tests
// and the browser bench: it builds gasoline and gasoline-mcp, runs the daemon
// through its CLI, asks it for pairing codes, reads its HTTP debug views, and
// connects the official MCP SDK client through gasoline-mcp.
package gasoline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Module is the module path of the repository the binaries come from.
const Module = "github.com/gasoline-mcp/gasoline"

// RepoRoot finds the repository root: the nearest directory at or above the
// working directory whose go.mod declares Module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 32 {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" && f[1] == Module {
					return dir, nil
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("no directory above the working directory has a go.mod for %s", Module)
}

// Bins are the paths of the two binaries.
type Bins struct {
	Daemon string // gasoline
	Bridge string // gasoline-mcp
	// Wrap, when set, is the command line each binary runs under (such as
	// ip netns exec NS: the agent's side of a remote setup).
	Wrap []string
}

// Command is the command that runs bin (one of b's) with args, under Wrap.
func (b Bins) Command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, b.Wrap...), bin), args...)
	return exec.CommandContext(ctx, argv[0], argv[1:]...)
}

// Build compiles gasoline and gasoline-mcp from the repository at root into
// dir.
func Build(ctx context.Context, root, dir string) (Bins, error) {
	b := Bins{Daemon: filepath.Join(dir, "gasoline"), Bridge: filepath.Join(dir, "gasoline-mcp")}
	for _, t := range []struct{ out, pkg string }{{b.Daemon, "./cmd/daemon"}, {b.Bridge, "./cmd/bridge"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", t.out, t.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return Bins{}, fmt.Errorf("building %s: %w\n%s", t.pkg, err, out)
		}
	}
	return b, nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cleanEnv is the environment without GASOLINE_* settings, so only the
// flags the harness passes configure the binaries; GASOLINE_PLAYWRIGHT*
// (where analyze test finds Playwright) passes.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GASOLINE_") || strings.HasPrefix(kv, "GASOLINE_PLAYWRIGHT") {
			env = append(env, kv)
		}
	}
	return env
}

// Daemon is one gasoline daemon started through 'gasoline daemon start'.
type Daemon struct {
	Bins     Bins
	Port     int
	StateDir string
	http     *http.Client
}

// StartDaemon starts a daemon on a free port with its state in stateDir and
// the extra 'daemon start' flags (e.g. "--dispatch-timeout=60s"). The caller
// must Stop it.
func StartDaemon(ctx context.Context, bins Bins, stateDir string, flags ...string) (*Daemon, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	d := &Daemon{Bins: bins, Port: port, StateDir: stateDir, http: &http.Client{Timeout: 30 * time.Second}}
	if _, err := d.CLI(ctx, append([]string{"daemon", "start"}, flags...)...); err != nil {
		return nil, err
	}
	return d, nil
}

// Attach is a Daemon for one already started on port with its state in
// stateDir, by bins (an install other than the test's build, say). Stop
// stops it.
func Attach(bins Bins, port int, stateDir string) *Daemon {
	return &Daemon{Bins: bins, Port: port, StateDir: stateDir, http: &http.Client{Timeout: 30 * time.Second}}
}

// CLI runs 'gasoline args... --port P --state-dir D' and returns its stdout.
func (d *Daemon) CLI(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	args = append(args, "--port", strconv.Itoa(d.Port), "--state-dir", d.StateDir)
	cmd := d.Bins.Command(ctx, d.Bins.Daemon, args...)
	cmd.Env = cleanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("gasoline %s: %w\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// Stop runs 'gasoline daemon stop' and waits up to 5 s for the pid file to
// go; if the daemon is still there it sends SIGTERM to the pid in its pid
// file (a daemon this harness started). It may be called more than once.
func (d *Daemon) Stop(ctx context.Context) error {
	pidPath := filepath.Join(d.StateDir, "daemon.pid")
	pidBytes, err := os.ReadFile(pidPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	_, stopErr := d.CLI(ctx, "daemon", "stop")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(pidPath); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(pidBytes))); pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	if stopErr != nil {
		return stopErr
	}
	return fmt.Errorf("the daemon on port %d did not stop within 5 s; sent SIGTERM", d.Port)
}

// LogPath is the daemon's log file.
func (d *Daemon) LogPath() string { return filepath.Join(d.StateDir, "daemon.log") }

var codeRE = regexp.MustCompile(`Pairing code: ([A-Z0-9]{4}-[A-Z0-9]{4})`)

// PairCode runs 'gasoline pair' and returns the one-time code it prints.
func (d *Daemon) PairCode(ctx context.Context) (string, error) {
	out, err := d.CLI(ctx, "pair")
	if err != nil {
		return "", err
	}
	m := codeRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("gasoline pair printed no code: %q", out)
	}
	return m[1], nil
}

func (d *Daemon) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(d.Port) + path
}

func (d *Daemon) get(ctx context.Context, path string, auth bool, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url(path), nil)
	if err != nil {
		return err
	}
	if auth {
		tok, err := os.ReadFile(filepath.Join(d.StateDir, "token"))
		if err != nil {
			return fmt.Errorf("reading the daemon token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: reading the body: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: decoding %s: %w", path, body, err)
	}
	return nil
}

// Health is the part of GET /health the harness reads.
type Health struct {
	Extension struct {
		Connected bool   `json:"connected"`
		Instance  string `json:"instance"`
		Browser   string `json:"browser"` // "chrome" or "firefox", as the extension said
	} `json:"extension"`
}

// Health reads GET /health.
func (d *Daemon) Health(ctx context.Context) (Health, error) {
	var h Health
	err := d.get(ctx, "/health", false, &h)
	return h, err
}

// Command is one entry of GET /commands.
type Command struct {
	ID          string     `json:"correlation_id"`
	Action      string     `json:"action"`
	State       string     `json:"state"`
	Delivered   bool       `json:"delivered"`
	Acked       bool       `json:"acked"`
	Reason      string     `json:"reason"`
	CreatedAt   time.Time  `json:"created_at"`
	DeliveredAt *time.Time `json:"delivered_at"`
	FinishedAt  *time.Time `json:"finished_at"`
}

// Commands is the daemon's GET /commands debug view of every client.
type Commands struct {
	Pending   []Command `json:"pending"`
	Completed []Command `json:"completed"` // retained, at most --max-retained per client
	Failed    []Command `json:"failed"`    // the failed ring, at most 100
}

// Find returns the command with correlation id id, if the view holds it.
func (cs Commands) Find(id string) (Command, bool) {
	for _, list := range [][]Command{cs.Pending, cs.Completed, cs.Failed} {
		for _, c := range list {
			if c.ID == id {
				return c, true
			}
		}
	}
	return Command{}, false
}

// Commands reads GET /commands with the state-dir token.
func (d *Daemon) Commands(ctx context.Context) (Commands, error) {
	var v struct {
		Commands Commands `json:"commands"`
	}
	err := d.get(ctx, "/commands", true, &v)
	return v.Commands, err
}
