// Package daemon runs the long-lived gasoline daemon: it owns the state
// directory, the command tracker and the loopback HTTP server, and shuts them
// down gracefully.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/kv"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/task"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/upload"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// Options configure a daemon.
type Options struct {
	Port        int
	StateDir    string
	ExtensionID string // "" pins server.DefaultExtensionID
	// FirefoxExtensionUUID, when set, also allows the extension in Firefox
	// (server.Config.FirefoxExtensionUUID).
	FirefoxExtensionUUID string
	Tracker              tracker.Options // timers and limits; zero fields take the defaults
	InlineWait           time.Duration   // interact's default wait_ms
	// UserDrivenWait is command_result's default wait on a draw-mode
	// session (0: 55 s); tests shorten it.
	UserDrivenWait time.Duration
	// ProgressEvery is how often blocking waits report progress to clients
	// that ask for it; 0 means tools.DefaultProgressEvery (5 s).
	ProgressEvery time.Duration
	Output        output.Options  // large-output store; zero fields take the defaults
	Capture       capture.Options // capture buffers; zero fields take the defaults
	LogLevel      zerolog.Level
	// LogTo receives log lines as well as daemon.log (e.g. stderr in the
	// foreground); nil for none.
	LogTo io.Writer
	// Ready, when set, is called once the daemon accepts connections.
	Ready func(addr net.Addr)
	// UploadDirs are the directories the upload action may read files
	// from (none: uploads are refused); Run fails when one is not a
	// directory.
	UploadDirs []string
}

// ErrAlreadyRunning is returned by Run when a gasoline daemon already runs
// with the state dir (it holds the state dir's lock).
var ErrAlreadyRunning = errors.New("a gasoline daemon is already running")

// Run runs the daemon until ctx ends or POST /shutdown is called, then shuts
// down gracefully: it wakes every long-poll and wait, lets in-flight requests
// finish (up to 5 s) and removes its socket and pid file.
//
// The daemon holds its state dir's lock for its whole life, so a second
// daemon of the same state dir fails at once and touches nothing. It
// serves the same API on 127.0.0.1:port (the extension, curl) and on the
// Unix socket in the state dir (the bridge and the CLI), each listener
// with its own connection limits, so that a connection flood on the port
// does not reach the socket.
func Run(ctx context.Context, o Options) error {
	dir, uploads, lock, err := claim(o)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	token, err := dir.LoadOrCreateToken()
	if err != nil {
		return err
	}
	log, logFile, err := openLog(dir, o)
	if err != nil {
		return err
	}
	defer logFile.Close()
	lns, err := listen(ctx, o.Port, dir, log)
	if err != nil {
		return err
	}
	if err := dir.WriteFile(state.PIDFile, []byte(strconv.Itoa(os.Getpid())+"\n")); err != nil {
		lns.close()
		return fmt.Errorf("writing pid file: %w", err)
	}
	defer removePIDIfOurs(dir.File(state.PIDFile))
	pair, err := pairing.New(dir.Path, nil)
	if err != nil {
		lns.close()
		return err
	}
	p := assemble(o, dir, uploads, lns.port, log)
	cfg := server.Config{Port: lns.port, Token: token, ExtensionID: o.ExtensionID, FirefoxExtensionUUID: o.FirefoxExtensionUUID, Pairing: pair, Listeners: lns.all, Log: log,
		FirefoxPinned: readFirefoxPin(dir), SaveFirefoxPin: func(origin string) error { return dir.WriteFile(firefoxPinFile, []byte(origin+"\n")) }}
	log.Info().Int("port", lns.port).Str("state_dir", dir.Path).Bool("socket", lns.socket).Str("version", version.Version).Strs("upload_dirs", uploads.Dirs()).Msg("daemon started")
	return p.serve(ctx, cfg, func() {
		if o.Ready != nil {
			o.Ready(lns.addr)
		}
	})
}

