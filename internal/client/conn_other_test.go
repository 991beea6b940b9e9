//go:build !unix

package client

import "net"

// buffered is true where peerClosed does not look (conn_other.go).
func buffered(net.Conn) bool { return true }
