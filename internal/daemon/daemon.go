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

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// Options configure a daemon.
type Options struct {
	Port        int
	StateDir    string
	ExtensionID string          // "" pins server.DefaultExtensionID
	Tracker     tracker.Options // timers and limits; zero fields take the defaults
	InlineWait  time.Duration   // interact's default wait_ms
	Output      output.Options  // large-output store; zero fields take the defaults
	LogLevel    zerolog.Level
	// LogTo receives log lines as well as daemon.log (e.g. stderr in the
	// foreground); nil for none.
	LogTo io.Writer
	// Ready, when set, is called once the daemon accepts connections.
	Ready func(addr net.Addr)
}

// ErrAlreadyRunning is returned by Run when a gasoline daemon already answers
// on the port.
var ErrAlreadyRunning = errors.New("a gasoline daemon is already running")

// Run runs the daemon until ctx ends or POST /shutdown is called, then shuts
// down gracefully: it wakes every long-poll and wait, lets in-flight requests
// finish (up to 5 s) and removes its pid file.
func Run(ctx context.Context, o Options) error {
	dir, err := state.Open(o.StateDir)
	if err != nil {
		return err
	}
	token, err := dir.LoadOrCreateToken()
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(dir.File(state.LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening daemon log: %w", err)
	}
	defer logFile.Close()
	var w io.Writer = logFile
	if o.LogTo != nil {
		w = zerolog.MultiLevelWriter(logFile, o.LogTo)
	}
	log := zerolog.New(w).Level(o.LogLevel).With().Timestamp().Int("pid", os.Getpid()).Logger()

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return portInUse(ctx, o.Port)
		}
		return fmt.Errorf("listening on 127.0.0.1:%d: %w", o.Port, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port

	pidPath := dir.File(state.PIDFile)
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("writing pid file: %w", err)
	}
	defer removePIDIfOurs(pidPath)

	pair, err := pairing.New(dir.Path, nil)
	if err != nil {
		ln.Close()
		return err
	}
	topts := o.Tracker
	topts.Logger = log // failures the tracker decides (timers, disconnects) go to daemon.log
	trk := tracker.New(topts)
	started := time.Now()
	health := func() apitype.Health {
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
		return h
	}
	oopts := o.Output
	if oopts.Extractor == nil {
		if cfg, ok := output.LLMConfigFromEnv(); ok {
			oopts.Extractor = output.NewLLMExtractor(cfg)
			log.Info().Str("model", cfg.Model).Msg("LLM extractor configured; snippets are verified verbatim, local extraction is the fallback")
		}
	}
	store := output.New(oopts)
	tuneGC(oopts.ByteBudget, log)
	mcpSrv := mcp.NewServer(protocol.Implementation{Name: "gasoline", Title: "gasoline browser bridge", Version: version.Version},
		tools.Instructions, log)
	tl := tools.New(tools.Deps{Tracker: trk, Health: health, InlineWait: o.InlineWait, Output: store, Log: log})
	tl.Register(mcpSrv)

	stop := make(chan struct{})
	var stopOnce sync.Once
	requestStop := func() { stopOnce.Do(func() { close(stop) }) }
	srv := server.New(server.Config{
		Port: port, Token: token, ExtensionID: o.ExtensionID,
		Tracker: trk, MCP: mcpSrv, Pairing: pair, Health: health,
		IngestResult: tl.IngestResult, Shutdown: requestStop, Log: log,
	})
	hs := server.NewHTTPServer(srv.Handler())
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	log.Info().Int("port", port).Str("state_dir", dir.Path).Str("version", version.Version).Msg("daemon started")
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}

	var runErr error
	select {
	case <-ctx.Done():
		log.Info().Msg("signal received, shutting down")
	case <-stop:
		log.Info().Msg("shutdown requested, shutting down")
	case err := <-serveErr:
		runErr = fmt.Errorf("serving HTTP: %w", err)
	}
	// Closing the tracker first wakes held long-polls and waits, so the HTTP
	// shutdown below does not sit out their deadlines.
	trk.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn().Err(err).Msg("graceful shutdown incomplete")
		hs.Close()
	}
	log.Info().Msg("daemon stopped")
	return runErr
}

// portInUse explains who holds the port.
func portInUse(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, config.BaseURL(port)+"/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if strings.Contains(string(b), `"service":"`+apitype.ServiceName+`"`) {
			return fmt.Errorf("%w on 127.0.0.1:%d; stop it with 'gasoline daemon stop' or pick another --port", ErrAlreadyRunning, port)
		}
	}
	return fmt.Errorf("port %d on 127.0.0.1 is in use by another program; pass --port (or set %s) to use another", port, config.EnvPort)
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