// firefoxPinFile, in the state dir, keeps the extension's origin in
// Firefox that the last pairing from Firefox pinned (server.Config's
// FirefoxPinned), so that a daemon restart keeps it.
const firefoxPinFile = "firefox_extension_origin"

// readFirefoxPin returns the origin in firefoxPinFile, or "" when there is
// none (the server ignores a malformed one: pairing again pins anew).
func readFirefoxPin(dir state.Dir) string {
	f, err := dir.OpenFile(firefoxPinFile, os.O_RDONLY)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// claim opens o's state dir and takes its lock, which the daemon holds
// for its whole life, after checking o's upload dirs. It fails with
// ErrAlreadyRunning when another daemon holds the lock.
func claim(o Options) (state.Dir, *upload.Dirs, *state.Lock, error) {
	dir, err := state.Open(o.StateDir)
	if err != nil {
		return dir, nil, nil, err
	}
	uploads, err := upload.New(o.UploadDirs)
	if err != nil {
		return dir, nil, nil, fmt.Errorf("allowing uploads: %w", err)
	}
	lock, err := dir.Lock()
	if errors.Is(err, state.ErrLocked) {
		return dir, nil, nil, fmt.Errorf("%w: %w", ErrAlreadyRunning, err)
	}
	return dir, uploads, lock, err
}

// openLog opens daemon.log in dir and returns the daemon's logger, which
// also writes to o.LogTo when set, and the file to close when the daemon
// ends.
func openLog(dir state.Dir, o Options) (zerolog.Logger, io.Closer, error) {
	f, err := dir.OpenFile(state.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return zerolog.Logger{}, nil, fmt.Errorf("opening daemon log: %w", err)
	}
	var w io.Writer = f
	if o.LogTo != nil {
		w = zerolog.MultiLevelWriter(f, o.LogTo)
	}
	return zerolog.New(w).Level(o.LogLevel).With().Timestamp().Int("pid", os.Getpid()).Logger(), f, nil
}

// listeners are what the daemon serves on: 127.0.0.1:port always, the
// state dir's Unix socket when it can be made, each with its own
// connection limits.
type listeners struct {
	all    map[string]*server.Listener // "tcp", and "unix" when socket
	addr   net.Addr                    // the TCP listener's
	port   int                         // the TCP port, resolved when 0 was asked
	socket bool
}

// listen opens the daemon's listeners. A port in use fails with who holds
// it (portInUse); a Unix socket that cannot be made is logged, not fatal:
// the bridge and the CLI fall back to TCP, where the daemon proves itself
// before they send anything.
func listen(ctx context.Context, port int, dir state.Dir, log zerolog.Logger) (listeners, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return listeners{}, portInUse(ctx, port, dir)
		}
		return listeners{}, fmt.Errorf("listening on 127.0.0.1:%d: %w", port, err)
	}
	limits := connLimits(log)
	lns := listeners{all: map[string]*server.Listener{"tcp": server.Limit(ln, limits.tcp)}, addr: ln.Addr(), port: ln.Addr().(*net.TCPAddr).Port}
	sock, err := listenSocket(dir)
	switch {
	case err != nil:
		log.Warn().Err(err).Msg("no Unix socket; the bridge and CLI use TCP after the daemon's proof")
	case sock == nil:
		log.Warn().Str("state_dir", dir.Path).Msg("state dir path too long for a Unix socket; the bridge and CLI use TCP after the daemon's proof")
	default:
		lns.all["unix"], lns.socket = server.Limit(sock, limits.unix), true
	}
	return lns, nil
}

func (l listeners) close() {
	for _, ln := range l.all {
		ln.Close()
	}
}

// parts are the daemon's components, wired together: the tracker, the
// result keeper and its output store, the capture store, the draw-mode
// sessions and the MCP server with every tool registered.
type parts struct {
	trk     *tracker.Tracker
	capt    *capture.Store
	results *result.Keeper
	anns    *annotate.Store
	mcp     *mcp.Server
	health  func() apitype.Health
	started time.Time
	// contracts are the contract versions the extension polls with.
	contracts *extcontract.Seen
}

