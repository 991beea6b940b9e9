package client

import (
	"errors"
	"net"
	"testing"
	"time"
)

// tcpPair returns both ends of a loopback TCP connection, the client end
// wrapped as the transport wraps it.
func tcpPair(t *testing.T) (client *checkedConn, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	t.Cleanup(func() { c.Close(); server.Close() })
	return &checkedConn{Conn: c}, server
}

func TestCheckedConn(t *testing.T) {
	c, s := tcpPair(t)
	if peerClosed(c.Conn) {
		t.Fatal("open connection reported closed")
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatalf("Write on an open connection: %v", err)
	}
	s.Write([]byte("unread"))
	for deadline := time.Now().Add(2 * time.Second); !buffered(c.Conn); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the peer's data never arrived")
		}
	}
	if peerClosed(c.Conn) {
		t.Error("connection with unread data reported closed")
	}
	buf := make([]byte, 16)
	c.Read(buf) // drain, as the transport would have

	s.Close()
	deadline := time.Now().Add(2 * time.Second)
	for !peerClosed(c.Conn) {
		if time.Now().After(deadline) {
			t.Fatal("peer's close never seen")
		}
		time.Sleep(time.Millisecond)
	}
	n, err := c.Write([]byte("request"))
	if n != 0 || !errors.Is(err, errPeerClosed) {
		t.Errorf("Write after the peer closed: got %d, %v, want 0, errPeerClosed", n, err)
	}
	if err := classify("posting", err); !errors.Is(err, ErrUnreachable) {
		t.Errorf("classify: got %v, want ErrUnreachable (nothing was sent)", err)
	}
}
