// Package server is the daemon's HTTP API: one echo instance bound to
// loopback, one route table, the security guard and one error handler.
package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"
)

// Body limits.
const (
	MaxBody     = "10M" // /mcp
	MaxPairBody = "4K"

	maxResultBody = apitype.MaxResultBodyBytes
	maxPairBody   = 4 << 10
	maxDrawBody   = 16 << 20
	maxGetBody    = 4 << 10 // a GET carries no body; room for a client that sends "{}"
)

// DefaultExtensionID is the ID the extension's manifest key produces.
const DefaultExtensionID = "ipimnlogmeffgddjpdmodnligphcpfag"

// Config wires the server to the rest of the daemon.
type Config struct {
	Port        int
	Token       string // the state-dir token
	ExtensionID string // pinned extension ID; "" means DefaultExtensionID
	// FirefoxExtensionUUID, when set, is the host of the extension's
	// moz-extension:// origin in the user's Firefox, allowed as well as
	// Chrome's: Firefox derives no ID from a key but picks a random UUID
	// per profile, so it cannot be pinned in advance. It overrides the
	// origin pinned by pairing (firefoxPin).
	FirefoxExtensionUUID string
	// FirefoxPinned is the moz-extension:// origin a pairing pinned
	// before (read from the state dir); SaveFirefoxPin persists the one a
	// new pairing pins (nil: kept in memory). See firefoxPin.
	FirefoxPinned  string
	SaveFirefoxPin func(origin string) error
	Tracker        *tracker.Tracker
	MCP            *mcp.Server
	Pairing        *pairing.Pairing
	Health         func() apitype.Health
	Capture        *capture.Store // what the extension captures (POST /events)
	// Contracts records the contract version each polling extension sends
	// (extcontract); nil records none.
	Contracts *extcontract.Seen
	// Results applies the extension's result posts; nil keeps every result
	// inline in Tracker.
	Results *result.Keeper
	// Annotations keeps finished draw-mode sessions (shared with the
	// tools); nil: a store of its own.
	Annotations *annotate.Store
	// Shutdown is called (once per request) by POST /shutdown.
	Shutdown func()
	// Started is when the daemon started; every answer carries it
	// (apitype.HeaderDaemonStarted). Zero omits the header.
	Started time.Time
	// Listeners are reported by GET /debug/stats, by name.
	Listeners map[string]*Listener
	Log       zerolog.Logger
}

// Server is the daemon's HTTP API.
type Server struct {
	cfg          Config
	chromeOrigin string      // the pinned extension's origin in Chrome
	firefox      *firefoxPin // its origin in Firefox (firefox.go)
	started      string      // cfg.Started in the header's format
	sessions     *sessions   // Streamable HTTP clients' sessions (streamable.go)
	e            *echo.Echo
	nonces       nonceCache // of signed extension requests
	// unverified and unverifiedPair count the body bytes held by requests
	// not yet verified (MaxUnverifiedBytes, MaxUnverifiedPairBytes).
	unverified, unverifiedPair byteBudget
	// told is the agent_at last sent in a poll answer, per extension instance (handlers.go).
	told toldAt
	// allows are the origins the user allowed from the terminal, until an
	// extension's poll takes them (origins.go).
	allows userAllows
	// calls counts the POST /mcp requests being answered (debug stats).
	calls atomic.Int64
}

