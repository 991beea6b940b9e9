package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/upload"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are the daemon's own settings, shared by 'daemon run' and
// 'daemon start' (which passes them on to the daemon it spawns).
type runFlags struct {
	extensionID     string
	firefoxUUID     string
	dispatchTimeout time.Duration
	ackTimeout      time.Duration
	execTimeout     time.Duration
	disconnectGrace time.Duration
	resultTTL       time.Duration
	annotationTTL   time.Duration
	userWait        time.Duration
	maxActive       int
	maxRetained     int
	maxActiveTotal  int
	maxQueuedMB     int
	inlineWaitMS    int
	progressEvery   time.Duration
	inlineTokens    int
	outputBudgetMB  int
	logLevel        string
	uploadDirs      []string
	redactHeaders   []string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.extensionID, "extension-id", "", "pinned Chrome extension ID allowed as Origin (default: the bundled extension's)")
	fs.StringVar(&f.firefoxUUID, "firefox-extension-uuid", "", "allow the extension in Firefox as Origin: its moz-extension:// UUID, which Firefox picks per profile (about:debugging, This Firefox, Gasoline's Internal UUID); without it, the first pairing from Firefox with a valid code pins its origin")
	f.registerTracker(fs)
	fs.DurationVar(&f.progressEvery, "progress-every", tools.DefaultProgressEvery, "how often a blocking wait reports progress to a client that asks for it")
	fs.IntVar(&f.inlineWaitMS, "inline-wait-ms", 0, "default wait_ms of interact, at most 25000 (0: always return the queued handle at once)")
	fs.DurationVar(&f.userWait, "annotation-wait", 55*time.Second, "how long command_result waits on a draw-mode session by default, at most 55s")
	fs.IntVar(&f.inlineTokens, "inline-tokens", 10000, "results above this many estimated tokens are stored and read by slice or extract")
	fs.IntVar(&f.outputBudgetMB, "output-budget-mb", 256, "memory for stored large outputs, least recently used evicted first")
	fs.StringVar(&f.logLevel, "log-level", "info", "daemon.log level: debug, info, warn, error")
	fs.StringArrayVar(&f.uploadDirs, "upload-dir", nil,
		"let the upload action read files under this directory (repeatable; default: $"+upload.EnvDirs+", a list like PATH; none: uploads are off)")
	fs.StringArrayVar(&f.redactHeaders, "redact-header", nil,
		"also redact this captured header, e.g. x-tenant-key or x-my-* (repeatable; added to $"+EnvRedactHeaders+", comma-separated, and the built-in credential names)")
}

// EnvRedactHeaders lists, comma-separated, header names the daemon redacts
// besides the built-in credential names (capture.SecretHeaders).
const EnvRedactHeaders = "GASOLINE_REDACT_HEADERS"

func (f *runFlags) options(port int, dir string) (daemon.Options, error) {
	lvl, err := zerolog.ParseLevel(f.logLevel)
	if err != nil {
		return daemon.Options{}, fmt.Errorf("--log-level: %w", err)
	}
	if f.inlineTokens < 100 || f.outputBudgetMB < 1 {
		return daemon.Options{}, fmt.Errorf("--inline-tokens must be at least 100 and --output-budget-mb at least 1")
	}
	if f.maxActiveTotal < 1 || f.maxQueuedMB < 1 {
		return daemon.Options{}, fmt.Errorf("--max-active-total and --max-queued-mb must be at least 1")
	}
	// The bridge gives interact 35 s; an inline wait must end well before,
	// or the agent would lose the correlation id to a bridge timeout.
	if f.inlineWaitMS < 0 || f.inlineWaitMS > 25000 {
		return daemon.Options{}, fmt.Errorf("--inline-wait-ms %d is out of range 0-25000 (the bridge allows interact 35 s)", f.inlineWaitMS)
	}
	if f.userWait <= 0 || f.userWait > 55*time.Second {
		return daemon.Options{}, fmt.Errorf("--annotation-wait %s is out of range (0, 55s]: the bridge allows these calls 65 s", f.userWait)
	}
	uploads := f.uploadDirs
	if len(uploads) == 0 {
		for _, d := range filepath.SplitList(os.Getenv(upload.EnvDirs)) {
			if d != "" {
				uploads = append(uploads, d)
			}
		}
	}
	return daemon.Options{
		Port: port, StateDir: dir, ExtensionID: f.extensionID, FirefoxExtensionUUID: f.firefoxUUID, UserDrivenWait: f.userWait, UploadDirs: uploads,
		InlineWait:    time.Duration(f.inlineWaitMS) * time.Millisecond,
		ProgressEvery: f.progressEvery,
		LogLevel:      lvl,
		Tracker:       trackerOptions(f),
		Output:        output.Options{InlineTokens: f.inlineTokens, ByteBudget: int64(f.outputBudgetMB) << 20},
		Capture:       capture.Options{RedactHeaders: append(strings.Split(os.Getenv(EnvRedactHeaders), ","), f.redactHeaders...)},
	}, nil
}

func newDaemonCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run, start, stop or check the gasoline daemon",
	}
	rf := &runFlags{}
	run := &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground (logs also go to stderr)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			port, dir, err := g.resolve()
			if err != nil {
				return err
			}
			o, err := rf.options(port, dir)
			if err != nil {
				return err
			}
			if isTerminal(os.Stderr) {
				// In a terminal, also show the log; a detached daemon's
				// stderr is daemon.log itself.
				o.LogTo = zerolog.ConsoleWriter{Out: cmd.ErrOrStderr(), TimeFormat: time.TimeOnly}
			}
			err = daemon.Run(cmd.Context(), o)
			if errors.Is(err, daemon.ErrAlreadyRunning) {
				return &ExitError{Code: exitAlreadyRunning, Err: err}
			}
			return err
		},
	}
	rf.register(run.Flags())

	sf := &runFlags{}
	start := &cobra.Command{
		Use:   "start",
		Short: "Start the daemon in the background; returns once it is healthy (a no-op if one already is)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return startDaemon(cmd, g)
		},
	}
	sf.register(start.Flags())

	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon gracefully",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return stopDaemon(cmd, g)
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "Report whether the daemon runs (exit 0) or not (exit 3)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return daemonStatus(cmd, g)
		},
	}
	cmd.AddCommand(run, start, stop, status)
	return cmd
}

// exitAlreadyRunning is the exit code of 'daemon run' when a daemon already
// runs with the state dir; 'daemon start' then waits for that daemon.
const exitAlreadyRunning = 4

// adminClient returns the client of the daemon of the state dir, with its
// token: it refuses a token others may know.
func adminClient(g *globals) (*client.Client, error) {
	port, dir, err := g.resolve()
	if err != nil {
		return nil, err
	}
	if _, err := (state.Dir{Path: dir}).ReadToken(); err != nil {
		return nil, err
	}
	return client.Local(port, dir), nil
}

// healthOf asks the daemon of dir for its health. Its errors tell apart
// nothing answering (client.ErrUnreachable), another program on the port
// (a *client.NotDaemonError) and a state dir others control
// (state.ErrInsecure).
func healthOf(ctx context.Context, port int, dir string) (apitype.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c := client.Local(port, dir)
	defer c.CloseIdleConnections()
	return c.Health(ctx)
}

