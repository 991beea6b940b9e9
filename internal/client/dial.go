package client

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// helloTimeout bounds the daemon's proof when the request's context allows
// longer.
const helloTimeout = 5 * time.Second

// errHelloIO reports a connection that broke before the daemon proved
// itself: nothing was sent but the nonce, so retrying is safe.
var errHelloIO = errors.New("connection closed before the daemon proved itself")

// NotDaemonError reports that the program on the port is not the gasoline
// daemon of the state dir: it could not prove it knows the token. It
// unwraps to ErrNotGasoline.
type NotDaemonError struct {
	Port     int
	StateDir string // "" when the Client was given a URL and a token
	PID      int    // the program holding the port; 0 when unknown
	Detail   string // what it answered, for logs
}

func (e *NotDaemonError) Error() string {
	who := "pid unknown"
	if e.PID > 0 {
		who = "pid " + strconv.Itoa(e.PID)
	}
	of := "the gasoline daemon it was expected to be"
	if e.StateDir != "" {
		of = "the gasoline daemon of " + displayPath(e.StateDir)
	}
	return fmt.Sprintf("port %d is held by another program (%s), not %s; stop it or use --port", e.Port, who, of)
}

func (e *NotDaemonError) Unwrap() error { return ErrNotGasoline }

// PortHeld returns the error that says port is held by a program that is
// not the daemon of stateDir, naming the holder's pid when it can be found.
func PortHeld(port int, stateDir, detail string) *NotDaemonError {
	pid, _ := PortHolder(port)
	return &NotDaemonError{Port: port, StateDir: stateDir, PID: pid, Detail: detail}
}

// displayPath shortens a path under the home directory to ~/….
func displayPath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if rel == "." {
			return "~"
		}
		return "~" + string(filepath.Separator) + rel
	}
	return p
}

// dial connects to the daemon: through its socket in the state dir when
// there is one that answers, else over TCP once the daemon has proved that
// it knows the token.
func (c *Client) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	if c.stateDir != "" {
		d := state.Dir{Path: c.stateDir}
		switch err := d.Check(); {
		case errors.Is(err, state.ErrInsecure):
			return nil, err
		case err == nil:
			if path, ok := d.SocketPath(); ok {
				var nd net.Dialer
				if conn, err := nd.DialContext(ctx, "unix", path); err == nil {
					return conn, nil
				}
				// No daemon behind the socket (absent or stale): a daemon
				// that cannot use a socket still answers on TCP.
			}
		}
	}
	nd := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	conn, err := nd.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)))
	if err != nil {
		return nil, err
	}
	if err := c.hello(ctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// hello asks the program on conn to prove it knows the token, and checks
// the proof, before anything else is written on conn.
func (c *Client) hello(ctx context.Context, conn net.Conn) error {
	var nb [16]byte
	rand.Read(nb[:])
	nonce := hex.EncodeToString(nb[:])
	deadline, fromCtx := time.Now().Add(helloTimeout), false
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline, fromCtx = d, true
	}
	conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	host := net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))
	req := "GET /hello HTTP/1.1\r\nHost: " + host + "\r\n" + apitype.HeaderNonce + ": " + nonce + "\r\nAccept: application/json\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		return fmt.Errorf("%w: %w", errHelloIO, err)
	}
	br := bufio.NewReaderSize(conn, 4096)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		var ne net.Error
		var opErr *net.OpError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &ne) && ne.Timeout():
			if fromCtx {
				return context.DeadlineExceeded
			}
			return c.notDaemon(fmt.Sprintf("it did not answer GET /hello within %v", helloTimeout))
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &opErr):
			return fmt.Errorf("%w: %w", errHelloIO, err)
		}
		return c.notDaemon("its answer to GET /hello is not HTTP: " + err.Error())
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("%w: %w", errHelloIO, err)
	}
	if br.Buffered() > 0 {
		return c.notDaemon("it sent more than its answer to GET /hello")
	}
	var h apitype.Hello
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &h) != nil || h.Service != apitype.ServiceName {
		return c.notDaemon(fmt.Sprintf("it answered GET /hello with HTTP %d %.80q", resp.StatusCode, body))
	}
	if c.proofMatches(h.Proof, nonce, c.Token()) {
		return nil
	}
	if c.stateDir == "" {
		return c.notDaemon("its proof does not match the token")
	}
	// The daemon may have created a new token since this Client read it.
	tok, err := state.Dir{Path: c.stateDir}.ReadToken()
	switch {
	case errors.Is(err, state.ErrInsecure):
		return err
	case err != nil:
		return c.notDaemon("there is no token to check its proof with: " + err.Error())
	case !c.proofMatches(h.Proof, nonce, tok):
		return c.notDaemon("its proof does not match the token")
	}
	c.SetToken(tok)
	return nil
}

func (c *Client) proofMatches(proof, nonce, token string) bool {
	if token == "" {
		return false
	}
	want := apitype.HelloProof(token, c.port, nonce)
	return hmac.Equal([]byte(proof), []byte(want))
}

func (c *Client) notDaemon(detail string) error {
	return PortHeld(c.port, c.stateDir, detail)
}
