package server

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// Limits bound the connections of one listener.
type Limits struct {
	// MaxUnauthenticated bounds connections that have not yet carried a
	// valid token. A new connection beyond it closes the oldest of them to
	// make room, so a flood of idle connections costs the daemon at most
	// this many descriptors and never keeps a newcomer out: the extension's
	// next poll gets in and, once its token is seen, is not evicted.
	MaxUnauthenticated int
	// MaxTotal bounds every connection, authenticated or not; a new
	// connection beyond it is closed at once.
	MaxTotal int
	// UnauthenticatedIdle closes an unauthenticated connection that waits
	// this long for its next request (0: the server's IdleTimeout).
	UnauthenticatedIdle time.Duration
}

// Listener is a net.Listener that enforces Limits. Serve it with an
// http.Server from NewHTTPServer, which tells it which connections carried
// a valid token. It is safe for concurrent use.
type Listener struct {
	net.Listener
	limits Limits

	mu      sync.Mutex
	open    int        // counted connections; guarded by mu
	unauth  *list.List // unauthenticated *conn, oldest first; guarded by mu
	evicted uint64     // guarded by mu
	refused uint64     // guarded by mu
}

// Limit wraps ln with limits.
func Limit(ln net.Listener, limits Limits) *Listener {
	if limits.MaxUnauthenticated <= 0 {
		limits.MaxUnauthenticated = 1
	}
	if limits.MaxTotal < limits.MaxUnauthenticated {
		limits.MaxTotal = limits.MaxUnauthenticated
	}
	return &Listener{Listener: ln, limits: limits, unauth: list.New()}
}

// Accept waits for the next connection it may admit. Refused connections
// are closed at once and never returned; evicted ones are closed here.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc, victim := l.admit(c)
		if victim != nil {
			victim.Conn.Close()
		}
		if tc == nil {
			c.Close()
			continue
		}
		return tc, nil
	}
}

// admit counts c in, evicting the oldest unauthenticated connection when
// there are too many; it returns nil when c must be refused.
func (l *Listener) admit(c net.Conn) (admitted, victim *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unauth.Len() >= l.limits.MaxUnauthenticated {
		victim = l.unauth.Remove(l.unauth.Front()).(*conn)
		victim.elem = nil
		victim.counted = false
		stopTimer(&victim.idle)
		l.open--
		l.evicted++
	}
	if l.open >= l.limits.MaxTotal {
		l.refused++
		return nil, victim
	}
	tc := &conn{Conn: c, l: l, counted: true}
	tc.elem = l.unauth.PushBack(tc)
	l.open++
	return tc, victim
}

// Stats returns the listener's connection counts.
func (l *Listener) Stats() apitype.ConnStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return apitype.ConnStats{Open: l.open, Unauthenticated: l.unauth.Len(), Evicted: l.evicted, Refused: l.refused}
}

// conn is an admitted connection.
type conn struct {
	net.Conn
	l *Listener

	// All guarded by l.mu.
	elem    *list.Element // in l.unauth while unauthenticated
	counted bool          // in l.open; cleared when closed or evicted
	idle    *time.Timer   // closes it when idle and unauthenticated
	closed  bool
}

// Close closes the connection and uncounts it. It may be called more than
// once.
func (c *conn) Close() error {
	c.l.mu.Lock()
	if !c.closed {
		c.closed = true
		c.forgetLocked()
	}
	c.l.mu.Unlock()
	return c.Conn.Close()
}

func (c *conn) forgetLocked() {
	if c.elem != nil {
		c.l.unauth.Remove(c.elem)
		c.elem = nil
	}
	if c.counted {
		c.counted = false
		c.l.open--
	}
	stopTimer(&c.idle)
}

// authenticated records that the connection carried a valid token: it is no
// longer evicted or closed when idle early.
func (c *conn) authenticated() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.elem != nil {
		c.l.unauth.Remove(c.elem)
		c.elem = nil
	}
	stopTimer(&c.idle)
}

// stateChanged follows net/http's view of the connection.
func (c *conn) stateChanged(s http.ConnState) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	switch s {
	case http.StateIdle:
		if c.elem != nil && !c.closed && c.l.limits.UnauthenticatedIdle > 0 && c.idle == nil {
			c.idle = time.AfterFunc(c.l.limits.UnauthenticatedIdle, func() { c.Close() })
		}
	case http.StateActive:
		stopTimer(&c.idle)
	case http.StateClosed, http.StateHijacked:
		c.forgetLocked()
	}
}

func stopTimer(t **time.Timer) {
	if *t != nil {
		(*t).Stop()
		*t = nil
	}
}

type connKey struct{}

// connContext hands a request the connection it came on, so that a valid
// token can mark the connection authenticated.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

func connState(c net.Conn, s http.ConnState) {
	if tc, ok := c.(*conn); ok {
		tc.stateChanged(s)
	}
}

// markAuthenticated records that r's connection carried a valid token.
func markAuthenticated(r *http.Request) {
	if tc, ok := r.Context().Value(connKey{}).(*conn); ok {
		tc.authenticated()
	}
}
