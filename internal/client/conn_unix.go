//go:build unix

package client

import (
	"net"
	"syscall"
)

// peerClosed reports whether the peer has closed c (an end of stream or a
// reset is pending), without consuming data or blocking.
func peerClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	rc.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			closed = n == 0 // 0 bytes: orderly shutdown by the peer
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
		default:
			closed = true // ECONNRESET and the like
		}
	})
	return closed
}