// assemble builds and wires the daemon's components for a daemon serving
// on port.
func assemble(o Options, dir state.Dir, uploads *upload.Dirs, port int, log zerolog.Logger) parts {
	topts := o.Tracker
	topts.Logger = log // failures the tracker decides (timers, disconnects) go to daemon.log
	copts := o.Capture
	if copts.OnWait == nil {
		// A debug line each time an observe with wait_ms blocks: what a user
		// reading daemon.log, and a test, can tell a waiting read by.
		copts.OnWait = func() { log.Debug().Msg("observe waits for capture") }
	}
	p := parts{trk: tracker.New(topts), capt: capture.New(copts), anns: annotate.NewStore(0, 0), started: time.Now(),
		contracts: &extcontract.Seen{}}
	p.health = healthOf(p.trk, p.contracts, port, p.started)
	p.results = result.NewKeeper(p.trk, outputStore(o.Output, log), log)
	p.mcp = mcp.NewServer(protocol.Implementation{Name: "gasoline", Title: "gasoline browser bridge", Version: version.Version},
		tools.Instructions, log)
	// A broken key-value file disables store/load (which say why), not the
	// daemon.
	kvs, kvErr := kv.Open(dir.File(kv.FileName), kv.Options{MaxValue: tools.MaxStoreValue})
	if kvErr != nil {
		log.Error().Err(kvErr).Msg("key-value store unavailable; configure store/load will report it")
	}
	tools.New(tools.Deps{Tracker: p.trk, Health: p.health, InlineWait: o.InlineWait, Results: p.results,
		Capture: p.capt, KV: kvs, KVErr: kvErr, Annotations: p.anns, Uploads: uploads, UserDrivenWait: o.UserDrivenWait,
		ProgressEvery: o.ProgressEvery, Log: log}).Register(p.mcp)
	p.mcp.SetTasks(task.New(p.trk))
	return p
}

// healthOf returns the daemon's health report, read from trk when called.
func healthOf(trk *tracker.Tracker, seen *extcontract.Seen, port int, started time.Time) func() apitype.Health {
	return func() apitype.Health {
		st, pr := trk.Stats(), trk.Presence()
		h := apitype.Health{
			Service:       apitype.ServiceName,
			Version:       version.Version,
			PID:           os.Getpid(),
			Port:          port,
			StartedAt:     started.UTC(),
			UptimeSeconds: time.Since(started).Seconds(),
			Extension:     apitype.Extension{Connected: pr.Connected, Instance: pr.Instance},
			Queue:         apitype.Queue{Queued: st.Queued, Pending: st.Pending, Completed: st.Completed, Failed: st.Failed},
		}
		if !pr.LastSeen.IsZero() {
			t := pr.LastSeen.UTC()
			h.Extension.LastSeen = &t
		}
		if v, polled := seen.Sent(pr.Instance); polled && pr.Instance != "" {
			h.Extension.Contract, h.Extension.Skew = v, extcontract.Skew(v)
			h.Extension.Browser = seen.Browser(pr.Instance)
		}
		return h
	}
}

// outputStore makes the large-output store, with the LLM extractor the
// environment configures unless opts names one, and tunes the collector
// for its budget.
func outputStore(opts output.Options, log zerolog.Logger) *output.Store {
	if opts.Extractor == nil {
		if cfg, ok := output.LLMConfigFromEnv(); ok {
			opts.Extractor = output.NewLLMExtractor(cfg)
			log.Info().Str("model", cfg.Model).Msg("LLM extractor configured; snippets are verified verbatim, local extraction is the fallback")
		}
	}
	store := output.New(opts)
	tuneGC(opts.ByteBudget, log)
	return store
}

