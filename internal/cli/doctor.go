package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/extdir"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/spf13/cobra"
)

// doctorClient names the doctor's own commands in the daemon (they show in
// /commands and the log under this client).
const doctorClient = "gasoline-doctor"

// roundTripWait bounds the doctor's command through the extension.
const roundTripWait = 10 * time.Second

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the whole setup (binaries, daemon, token, extension, browser) and say how to fix what is wrong",
		Long: "doctor checks, in order: this gasoline and its gasoline-mcp, Chrome or Chromium, the\n" +
			"state dir and token, the port and the daemon (running, same version), the extension\n" +
			"(paired, polling) and finally runs one harmless script in the active tab through the\n" +
			"extension, timing it. Each line says ok, problem (with the fix under it) or skip.\n" +
			"It exits 1 when any check found a problem.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			port, dir, err := g.resolve()
			if err != nil {
				return err
			}
			d := &doctor{out: cmd.OutOrStdout(), port: port, dir: dir}
			d.run(cmd.Context())
			if d.problems > 0 {
				return &ExitError{Code: 1, Err: fmt.Errorf("%d problem(s) found; fix the first one and run 'gasoline doctor' again", d.problems)}
			}
			return nil
		},
	}
}

// doctor runs the checks and prints one finding per line.
type doctor struct {
	out      io.Writer
	port     int
	dir      string
	problems int
	// noBrowser is set when no Chrome or Chromium is on this machine: the
	// agent's side of a remote setup (WSL, a container, SSH).
	noBrowser bool
}

func (d *doctor) ok(subject, format string, args ...any) {
	fmt.Fprintf(d.out, "ok       %-11s %s\n", subject, fmt.Sprintf(format, args...))
}

func (d *doctor) skip(subject, why string) {
	fmt.Fprintf(d.out, "skip     %-11s %s\n", subject, why)
}

func (d *doctor) problem(subject, what, fix string) {
	d.problems++
	fmt.Fprintf(d.out, "problem  %-11s %s\n", subject, what)
	for i, line := range strings.Split(fix, "\n") {
		if i == 0 {
			line = "fix: " + line
		} else {
			line = "     " + line
		}
		fmt.Fprintf(d.out, "         %-11s %s\n", "", line)
	}
}

func (d *doctor) run(ctx context.Context) {
	d.checkBinaries(ctx)
	d.checkBrowser()
	token := d.checkState()
	d.checkExtensionFolder()
	h, up := d.checkDaemon(ctx)
	if !up {
		for _, s := range []string{"auth", "extension", "round trip"} {
			d.skip(s, "needs a running daemon")
		}
		return
	}
	c := client.Local(d.port, d.dir)
	defer c.CloseIdleConnections()
	if !d.checkTokenAccepted(ctx, c, token) {
		for _, s := range []string{"extension", "round trip"} {
			d.skip(s, "needs the daemon to accept this state dir's token")
		}
		return
	}
	if !d.checkExtension(h) {
		d.skip("round trip", "needs a connected extension")
		return
	}
	d.checkRoundTrip(ctx, c)
}

// checkBinaries checks this gasoline and the gasoline-mcp beside it (or on
// PATH) are the same build.
func (d *doctor) checkBinaries(ctx context.Context) {
	exe, _ := os.Executable()
	d.ok("gasoline", "version %s at %s", version.Version, exe)
	bridge, err := bridgeNextToSelf()
	if err != nil {
		if bridge, err = exec.LookPath(bridgeBinary()); err != nil {
			d.problem("bridge", bridgeBinary()+" is neither next to this gasoline nor on PATH",
				"build both binaries with 'make build' (bin/gasoline and bin/gasoline-mcp) and point your agent at bin/gasoline-mcp")
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bridge, "--version").Output()
	got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "gasoline-mcp"))
	switch {
	case err != nil:
		d.problem("bridge", fmt.Sprintf("%s --version failed: %v", bridge, err), "rebuild it with 'make build'")
	case got != version.Version:
		d.problem("bridge", fmt.Sprintf("%s is version %s, this gasoline is %s", bridge, got, version.Version),
			"rebuild both with 'make build' so they match, then restart your agent")
	default:
		d.ok("bridge", "version %s at %s", got, bridge)
	}
}

