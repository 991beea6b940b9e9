package server

import (
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/labstack/echo/v4"
)

// maxAllowsWaiting bounds the origins allowed from the terminal that no
// extension has taken yet.
const maxAllowsWaiting = 64

// userAllows holds the origins the user allowed with 'gasoline allow'
// (POST /origins/allow, admin token only) until an extension's poll takes
// them (apitype.PendingQueries.AllowOrigins); the extension adds them to
// the user's list (extension/origins/). No MCP tool reaches it.
type userAllows struct {
	mu      sync.Mutex
	waiting []string
	changed chan struct{} // closed and replaced at each allow: wakes held polls
}

// add queues origin and wakes the polls held meanwhile.
func (u *userAllows) add(origin string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, o := range u.waiting {
		if o == origin {
			return true
		}
	}
	if len(u.waiting) >= maxAllowsWaiting {
		return false
	}
	u.waiting = append(u.waiting, origin)
	if u.changed != nil {
		close(u.changed)
		u.changed = nil
	}
	return true
}

// take returns and forgets the origins waiting.
func (u *userAllows) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	w := u.waiting
	u.waiting = nil
	return w
}

// wait returns a channel closed at the next allow, or already closed
// when allows are waiting.
func (u *userAllows) wait() <-chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.waiting) > 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if u.changed == nil {
		u.changed = make(chan struct{})
	}
	return u.changed
}

// NormalizeOrigin returns the origin s names (scheme://host[:port], the
// host in lower case) for an http or https URL or origin, and false for
// anything else.
func NormalizeOrigin(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || strings.ContainsAny(host, " /\\") {
		return "", false
	}
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, true
}

// originsAllow is POST /origins/allow?origin=...: the user's 'gasoline
// allow' in a terminal (admin token).
func (s *Server) originsAllow(c echo.Context) error {
	origin, ok := NormalizeOrigin(c.QueryParam("origin"))
	if !ok {
		return apiError(http.StatusBadRequest, "invalid_origin", "origin must be an http or https origin such as https://shop.example",
			"pass the site's origin: scheme, host and port if not the default")
	}
	if !s.allows.add(origin) {
		return apiError(http.StatusTooManyRequests, "too_many_allows", "too many allowed origins wait for the extension",
			"start Chrome with the gasoline extension paired, then allow again")
	}
	s.cfg.Log.Info().Str("origin", origin).Msg("origin allowed by the user from the terminal")
	return c.JSON(http.StatusOK, apitype.OriginAllowed{Origin: origin})
}