// serve serves the daemon's API on cfg.Listeners with p, calling ready
// once it accepts connections, until ctx ends, POST /shutdown is called or
// a listener fails; then it shuts p down.
func (p parts) serve(ctx context.Context, cfg server.Config, ready func()) error {
	stop := make(chan struct{})
	var stopOnce sync.Once
	cfg.Shutdown = func() { stopOnce.Do(func() { close(stop) }) }
	cfg.Tracker, cfg.MCP, cfg.Health, cfg.Started = p.trk, p.mcp, p.health, p.started
	cfg.Capture, cfg.Results, cfg.Annotations, cfg.Contracts = p.capt, p.results, p.anns, p.contracts
	hs := server.NewHTTPServer(server.New(cfg).Handler())
	serveErr := make(chan error, len(cfg.Listeners))
	for _, l := range cfg.Listeners {
		go func() { serveErr <- hs.Serve(l) }()
	}
	ready()
	err := waitForStop(ctx, stop, serveErr, cfg.Log)
	p.shutdown(hs, cfg.Log)
	return err
}

// waitForStop blocks until ctx ends, stop is closed (POST /shutdown) or a
// listener fails, whose error it returns.
func waitForStop(ctx context.Context, stop <-chan struct{}, serveErr <-chan error, log zerolog.Logger) error {
	select {
	case <-ctx.Done():
		log.Info().Msg("signal received, shutting down")
	case <-stop:
		log.Info().Msg("shutdown requested, shutting down")
	case err := <-serveErr:
		return fmt.Errorf("serving HTTP: %w", err)
	}
	return nil
}

// shutdown stops the daemon: closing the tracker and the capture store
// first wakes held long-polls and waits, so the HTTP shutdown that follows
// does not sit out their deadlines; in-flight requests get 5 s to finish.
func (p parts) shutdown(hs *http.Server, log zerolog.Logger) {
	p.trk.Close()
	p.capt.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn().Err(err).Msg("graceful shutdown incomplete")
		hs.Close()
	}
	log.Info().Msg("daemon stopped")
}

// portInUse explains who holds the port, asking it through the typed
// client: the daemon of this state dir would prove itself (it cannot be
// running, since this one holds the lock, unless locks are unavailable);
// anything else is named with its pid when it can be found.
func portInUse(ctx context.Context, port int, dir state.Dir) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c := client.Local(port, dir.Path)
	defer c.CloseIdleConnections()
	_, err := c.Health(ctx)
	if err == nil {
		return fmt.Errorf("%w on 127.0.0.1:%d; stop it with 'gasoline daemon stop' or pick another --port", ErrAlreadyRunning, port)
	}
	if nd, ok := errors.AsType[*client.NotDaemonError](err); ok {
		return nd
	}
	return client.PortHeld(port, dir.Path, err.Error())
}

// listenSocket listens on the state dir's Unix socket; it returns nil when
// the path is too long for a socket. The caller holds the state dir's lock,
// so a socket file left there belongs to a daemon that died.
func listenSocket(dir state.Dir) (net.Listener, error) {
	path, ok := dir.SocketPath()
	if !ok {
		return nil, nil
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket; remove it and start the daemon again", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing the stale socket %s: %w", path, err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	// The 0700 state dir already keeps others out; the mode says so too.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restricting %s to its owner: %w", path, err)
	}
	return ln, nil
}

func removePIDIfOurs(path string) {
	b, err := os.ReadFile(path)
	if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
		os.Remove(path)
	}
}

// tuneGC trades memory the daemon can afford for CPU: the daemon's live heap
// is small (the tracker holds bounded state) except for the output store, so
// the collector may run at five times the live heap, under a soft memory
// limit of the store's budget plus 256 MiB. A GOGC or GOMEMLIMIT set by the
// user wins.
func tuneGC(outputBudget int64, log zerolog.Logger) {
	if outputBudget <= 0 {
		outputBudget = output.DefaultByteBudget
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(outputBudget + 256<<20)
	}
	log.Debug().Int64("memory_limit", debug.SetMemoryLimit(-1)).Msg("GC tuned")
}