// checkExtensionFolder compares the extension folder of the state dir, when
// 'gasoline extension install' wrote one, with the extension this binary
// carries.
func (d *doctor) checkExtensionFolder() {
	got, ok := extdir.Installed(d.dir)
	if !ok {
		d.skip("ext folder", "none in the state dir ('gasoline extension install' writes one; a clone's extension/ works too)")
		return
	}
	want, err := extdir.Embedded(version.Version)
	switch {
	case err != nil:
		d.problem("ext folder", "reading the extension this gasoline carries: "+err.Error(), "rebuild gasoline")
	case got.SHA256 != want.SHA256:
		d.problem("ext folder", fmt.Sprintf("%s holds the extension of gasoline %s, not this one's (%s)", extdir.Dir(d.dir), got.Version, want.Version),
			"gasoline extension install\nthen press reload on gasoline's card in chrome://extensions")
	default:
		d.ok("ext folder", "%s holds this gasoline's extension", extdir.Dir(d.dir))
	}
}

// checkBrowser looks for Chrome or Chromium where each OS installs it.
func (d *doctor) checkBrowser() {
	if p, ok := findBrowser(); ok {
		d.ok("browser", "%s", p)
		return
	}
	// Not a problem by itself: the agent may run away from the browser, whose
	// extension reaches this daemon through a forwarded port; the extension
	// check says whether it does.
	d.noBrowser = true
	d.skip("browser", "none on this machine: fine when Chrome runs on another (WSL, a container, SSH); the extension line says whether it reaches this daemon")
}

func findBrowser() (string, bool) {
	for _, name := range []string{"google-chrome", "google-chrome-stable", "chromium", "chromium-browser", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	var candidates []string
	switch runtime.GOOS {
	case "darwin":
		for _, root := range []string{"/Applications", filepath.Join(os.Getenv("HOME"), "Applications")} {
			candidates = append(candidates,
				filepath.Join(root, "Google Chrome.app", "Contents", "MacOS", "Google Chrome"),
				filepath.Join(root, "Chromium.app", "Contents", "MacOS", "Chromium"))
		}
	case "windows":
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			if root := os.Getenv(env); root != "" {
				candidates = append(candidates, filepath.Join(root, "Google", "Chrome", "Application", "chrome.exe"))
			}
		}
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, true
		}
	}
	return "", false
}

// checkState checks the state dir and the token in it, and returns the
// token ("" when unreadable).
func (d *doctor) checkState() string {
	fi, err := os.Stat(d.dir)
	if errors.Is(err, fs.ErrNotExist) {
		d.problem("state dir", d.dir+" does not exist: no daemon has run with it",
			"'gasoline daemon start' creates it (or pass the --state-dir your daemon uses)")
		return ""
	}
	if err != nil {
		d.problem("state dir", err.Error(), "check the path and its permissions")
		return ""
	}
	if !fi.IsDir() {
		d.problem("state dir", d.dir+" is not a directory", "move the file away, or pass another --state-dir")
		return ""
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		d.problem("state dir", fmt.Sprintf("%s is open to other users (%04o): they could read the token", d.dir, fi.Mode().Perm()),
			"chmod 700 "+shellQuote(d.dir))
	} else {
		d.ok("state dir", "%s", d.dir)
	}

	sd := state.Dir{Path: d.dir}
	token, err := sd.ReadToken()
	if errors.Is(err, state.ErrInsecure) {
		d.problem("token", err.Error(), fmt.Sprintf("replace it: gasoline daemon stop; rm %s; gasoline daemon start",
			shellQuote(sd.File(state.TokenFile))))
		return ""
	}
	if err != nil {
		d.problem("token", err.Error(), "'gasoline daemon start' creates it; if the daemon already runs, restart it: gasoline daemon stop && gasoline daemon start")
		return ""
	}
	if ti, err := os.Stat(sd.File(state.TokenFile)); err == nil && runtime.GOOS != "windows" && ti.Mode().Perm()&0o077 != 0 {
		d.problem("token", fmt.Sprintf("%s is readable by other users (%04o)", sd.File(state.TokenFile), ti.Mode().Perm()),
			"chmod 600 "+shellQuote(sd.File(state.TokenFile)))
		return token
	}
	d.ok("token", "%s is readable by you only", sd.File(state.TokenFile))
	return token
}