// New builds the server and its route table.
func New(cfg Config) *Server {
	if cfg.ExtensionID == "" {
		cfg.ExtensionID = DefaultExtensionID
	}
	if cfg.Results == nil {
		cfg.Results = result.NewKeeper(cfg.Tracker, nil, cfg.Log)
	}
	if cfg.Annotations == nil {
		cfg.Annotations = annotate.NewStore(0, 0)
	}
	s := &Server{cfg: cfg, chromeOrigin: "chrome-extension://" + cfg.ExtensionID, firefox: newFirefoxPin(cfg), sessions: newSessions(),
		unverified: byteBudget{max: MaxUnverifiedBytes}, unverifiedPair: byteBudget{max: MaxUnverifiedPairBytes}}
	if !cfg.Started.IsZero() {
		s.started = cfg.Started.UTC().Format(time.RFC3339Nano)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(cfg.Log)
	e.Use(middleware.Recover(), s.stamp, s.guard)

	big := middleware.BodyLimit(MaxBody)
	e.GET("/health", s.health)
	e.GET("/hello", s.hello)
	e.POST("/pair", s.pair, unverifiedBody(&s.unverifiedPair, maxPairBody))

	e.POST("/mcp", s.mcp, big, s.mcpAuth)
	e.DELETE("/mcp", s.mcpDelete, s.mcpAuth)
	e.GET("/mcp", s.mcpGet, s.mcpAuth)
	e.GET("/commands", s.commands, s.requireAdmin)
	e.POST("/shutdown", s.shutdown, s.requireAdmin)
	e.POST("/pair/code", s.pairCode, s.requireAdmin)
	e.POST("/pair/revoke", s.pairRevoke, s.requireAdmin)
	e.POST("/origins/allow", s.originsAllow, s.requireAdmin)
	e.GET("/debug/stats", s.debugStats, s.requireAdmin)

	// Each extension route's own body limit applies before anything is
	// read (requireExtension).
	e.GET("/pending-queries", s.pendingQueries, s.requireExtension(maxGetBody, nil))
	e.POST("/query-result", s.queryResult, s.requireExtension(maxResultBody, nil))
	e.POST("/events", s.events, s.requireExtension(apitype.MaxEventsBody, batchTooLarge))
	e.GET("/capture/config", s.captureConfig, s.requireExtension(maxGetBody, nil))
	e.POST("/draw-mode/complete", s.drawModeComplete, s.requireExtension(maxDrawBody, nil))
	e.POST("/unpair", s.unpair, s.requireExtension(maxPairBody, nil))
	s.e = e
	return s
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.e }

// NewHTTPServer returns an http.Server for h with the daemon's timeouts.
// Write timeouts are left to handlers: long-polls and waits are bounded by
// their own deadlines (25 s and 55 s). Serve it on Listeners (see Limit) so
// that connections which carried a valid token are told apart.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(_ net.Listener) context.Context { return context.Background() },
		ConnContext:       connContext,
		ConnState:         connState,
	}
}

// stamp marks every answer with the daemon's start time.
func (s *Server) stamp(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.started != "" {
			c.Response().Header()[apitype.HeaderDaemonStarted] = []string{s.started}
		}
		return next(c)
	}
}

// hello proves to a local client that this daemon knows the state-dir
// token, before the client sends it (apitype.Hello).
func (s *Server) hello(c echo.Context) error {
	nonce := c.Request().Header.Get(apitype.HeaderNonce)
	if len(nonce) < apitype.MinNonceLen || len(nonce) > apitype.MaxNonceLen || !isHex(nonce) {
		return apiError(http.StatusBadRequest, "invalid_nonce",
			fmt.Sprintf("%s must be %d to %d hex characters", apitype.HeaderNonce, apitype.MinNonceLen, apitype.MaxNonceLen),
			"send a fresh random nonce and check the proof with the state-dir token")
	}
	return c.JSON(http.StatusOK, apitype.Hello{Service: apitype.ServiceName, Proof: apitype.HelloProof(s.cfg.Token, s.cfg.Port, nonce)})
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// debugStats reports the daemon's resource use; gc=1 collects first, so
// the heap figure is the live heap.
func (s *Server) debugStats(c echo.Context) error {
	if c.QueryParam("gc") == "1" {
		// Twice: the first moves sync.Pool contents to their victim
		// caches, the second frees them.
		runtime.GC()
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := apitype.DebugStats{
		HeapAllocBytes: ms.HeapAlloc,
		HeapInuseBytes: ms.HeapInuse,
		Goroutines:     runtime.NumGoroutine(),
		Connections:    make(map[string]apitype.ConnStats, len(s.cfg.Listeners)),
		MCPCalls:       int(s.calls.Load()),
	}
	for name, l := range s.cfg.Listeners {
		st.Connections[name] = l.Stats()
	}
	return c.JSON(http.StatusOK, st)
}
