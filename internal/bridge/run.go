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
	fs := flag.NewFlagSet("gasoline-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gasoline-mcp [flags]\n\n"+
			"gasoline-mcp is the MCP server an agent launches: it relays JSON-RPC on\n"+
			"stdin/stdout to the gasoline daemon, starting the daemon when none answers.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	var (
		port       = fs.Int("port", 0, "daemon port (env "+config.EnvPort+", default 7890)")
		stateDir   = fs.String("state-dir", "", "daemon state directory holding the token (env "+config.EnvStateDir+", default ~/.gasoline)")
		daemonBin  = fs.String("daemon-bin", os.Getenv(EnvDaemonBin), "path of the gasoline executable used to start the daemon (env "+EnvDaemonBin+"; default: next to gasoline-mcp, else on PATH)")
		logFile    = fs.String("log-file", os.Getenv(EnvLogFile), "append diagnostics to this file instead of stderr (env "+EnvLogFile+")")
		logLevel   = fs.String("log-level", envOr(EnvLogLevel, "warn"), "diagnostics level: debug, info, warn, error (env "+EnvLogLevel+")")
		showVer    = fs.Bool("version", false, "print the version and exit")
		timeouts   = DefaultTimeouts
		envTimeout error
	)
	for _, t := range []struct {
		d         *time.Duration
		name, env string
		usage     string
	}{
		{&timeouts.Default, "timeout", EnvTimeout, "timeout of a daemon call"},
		{&timeouts.Browser, "browser-timeout", EnvBrowserTimeout, "timeout of tool calls that need the browser (interact)"},
		{&timeouts.Max, "max-timeout", EnvMaxTimeout, "ceiling of every timeout, blocking waits included"},
	} {
		if s := os.Getenv(t.env); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				envTimeout = errors.Join(envTimeout, fmt.Errorf("%s=%q is not a positive duration such as 10s", t.env, s))
			} else {
				*t.d = d
			}
		}
		fs.DurationVar(t.d, t.name, *t.d, t.usage+" (env "+t.env+")")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *showVer {
		fmt.Fprintf(stdout, "gasoline-mcp %s\n", version.Version)
		return nil
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q; gasoline-mcp takes flags only (see --help)", fs.Args())
	}
	if envTimeout != nil {
		return envTimeout
	}
	if timeouts.Default <= 0 || timeouts.Browser <= 0 || timeouts.Max <= 0 {
		return errors.New("timeouts must be positive durations such as 10s")
	}

	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("opening log file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	level, err := zerolog.ParseLevel(strings.ToLower(*logLevel))
	if err != nil || level == zerolog.NoLevel {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	log := zerolog.New(logOut).Level(level).With().Timestamp().Str("component", "gasoline-mcp").Logger()

	p, err := config.Port(*port)
	if err != nil {
		return err
	}
	dir, err := config.StateDir(*stateDir)
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
	b := New(Options{
		Port:      p,
		StateDir:  dir,
		DaemonBin: *daemonBin,
		Timeouts:  timeouts,
		Logger:    log,
	}, stdout)
	log.Info().Str("client", b.ClientID()).Int("port", p).Str("state_dir", dir).
		Str("version", version.Version).Msg("bridge started")
	b.CheckDaemonVersion(ctx)
	return b.Serve(ctx, in)
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
