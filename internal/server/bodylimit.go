package server

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/labstack/echo/v4"
)

// MaxUnverifiedBytes bounds the body bytes that all requests not yet
// verified may hold at once: a /pair body, and a signed request that does
// not claim its body's hash (extauth.BodyHashHeader) and so is read before
// its signature can be checked. Beyond it such a request gets 503 at once,
// without its body being read; the extension claims the hash, so it never
// waits on this. It admits one unclaimed body of the largest route (16 MB)
// with room for pairing requests beside it.
const MaxUnverifiedBytes = 16<<20 + 256<<10

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

// Held reports the bytes held now.
func (b *byteBudget) Held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

func unverifiedBusy() error {
	return apiError(http.StatusServiceUnavailable, "busy_unverified",
		"the daemon is already holding "+strconv.Itoa(MaxUnverifiedBytes>>20)+" MB of request bodies it has not verified yet, its limit",
		"retry in a moment; or send "+extauth.BodyHashHeader+" with the signature, as the extension does, so the signature is checked before the body is read")
}

// unverifiedBody bounds the body of an unauthenticated route to limit bytes
// (413 beyond, before reading when Content-Length says so) and counts them
// in the unverified budget while the request runs.
func (s *Server) unverifiedBody(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength > limit {
				return echo.ErrStatusRequestEntityTooLarge
			}
			if !s.unverified.acquire(limit) {
				return unverifiedBusy()
			}
			defer s.unverified.release(limit)
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			return next(c)
		}
	}
}
