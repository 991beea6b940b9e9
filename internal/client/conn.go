package client

import (
	"context"
	"errors"
	"net"
)

// errPeerClosed reports a pooled connection the daemon had already closed
// when a request was about to be written on it.
var errPeerClosed = errors.New("daemon closed the connection before the request was sent")

// checkedConn refuses to write on a connection whose peer has already
// closed it. A daemon that dies between two calls leaves its pooled
// keep-alive connection half-closed; the transport notices only when its
// read loop next runs, and may pick the connection for the next request
// first. Written there, a request that is not idempotent would fail as
// "connection lost, may have run" although no daemon ever saw it. Failing
// the write before any byte goes out lets net/http retry the request on a
// new connection (it does so for any request when nothing was written), and
// the retry's dial error reports the daemon as unreachable.
type checkedConn struct {
	net.Conn
}

func (c *checkedConn) Write(p []byte) (int, error) {
	if peerClosed(c.Conn) {
		return 0, errPeerClosed
	}
	return c.Conn.Write(p)
}

// dialChecked wraps dial's connections in checkedConn.
func dialChecked(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &checkedConn{Conn: c}, nil
	}
}
