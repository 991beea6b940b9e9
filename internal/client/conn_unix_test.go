//go:build unix

package client

import (
	"net"
	"syscall"
)

// buffered reports whether c has data to read, without reading it.
func buffered(c net.Conn) bool {
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	var b [1]byte
	rc.Control(func(fd uintptr) {
		n, _, _ = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	})
	return n > 0
}