// checkDaemon checks who holds the port and, when it is the daemon, that it
// runs this version. It reports whether a daemon answers.
func (d *doctor) checkDaemon(ctx context.Context) (apitype.Health, bool) {
	addr := fmt.Sprintf("127.0.0.1:%d", d.port)
	h, err := healthOf(ctx, d.port, d.dir)
	if errors.Is(err, client.ErrNotGasoline) {
		if other, ok := plainHealth(ctx, addr); ok {
			d.problem("port", fmt.Sprintf("%s is a gasoline daemon (pid %d, version %s) of another state dir: it does not know the token in %s", addr, other.PID, other.Version, d.dir),
				"pass the --state-dir (or GASOLINE_STATE_DIR) that daemon was started with,\nor stop it ('gasoline daemon stop --state-dir <its dir>') and start one with this state dir")
			return h, false
		}
		d.problem("port", addr+" is held by another program, not gasoline",
			fmt.Sprintf("stop that program, or use another port everywhere: 'gasoline daemon start --port N', "+
				"'gasoline config <client> --port N --install' for the agent, and the port field of the extension's popup"))
		return h, false
	}
	if err != nil {
		if ln, lerr := net.Listen("tcp", addr); lerr != nil {
			d.problem("port", fmt.Sprintf("%s is in use but does not answer like gasoline: %v", addr, err),
				"find the program holding it ('lsof -i :"+strconv.Itoa(d.port)+"' or 'ss -ltnp'), or use another port (--port, GASOLINE_PORT, and the extension popup's port)")
			return h, false
		} else {
			ln.Close()
		}
		d.ok("port", "%s is free", addr)
		d.problem("daemon", "no gasoline daemon runs on "+addr,
			"gasoline daemon start (agents' gasoline-mcp also starts it by itself)")
		return h, false
	}
	d.ok("port", "%s is gasoline's daemon", addr)
	up := time.Duration(h.UptimeSeconds * float64(time.Second)).Round(time.Second)
	if h.Version != version.Version {
		d.problem("daemon", fmt.Sprintf("pid %d runs version %s, this gasoline is %s: agents talk to the old daemon", h.PID, h.Version, version.Version),
			"gasoline daemon stop && gasoline daemon start\nthen reload the extension in chrome://extensions if it changed too")
	} else {
		d.ok("daemon", "pid %d, version %s, up %s", h.PID, h.Version, up)
	}
	return h, true
}

// plainHealth reads GET /health at addr without the client's checks, to
// name a gasoline daemon that cannot prove it knows this state dir's token:
// one started with another state dir.
func plainHealth(ctx context.Context, addr string) (apitype.Health, bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return apitype.Health{}, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return apitype.Health{}, false
	}
	defer resp.Body.Close()
	var h apitype.Health
	err = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&h)
	return h, err == nil && h.Service == apitype.ServiceName
}

// checkTokenAccepted makes one authenticated call: a daemon started with
// another state dir refuses this token.
func (d *doctor) checkTokenAccepted(ctx context.Context, c *client.Client, token string) bool {
	if token == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := c.Commands(ctx)
	var ae *client.APIError
	switch {
	case err == nil:
		d.ok("auth", "the daemon accepts the token")
		return true
	case errors.As(err, &ae) && ae.Status == http.StatusUnauthorized:
		d.problem("auth", "the daemon refuses the token in "+d.dir+": it runs with another state dir",
			"pass the --state-dir (or GASOLINE_STATE_DIR) the daemon was started with, or restart it with this one:\n"+
				"gasoline daemon stop && gasoline daemon start")
	default:
		d.problem("auth", "an authenticated request failed: "+err.Error(), "see 'gasoline logs'")
	}
	return false
}

// checkExtension checks pairing and polling, and reports whether an
// extension is connected.
func (d *doctor) checkExtension(h apitype.Health) bool {
	p, err := pairing.New(d.dir, nil)
	switch {
	case err != nil:
		d.problem("pairing", err.Error(), "restart the daemon, then pair again with 'gasoline pair'")
	case !p.Paired():
		d.problem("pairing", "no extension has paired with this daemon",
			loadHint(d.dir)+",\n"+
				"run 'gasoline pair' and type the code into the extension's popup (its icon may hide under the puzzle piece)")
	default:
		d.ok("pairing", "an extension is paired")
	}
	if h.Extension.Connected {
		age := "just now"
		if h.Extension.LastSeen != nil {
			age = time.Since(*h.Extension.LastSeen).Round(100*time.Millisecond).String() + " ago"
		}
		in := browserName(h.Extension.Browser)
		if h.Extension.Skew != "" {
			fix := extcontract.Fix
			if h.Extension.Browser == apitype.BrowserFirefox {
				fix = "reload the gasoline add-on at about:debugging (This Firefox, Gasoline, Reload), then retry; " +
					"Firefox keeps running the old add-on after gasoline is rebuilt or updated"
			}
			d.problem("extension", fmt.Sprintf("connected%s (last poll %s), but %s", in, age, h.Extension.Skew), fix)
			return true
		}
		d.ok("extension", "connected%s, last poll %s", in, age)
		return true
	}
	what := "no extension has polled this daemon since it started"
	if h.Extension.LastSeen != nil {
		what = fmt.Sprintf("the extension is not polling; last poll %s ago", time.Since(*h.Extension.LastSeen).Round(time.Second))
	}
	if d.noBrowser {
		// The browser side is missing, as seen from here.
		d.problem("extension", what+"; no browser runs on this machine, so the extension must reach it from another",
			fmt.Sprintf("on the machine with Chrome, forward its 127.0.0.1:%d to this machine's 127.0.0.1:%d (the same port on both sides):\n"+
				"ssh -L %d:127.0.0.1:%d <this host>, the editor's forwarded port (devcontainer), or WSL's localhost forwarding;\n"+
				"then set port %d in the extension's popup and pair with 'gasoline pair' run here", d.port, d.port, d.port, d.port, d.port))
		return false
	}
	d.problem("extension", what,
		fmt.Sprintf("open Chrome; if it is open, check the extension's popup says paired and shows port %d,\n"+
			"or reload the extension in chrome://extensions", d.port))
	return false
}

