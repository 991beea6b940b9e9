package bridge

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// Environment variables that override the timeout and logging defaults.
const (
	EnvTimeout        = "GASOLINE_TIMEOUT"
	EnvBrowserTimeout = "GASOLINE_BROWSER_TIMEOUT"
	EnvMaxTimeout     = "GASOLINE_MAX_TIMEOUT"
	EnvLogLevel       = "GASOLINE_MCP_LOG_LEVEL"
	EnvLogFile        = "GASOLINE_MCP_LOG_FILE"
)

// Run is gasoline-mcp's main: it parses args (flags without the program
// name), then relays JSON-RPC between stdin/stdout and the daemon until
// stdin ends (returning nil) or ctx is cancelled. Diagnostics go to stderr
// or the --log-file, never to stdout.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if f.version {
		fmt.Fprintf(stdout, "gasoline-mcp %s\n", version.Version)
		return nil
	}
	log, closeLog, err := f.logger(stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	p, err := config.Port(f.port)
	if err != nil {
		return err
	}
	dir, err := config.StateDir(f.stateDir)
	if err != nil {
		return err
	}
	// The bridge is a latency-bound relay of small messages: on one P a line
	// read, its handler and the HTTP transport's goroutines hand off without
	// waking other threads. An explicit GOMAXPROCS wins.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	in, restore := pollable(stdin)
	defer restore()
	project, _ := os.Getwd() // the agent starts gasoline-mcp in its project
	b := New(Options{Port: p, StateDir: dir, DaemonBin: f.daemonBin, Timeouts: f.timeouts, Logger: log, Project: project}, stdout)
	log.Info().Str("client", b.ClientID()).Int("port", p).Str("state_dir", dir).
		Str("version", version.Version).Msg("bridge started")
	b.CheckDaemonVersion(ctx)
	return b.Serve(ctx, in)
}

// flags are gasoline-mcp's command line, defaulted from the environment.
type flags struct {
	port      int
	stateDir  string
	daemonBin string
	logFile   string
	logLevel  string
	version   bool
	timeouts  Timeouts
}

// parseFlags parses args. It returns flag.ErrHelp after printing the usage
// for -h, and an error saying what to fix for stray arguments, a bad
// timeout in a flag or the environment, or an unknown flag (printed with
// the usage).
func parseFlags(args []string, stderr io.Writer) (flags, error) {
	fs := flag.NewFlagSet("gasoline-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gasoline-mcp [flags]\n\n"+
			"gasoline-mcp is the MCP server an agent launches: it relays JSON-RPC on\n"+
			"stdin/stdout to the gasoline daemon, starting the daemon when none answers.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	f := flags{timeouts: DefaultTimeouts}
	fs.IntVar(&f.port, "port", 0, "daemon port (env "+config.EnvPort+", default 7890)")
	fs.StringVar(&f.stateDir, "state-dir", "", "daemon state directory holding the token (env "+config.EnvStateDir+", default ~/.gasoline)")
	fs.StringVar(&f.daemonBin, "daemon-bin", os.Getenv(EnvDaemonBin), "path of the gasoline executable used to start the daemon (env "+EnvDaemonBin+"; default: next to gasoline-mcp, else on PATH)")
	fs.StringVar(&f.logFile, "log-file", os.Getenv(EnvLogFile), "append diagnostics to this file instead of stderr (env "+EnvLogFile+")")
	fs.StringVar(&f.logLevel, "log-level", envOr(EnvLogLevel, "warn"), "diagnostics level: debug, info, warn, error (env "+EnvLogLevel+")")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	envErr := timeoutFlags(fs, &f.timeouts)
	if err := fs.Parse(args); err != nil || f.version {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected arguments %q; gasoline-mcp takes flags only (see --help)", fs.Args())
	case envErr != nil:
		return f, envErr
	case f.timeouts.Default <= 0 || f.timeouts.Browser <= 0 || f.timeouts.Max <= 0:
		return f, errors.New("timeouts must be positive durations such as 10s")
	}
	return f, nil
}

// timeoutFlags defines the timeout flags on fs, writing into t, whose
// values are the defaults unless the environment overrides them. It
// returns what is wrong with the environment's values, which are then
// ignored.
func timeoutFlags(fs *flag.FlagSet, t *Timeouts) error {
	var envErr error
	for _, tf := range []struct {
		d         *time.Duration
		name, env string
		usage     string
	}{
		{&t.Default, "timeout", EnvTimeout, "timeout of a daemon call"},
		{&t.Browser, "browser-timeout", EnvBrowserTimeout, "timeout of tool calls that need the browser (interact)"},
		{&t.Max, "max-timeout", EnvMaxTimeout, "ceiling of every timeout, blocking waits included"},
	} {
		if s := os.Getenv(tf.env); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				envErr = errors.Join(envErr, fmt.Errorf("%s=%q is not a positive duration such as 10s", tf.env, s))
			} else {
				*tf.d = d
			}
		}
		fs.DurationVar(tf.d, tf.name, *tf.d, tf.usage+" (env "+tf.env+")")
	}
	return envErr
}

// logger returns the bridge's diagnostics logger, writing to --log-file
// (appended, created 0600) or else to stderr, and the function that closes
// the file.
func (f flags) logger(stderr io.Writer) (zerolog.Logger, func(), error) {
	out, closeOut := stderr, func() {}
	if f.logFile != "" {
		file, err := os.OpenFile(f.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return zerolog.Logger{}, nil, fmt.Errorf("opening log file: %w", err)
		}
		out, closeOut = file, func() { file.Close() }
	}
	level, err := zerolog.ParseLevel(strings.ToLower(f.logLevel))
	if err != nil || level == zerolog.NoLevel {
		closeOut()
		return zerolog.Logger{}, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	return zerolog.New(out).Level(level).With().Timestamp().Str("component", "gasoline-mcp").Logger(), closeOut, nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// newClientID returns a ULID-like id: 26 Crockford base32 characters, 48
// bits of milliseconds then 80 random bits, so ids sort by creation time.
func newClientID() string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	rand.Read(b[6:])
	// 128 bits → 26 characters of 5 bits, the first holding the top 3 bits.
	var out [26]byte
	hi := uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	lo := uint64(b[8])<<56 | uint64(b[9])<<48 | uint64(b[10])<<40 | uint64(b[11])<<32 |
		uint64(b[12])<<24 | uint64(b[13])<<16 | uint64(b[14])<<8 | uint64(b[15])
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
