package server

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/labstack/echo/v4"
)

// Bounds of the body bytes that requests not yet verified may hold at once.
// Beyond them such a request gets 503 at once, without its body being read.
const (
	// MaxUnverifiedBytes bounds signed requests that do not claim their
	// body's hash (extauth.BodyHashHeader) and so are read before their
	// signature can be checked: one body of the largest route (16 MB). The
	// extension claims the hash, so it never waits on this.
	MaxUnverifiedBytes = 16 << 20
	// MaxUnverifiedPairBytes bounds /pair bodies (4 KB each), apart, so that
	// slow unverified uploads cannot keep a user from pairing.
	MaxUnverifiedPairBytes = 1 << 20
)

// byteBudget is a non-blocking semaphore of bytes. Its zero value holds
// nothing; set max before use.
type byteBudget struct {
	mu   sync.Mutex
	max  int64
	held int64 // guarded by mu
}

// acquire takes n bytes if they fit and reports whether it did.
func (b *byteBudget) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || b.held+n > b.max {
		return false
	}
	b.held += n
	return true
}

// release returns n bytes that acquire took.
func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
}

func unverifiedBusy(limit int64) error {
	return apiError(http.StatusServiceUnavailable, "busy_unverified",
		"the daemon is already holding "+strconv.FormatInt(limit>>10, 10)+" KB of request bodies it has not verified yet, its limit",
		"retry in a moment; or send "+extauth.BodyHashHeader+" with the signature, as the extension does, so the signature is checked before the body is read")
}

// unverifiedBody bounds the body of an unauthenticated route to limit bytes
// (413 beyond, before reading when Content-Length says so) and counts them
// in budget while the request runs.
func unverifiedBody(budget *byteBudget, limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength > limit {
				return echo.ErrStatusRequestEntityTooLarge
			}
			if !budget.acquire(limit) {
				return unverifiedBusy(budget.max)
			}
			defer budget.release(limit)
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			return next(c)
		}
	}
}
