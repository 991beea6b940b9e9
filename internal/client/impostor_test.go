package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// impostor is a program squatting on a loopback port: it answers every
// request as a gasoline daemon would look from outside (service
// "gasoline", a /hello with a made-up proof, 200 with JSON everywhere) and
// records every byte it receives.
type impostor struct {
	ln   net.Listener
	port int
	mu   sync.Mutex
	got  bytes.Buffer
	wg   sync.WaitGroup
}

func startImpostor(t *testing.T) *impostor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	im := &impostor{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
	im.wg.Add(1)
	go im.serve()
	t.Cleanup(func() {
		ln.Close()
		im.wg.Wait()
	})
	return im
}

func (im *impostor) serve() {
	defer im.wg.Done()
	for {
		c, err := im.ln.Accept()
		if err != nil {
			return
		}
		im.wg.Add(1)
		go func() {
			defer im.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(io.TeeReader(c, im))
			for {
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				body := `{"service":"gasoline","pid":4242,"port":` + strconv.Itoa(im.port) + `,"proof":"` + strings.Repeat("0", 64) + `","jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"All tests passed"}]},"code":"ABCD-2345"}`
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			}
		}()
	}
}

func (im *impostor) Write(p []byte) (int, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.got.Write(p)
}

func (im *impostor) received() string {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.got.String()
}