// browserName is " in Chrome" or " in Firefox" for the browser the
// extension said it runs in, and "" when it did not say (an extension
// older than the browser parameter of its poll).
func browserName(b string) string {
	switch b {
	case apitype.BrowserChrome:
		return " in Chrome"
	case apitype.BrowserFirefox:
		return " in Firefox"
	}
	return ""
}

// roundTripResult is the part of a tool result the doctor reads.
type roundTripResult struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
	Reason string          `json:"reason"`
	Hint   string          `json:"hint"`
}

// checkRoundTrip runs a read-only script (location.href) in the active tab
// through the extension and times it.
func (d *doctor) checkRoundTrip(ctx context.Context, c *client.Client) {
	args, _ := json.Marshal(map[string]any{
		"action": "execute_js", "script": "location.href", "wait_ms": roundTripWait.Milliseconds(),
	})
	params, _ := json.Marshal(protocol.CallToolParams{Name: "interact", Arguments: args})
	msg, err := protocol.EncodeMessage(&protocol.Request{ID: protocol.Int64ID(1), Method: protocol.MethodToolsCall, Params: params})
	if err != nil {
		d.problem("round trip", err.Error(), "report this as a bug")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, roundTripWait+10*time.Second)
	defer cancel()
	start := time.Now()
	body, err := c.MCP(ctx, doctorClient, msg, false)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		d.problem("round trip", "the daemon did not answer: "+err.Error(), "see 'gasoline logs'")
		return
	}
	r, err := decodeRoundTrip(body)
	if err != nil {
		d.problem("round trip", err.Error(), "see 'gasoline logs'")
		return
	}
	switch {
	case r.Status == "complete":
		var res struct {
			Value any `json:"value"`
		}
		json.Unmarshal(r.Result, &res)
		d.ok("round trip", "the extension ran a script in the active tab (%v) in %s", res.Value, took)
	case r.Status == "error" && r.Reason == tracker.ReasonCommandError:
		// The extension answered; the page refused the script (a
		// chrome:// page, the Web Store). The chain works, but the check
		// did not: an agent acting there now would fail the same way.
		d.problem("round trip", fmt.Sprintf("the extension answered in %s, but the active tab refused the script: %s", took, r.Error),
			"open a web page (http:, https: or file:) in the active tab and run 'gasoline doctor' again")
	case r.Status == "queued" || r.Status == "pending":
		d.problem("round trip", fmt.Sprintf("the extension did not finish a one-line script within %s (status %s)", roundTripWait, r.Status),
			"reload the extension in chrome://extensions, then run 'gasoline doctor' again; 'gasoline logs' shows what happened")
	default:
		hint := r.Hint
		if hint == "" {
			hint = "see 'gasoline logs'"
		}
		d.problem("round trip", fmt.Sprintf("the command ended %s (%s) %s", r.Status, r.Reason, r.Error), hint)
	}
}

func decodeRoundTrip(body []byte) (roundTripResult, error) {
	var resp struct {
		Result *protocol.CallToolResult `json:"result"`
		Error  *protocol.WireError      `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return roundTripResult{}, fmt.Errorf("the daemon's answer is not JSON-RPC: %v", err)
	}
	if resp.Error != nil {
		return roundTripResult{}, fmt.Errorf("the daemon refused the command: %s", resp.Error.Message)
	}
	if resp.Result == nil {
		return roundTripResult{}, errors.New("the daemon's answer has no result")
	}
	sc, _ := json.Marshal(resp.Result.StructuredContent)
	var r roundTripResult
	if err := json.NewDecoder(bytes.NewReader(sc)).Decode(&r); err != nil || r.Status == "" {
		text := ""
		if len(resp.Result.Content) > 0 {
			text = resp.Result.Content[0].Text
		}
		return roundTripResult{}, fmt.Errorf("unexpected tool result: %s", text)
	}
	return r, nil
}