// startDaemon spawns 'gasoline daemon run' detached and waits until it
// answers /health.
func startDaemon(cmd *cobra.Command, g *globals) error {
	port, dir, err := g.resolve()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	ctx := cmd.Context()
	switch h, err := healthOf(ctx, port, dir); {
	case err == nil && h.Version == version.Version:
		fmt.Fprintf(out, "gasoline daemon already running on 127.0.0.1:%d (pid %d, version %s)\n", h.Port, h.PID, h.Version)
		return nil
	case err == nil:
		if replace, err := replaceOutdated(cmd, g, h); err != nil || !replace {
			return err
		}
	case errors.Is(err, client.ErrNotGasoline), errors.Is(err, state.ErrInsecure):
		return unwrapDoing(err)
	}
	sd, err := state.Open(dir)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the gasoline executable: %w", err)
	}
	args := []string{"daemon", "run", "--port", strconv.Itoa(port), "--state-dir", dir}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "port" || f.Name == "state-dir" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok { // a repeated flag: one argument each
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	logPath := sd.File(state.LogFile)
	logf, err := sd.OpenFile(state.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("opening daemon log: %w", err)
	}
	defer logf.Close()
	child := exec.Command(self, args...)
	child.Stdin = nil
	child.Stdout, child.Stderr = logf, logf // panics and early errors land in the log
	child.Dir = "/"
	detach(child)
	if err := child.Start(); err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()

	deadline := time.Now().Add(10 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		if h, err := healthOf(ctx, port, dir); err == nil {
			if h.PID == child.Process.Pid {
				fmt.Fprintf(out, "gasoline daemon started on 127.0.0.1:%d (pid %d); log: %s\n", h.Port, h.PID, logPath)
			} else {
				fmt.Fprintf(out, "gasoline daemon already running on 127.0.0.1:%d (pid %d)\n", h.Port, h.PID)
			}
			return nil
		}
		select {
		case err := <-exited:
			exited = nil // a nil channel: the next turns wait on the others
			if ee, ok := errors.AsType[*exec.ExitError](err); ok && ee.ExitCode() == exitAlreadyRunning {
				// Another starter's daemon holds the state dir and is
				// still coming up: it will serve us too.
				continue
			}
			if h, herr := healthOf(ctx, port, dir); herr == nil {
				fmt.Fprintf(out, "gasoline daemon already running on 127.0.0.1:%d (pid %d)\n", h.Port, h.PID)
				return nil
			}
			return fmt.Errorf("the daemon exited during start-up (%v): %s\nsee %s, or run 'gasoline daemon run' to watch it start", err, lastLine(logPath), logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon (pid %d) did not become healthy within 10s; see %s", child.Process.Pid, logPath)
		}
	}
}

// unwrapDoing returns the error a client call wrapped, without the
// "checking daemon health:" prefix, for the errors that say it all.
func unwrapDoing(err error) error {
	if nd, ok := errors.AsType[*client.NotDaemonError](err); ok {
		return nd
	}
	return err
}

func stopDaemon(cmd *cobra.Command, g *globals) error {
	port, dir, err := g.resolve()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	ctx := cmd.Context()
	h, err := healthOf(ctx, port, dir)
	if err != nil {
		switch {
		case errors.Is(err, client.ErrNotGasoline):
			return fmt.Errorf("not stopping anything: %w", unwrapDoing(err))
		case errors.Is(err, state.ErrInsecure):
			return err
		}
		fmt.Fprintf(out, "no gasoline daemon is running on 127.0.0.1:%d\n", port)
		if pid, ok := pidFromFile(dir); ok && processAlive(pid) {
			fmt.Fprintf(out, "note: %s names pid %d, which is alive but does not answer; if it is a stuck gasoline daemon, end it with 'kill %d'\n",
				state.Dir{Path: dir}.File(state.PIDFile), pid, pid)
		}
		return nil
	}
	c, err := adminClient(g)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Shutdown(sctx); err != nil {
		return fmt.Errorf("asking the daemon (pid %d) to stop: %w", h.PID, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := healthOf(ctx, port, dir); err != nil && !processAlive(h.PID) {
			fmt.Fprintf(out, "gasoline daemon (pid %d) stopped\n", h.PID)
			return nil
		}
	}
	return fmt.Errorf("the daemon (pid %d) accepted the stop request but is still running after 10s; see its log", h.PID)
}

func daemonStatus(cmd *cobra.Command, g *globals) error {
	port, dir, err := g.resolve()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	h, err := healthOf(cmd.Context(), port, dir)
	if err != nil {
		err = unwrapDoing(err)
		fmt.Fprintf(out, "gasoline daemon is not running on 127.0.0.1:%d (%v)\n", port, err)
		return &ExitError{Code: 3, Err: err}
	}
	ext := "no extension connected"
	if h.Extension.Connected {
		ext = "extension connected"
	}
	fmt.Fprintf(out, "gasoline daemon running on 127.0.0.1:%d: pid %d, version %s, up %s, %s, %d queued, %d pending\n",
		h.Port, h.PID, h.Version, time.Duration(h.UptimeSeconds*float64(time.Second)).Round(time.Second), ext, h.Queue.Queued, h.Queue.Pending)
	return nil
}

func pidFromFile(dir string) (int, bool) {
	b, err := os.ReadFile(state.Dir{Path: dir}.File(state.PIDFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 0
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			last = t
		}
	}
	return last
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
