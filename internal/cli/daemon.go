package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are the daemon's own settings, shared by 'daemon run' and
// 'daemon start' (which passes them on to the daemon it spawns).
type runFlags struct {
	extensionID     string
	dispatchTimeout time.Duration
	ackTimeout      time.Duration
	execTimeout     time.Duration
	disconnectGrace time.Duration
	resultTTL       time.Duration
	maxActive       int
	maxRetained     int
	inlineWaitMS    int
	inlineTokens    int
	outputBudgetMB  int
	logLevel        string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.extensionID, "extension-id", "", "pinned Chrome extension ID allowed as Origin (default: the bundled extension's)")
	fs.DurationVar(&f.dispatchTimeout, "dispatch-timeout", 30*time.Second, "expire queued commands no extension took within this")
	fs.DurationVar(&f.ackTimeout, "ack-timeout", 3*time.Second, "expire delivered commands the extension did not acknowledge within this")
	fs.DurationVar(&f.execTimeout, "exec-timeout", 10*time.Second, "default execution deadline of a delivered command")
	fs.DurationVar(&f.disconnectGrace, "disconnect-grace", 3*time.Second, "fail an absent extension's running commands after this")
	fs.DurationVar(&f.resultTTL, "result-ttl", 60*time.Second, "keep finished results this long")
	fs.IntVar(&f.maxActive, "max-active", 32, "unfinished commands allowed per client")
	fs.IntVar(&f.maxRetained, "max-retained", 100, "finished results retained per client")
	fs.IntVar(&f.inlineWaitMS, "inline-wait-ms", 0, "default wait_ms of interact, at most 25000 (0: always return the queued handle at once)")
	fs.IntVar(&f.inlineTokens, "inline-tokens", 10000, "results above this many estimated tokens are stored and read by slice or extract")
	fs.IntVar(&f.outputBudgetMB, "output-budget-mb", 256, "memory for stored large outputs, least recently used evicted first")
	fs.StringVar(&f.logLevel, "log-level", "info", "daemon.log level: debug, info, warn, error")
}

func (f *runFlags) options(port int, dir string) (daemon.Options, error) {
	lvl, err := zerolog.ParseLevel(f.logLevel)
	if err != nil {
		return daemon.Options{}, fmt.Errorf("--log-level: %w", err)
	}
	if f.inlineTokens < 100 || f.outputBudgetMB < 1 {
		return daemon.Options{}, fmt.Errorf("--inline-tokens must be at least 100 and --output-budget-mb at least 1")
	}
	// The bridge gives interact 35 s; an inline wait must end well before,
	// or the agent would lose the correlation id to a bridge timeout.
	if f.inlineWaitMS < 0 || f.inlineWaitMS > 25000 {
		return daemon.Options{}, fmt.Errorf("--inline-wait-ms %d is out of range 0-25000 (the bridge allows interact 35 s)", f.inlineWaitMS)
	}
	return daemon.Options{
		Port: port, StateDir: dir, ExtensionID: f.extensionID,
		InlineWait: time.Duration(f.inlineWaitMS) * time.Millisecond,
		LogLevel:   lvl,
		Tracker:    trackerOptions(f),
		Output:     output.Options{InlineTokens: f.inlineTokens, ByteBudget: int64(f.outputBudgetMB) << 20},
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
			return daemon.Run(cmd.Context(), o)
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

func adminClient(g *globals) (*client.Client, error) {
	port, dir, err := g.resolve()
	if err != nil {
		return nil, err
	}
	tok, err := state.Dir{Path: dir}.ReadToken()
	if err != nil {
		return nil, err
	}
	return client.New(config.BaseURL(port), tok), nil
}

func healthOf(ctx context.Context, port int) (apitype.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c := client.New(config.BaseURL(port), "")
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
	if h, err := healthOf(ctx, port); err == nil {
		fmt.Fprintf(out, "gasoline daemon already running on 127.0.0.1:%d (pid %d, version %s)\n", h.Port, h.PID, h.Version)
		return nil
	} else if errors.Is(err, client.ErrNotGasoline) {
		return fmt.Errorf("port %d on 127.0.0.1 is in use by another program; pass --port (or set %s) to use another", port, config.EnvPort)
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
		if f.Name != "port" && f.Name != "state-dir" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	logPath := sd.File(state.LogFile)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening daemon log: %w", err)
	}
	defer logf.Close()
	child := exec.Command(self, args...)
	child.Stdin = nil
	child.Stdout, child.Stderr = logf, logf // panics and early errors land in the log
	child.Dir = "/"
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()

	deadline := time.Now().Add(10 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		if h, err := healthOf(ctx, port); err == nil {
			if h.PID == child.Process.Pid {
				fmt.Fprintf(out, "gasoline daemon started on 127.0.0.1:%d (pid %d); log: %s\n", h.Port, h.PID, logPath)
			} else {
				fmt.Fprintf(out, "gasoline daemon already running on 127.0.0.1:%d (pid %d)\n", h.Port, h.PID)
			}
			return nil
		}
		select {
		case err := <-exited:
			if h, herr := healthOf(ctx, port); herr == nil {
				// Another starter won the race; its daemon serves us too.
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

func stopDaemon(cmd *cobra.Command, g *globals) error {
	port, dir, err := g.resolve()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	ctx := cmd.Context()
	h, err := healthOf(ctx, port)
	if err != nil {
		if errors.Is(err, client.ErrNotGasoline) {
			return fmt.Errorf("port %d is held by a program that is not gasoline; not touching it", port)
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
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Shutdown(sctx); err != nil {
		return fmt.Errorf("asking the daemon (pid %d) to stop: %w", h.PID, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := healthOf(ctx, port); err != nil && !processAlive(h.PID) {
			fmt.Fprintf(out, "gasoline daemon (pid %d) stopped\n", h.PID)
			return nil
		}
	}
	return fmt.Errorf("the daemon (pid %d) accepted the stop request but is still running after 10s; see its log", h.PID)
}

func daemonStatus(cmd *cobra.Command, g *globals) error {
	port, _, err := g.resolve()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	h, err := healthOf(cmd.Context(), port)
	if err != nil {
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