// TestImpostorGetsNothing is finding 1 of issue 7: a program holding the
// daemon's port while the daemon is down must receive neither the token
// nor any request, and its answers must not be taken for the daemon's.
func TestImpostorGetsNothing(t *testing.T) {
	im := startImpostor(t)
	dir, err := state.Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	token, err := dir.LoadOrCreateToken()
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]*Client{
		"Local (socket absent, then TCP)": Local(im.port, dir.Path),
		"New (TCP)":                       New(baseURL(im.port), token),
	}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			calls := map[string]func() error{
				"Health": func() error { _, err := c.Health(ctx); return err },
				"MCP": func() error {
					_, err := c.MCP(ctx, "agent", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"secret()"}}}`), false)
					return err
				},
				"Shutdown": func() error { return c.Shutdown(ctx) },
				"PairCode": func() error { _, _, err := c.PairCode(ctx); return err },
				"Commands": func() error { _, err := c.Commands(ctx); return err },
			}
			for call, do := range calls {
				err := do()
				nd, ok := errors.AsType[*NotDaemonError](err)
				if !ok || !errors.Is(err, ErrNotGasoline) {
					t.Errorf("%s: got %v, want a NotDaemonError", call, err)
					continue
				}
				want := fmt.Sprintf("port %d is held by another program (pid %d), not the gasoline daemon", im.port, os.Getpid())
				if runtime.GOOS != "linux" {
					want = fmt.Sprintf("port %d is held by another program (pid unknown)", im.port)
				}
				if !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "; stop it or use --port") || nd.Port != im.port {
					t.Errorf("%s: got %q, want it to contain %q and say what to do", call, err, want)
				}
				if strings.Contains(err.Error(), "4242") {
					t.Errorf("%s: %q repeats the impostor's made-up pid", call, err)
				}
			}
		})
	}
	got := im.received()
	for _, leak := range []string{token, "Authorization", "/mcp", "secret()", "/shutdown", "/pair/code", "/health", "/commands"} {
		if strings.Contains(got, leak) {
			t.Errorf("the impostor received %q; everything it got:\n%s", leak, got)
		}
	}
	if !strings.Contains(got, "GET /hello") {
		t.Errorf("the impostor got no challenge at all (%q); the test did not exercise the handshake", got)
	}
}

// TestRelayedProofIsRefused: a program on the client's port that relays
// the challenge to a real daemon on another port gets a proof for that
// port, which the client refuses.
func TestRelayedProofIsRefused(t *testing.T) {
	daemon := provingServer(t, testToken, http.NotFoundHandler())
	relay, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var relayed sync.WaitGroup
	t.Cleanup(func() { relay.Close(); relayed.Wait() })
	relayed.Add(1)
	go func() {
		defer relayed.Done()
		for {
			c, err := relay.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", daemon.Listener.Addr().String())
			if err != nil {
				c.Close()
				continue
			}
			relayed.Add(2)
			go func() { defer relayed.Done(); io.Copy(up, c); up.Close() }()
			go func() { defer relayed.Done(); io.Copy(c, up); c.Close() }()
		}
	}()
	port := relay.Addr().(*net.TCPAddr).Port
	_, err = New(baseURL(port), testToken).Health(t.Context())
	if !errors.Is(err, ErrNotGasoline) {
		t.Fatalf("got %v, want ErrNotGasoline for a relayed proof", err)
	}
}

// TestLocalPrefersTheSocket: the daemon of the state dir is reached
// through its socket, with no TCP listener at all; when the socket is gone,
// a daemon that proves itself on TCP is used, and a token created anew on
// disk is picked up from its proof.
func TestLocalPrefersTheSocket(t *testing.T) {
	dir, err := state.Open(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	sock, ok := dir.SocketPath()
	if !ok {
		t.Fatalf("socket path %s too long for this test's temp dir", sock)
	}
	os.WriteFile(dir.File(state.TokenFile), []byte(testToken+"\n"), 0o600)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: fakeDaemon(t).Config.Handler}
	go srv.Serve(ln)
	port := freePort(t)
	c := Local(port, dir.Path)
	if h, err := c.Health(t.Context()); err != nil || h.PID != 42 {
		t.Fatalf("through the socket: got %+v, %v", h, err)
	}
	if _, err := c.MCP(t.Context(), "client-1", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), true); err != nil {
		t.Fatalf("MCP through the socket: %v", err)
	}
	srv.Close()
	c.CloseIdleConnections()

	// TCP fallback, with a token the client has not read yet.
	const newToken = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	os.Remove(dir.File(state.TokenFile))
	os.WriteFile(dir.File(state.TokenFile), []byte(newToken+"\n"), 0o600)
	tl, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	tcp := &http.Server{Handler: proving(newToken, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+newToken {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))}
	go tcp.Serve(tl)
	defer tcp.Close()
	if _, err := c.MCP(t.Context(), "client-1", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), true); err != nil {
		t.Fatalf("MCP over TCP after a new token: %v", err)
	}
	if c.Token() != newToken {
		t.Errorf("the client kept the old token")
	}
}

// TestLocalRefusesAnInsecureToken: a token others could read is never
// sent, over TCP or through the socket, and the error says why.
func TestLocalRefusesAnInsecureToken(t *testing.T) {
	t.Run("tcp", func(t *testing.T) {
		dir, _ := state.Open(filepath.Join(t.TempDir(), "s"))
		os.WriteFile(dir.File(state.TokenFile), []byte(testToken+"\n"), 0o644)
		srv := fakeDaemon(t)
		port := srv.Listener.Addr().(*net.TCPAddr).Port
		_, err := Local(port, dir.Path).Health(t.Context())
		if !errors.Is(err, state.ErrInsecure) {
			t.Fatalf("got %v, want state.ErrInsecure", err)
		}
	})
	t.Run("socket", func(t *testing.T) {
		dir, _ := state.Open(filepath.Join(t.TempDir(), "s"))
		os.WriteFile(dir.File(state.TokenFile), []byte(testToken+"\n"), 0o644)
		sock, _ := dir.SocketPath()
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		var got sync.Map
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.Header.Get("Authorization"), true)
			http.Error(w, `{"error":{"code":"unauthorized","message":"missing or wrong bearer token"}}`, http.StatusUnauthorized)
		})}
		go srv.Serve(ln)
		defer srv.Close()
		err = Local(freePort(t), dir.Path).Shutdown(t.Context())
		if !errors.Is(err, state.ErrInsecure) || !strings.Contains(err.Error(), "rm ") {
			t.Fatalf("got %v, want state.ErrInsecure saying how to replace the token", err)
		}
		got.Range(func(k, _ any) bool {
			if strings.Contains(k.(string), testToken) {
				t.Errorf("the insecure token was sent")
			}
			return true
		})
	})
}

func baseURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
