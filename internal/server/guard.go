package server

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// guard enforces the daemon's security rules (docs/http-api.md, "Security")
// on every request before anything else runs:
// the Host must name this loopback port (DNS rebinding), the Origin must be
// absent or the pinned extension's, and browsers' cross-site fetches are
// refused outright.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !s.hostAllowed(r.Host) {
			return apiError(http.StatusForbidden, "forbidden_host",
				"Host header "+strconv.Quote(r.Host)+" is not this daemon's loopback address",
				"connect to http://127.0.0.1:"+strconv.Itoa(s.cfg.Port))
		}
		origin, hasOrigin := r.Header["Origin"]
		// A pairing from an unpinned moz-extension origin goes on to
		// POST /pair, which pins it only if its code is valid (firefoxPin).
		pairing := r.Method == http.MethodPost && r.URL.Path == "/pair" && len(origin) == 1 && s.firefox.mayPin(origin[0])
		if hasOrigin && !pairing && (len(origin) != 1 || !s.extensionOrigin(origin[0])) {
			return apiError(http.StatusForbidden, "forbidden_origin",
				"requests from web pages are refused",
				"only the gasoline extension and local tools may call this API")
		}
		if !hasOrigin {
			switch r.Header.Get("Sec-Fetch-Site") {
			case "cross-site", "same-site":
				return apiError(http.StatusForbidden, "forbidden_origin",
					"cross-site browser requests are refused",
					"only the gasoline extension and local tools may call this API")
			}
		}
		return next(c)
	}
}

// extensionOrigin reports whether origin is the pinned extension's, in
// Chrome or (when set or pinned by pairing) in Firefox.
func (s *Server) extensionOrigin(origin string) bool {
	return origin == s.chromeOrigin || s.firefox.is(origin)
}

func (s *Server) hostAllowed(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(s.cfg.Port) {
		return false
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// tokenKind says which credential a request carries.
type tokenKind int

const (
	tokenNone tokenKind = iota
	tokenAdmin
	tokenExtension
)

// credential says which token r carries; a valid one marks r's connection
// authenticated (see Limits).
func (s *Server) credential(r *http.Request) tokenKind {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || tok == "" {
		return tokenNone
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1 {
		markAuthenticated(r)
		return tokenAdmin
	}
	if s.cfg.Pairing != nil && s.cfg.Pairing.Valid(tok) {
		markAuthenticated(r)
		return tokenExtension
	}
	return tokenNone
}

// requireAdmin admits only the state-dir token (bridge, CLI, curl).
func (s *Server) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch s.credential(c.Request()) {
		case tokenAdmin:
			return next(c)
		case tokenExtension:
			return apiError(http.StatusForbidden, "forbidden", "extension tokens cannot use this endpoint",
				"use the token in the state dir (<state dir>/token)")
		}
		return unauthorized()
	}
}

func unauthorized() error {
	return apiError(http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token",
		"send 'Authorization: Bearer <token>': tools use <state dir>/token; the extension pairs with 'gasoline pair'")
}
