// Package server is the daemon's HTTP API: one echo instance bound to
// loopback, one route table, the security guard and one error handler.
package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"
)

// Body limits.
const (
	MaxBody = "10M" // /mcp
	// MaxResultBody leaves room for a 10 MB output plus JSON escaping, so an
	// oversize output reaches the store and is truncated there, with the
	// handle saying so, instead of failing outright.
	MaxResultBody = "16M"
	MaxPairBody   = "4K"
	// MaxFailedResult bounds the result kept with an error or timeout report;
	// larger ones are replaced by a note (only complete results are stored).
	MaxFailedResult = 64 << 10
)

// DefaultExtensionID is the ID the extension's manifest key produces.
const DefaultExtensionID = "ipimnlogmeffgddjpdmodnligphcpfag"

// Config wires the server to the rest of the daemon.
type Config struct {
	Port        int
	Token       string // the state-dir token
	ExtensionID string // pinned extension ID; "" means DefaultExtensionID
	Tracker     *tracker.Tracker
	MCP         *mcp.Server
	Pairing     *pairing.Pairing
	Health      func() apitype.Health
	// IngestResult, when set, replaces a completed command's result before it
	// is recorded (large outputs go to the output store, a handle stays). A
	// non-nil undo is called when the tracker then refuses the report.
	IngestResult func(id string, result json.RawMessage) (recorded json.RawMessage, undo func())
	// Shutdown is called (once per request) by POST /shutdown.
	Shutdown func()
	Log      zerolog.Logger
}

// Server is the daemon's HTTP API.
type Server struct {
	cfg       Config
	extOrigin string
	e         *echo.Echo
}

// New builds the server and its route table.
func New(cfg Config) *Server {
	if cfg.ExtensionID == "" {
		cfg.ExtensionID = DefaultExtensionID
	}
	s := &Server{cfg: cfg, extOrigin: "chrome-extension://" + cfg.ExtensionID}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(cfg.Log)
	e.Use(middleware.Recover(), s.guard)

	big := middleware.BodyLimit(MaxBody)
	e.GET("/health", s.health)
	e.POST("/pair", s.pair, middleware.BodyLimit(MaxPairBody))

	e.POST("/mcp", s.mcp, big, s.requireAdmin)
	e.GET("/commands", s.commands, s.requireAdmin)
	e.POST("/shutdown", s.shutdown, s.requireAdmin)
	e.POST("/pair/code", s.pairCode, s.requireAdmin)

	e.GET("/pending-queries", s.pendingQueries, s.requireExtension)
	e.POST("/query-result", s.queryResult, middleware.BodyLimit(MaxResultBody), s.requireExtension)
	s.e = e
	return s
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.e }

// NewHTTPServer returns an http.Server for h with the daemon's timeouts.
// Write timeouts are left to handlers: long-polls and waits are bounded by
// their own deadlines (25 s and 55 s).
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(_ net.Listener) context.Context { return context.Background() },
	}
}
