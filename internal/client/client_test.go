package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// proving answers GET /hello as the daemon does, proving it knows token for
// the port it serves, and passes every other request to h.
func proving(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hello" {
			h.ServeHTTP(w, r)
			return
		}
		port := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr).Port
		json.NewEncoder(w).Encode(apitype.Hello{Service: apitype.ServiceName, Proof: apitype.HelloProof(token, port, r.Header.Get(apitype.HeaderNonce))})
	})
}

// provingServer is an httptest server of h that proves it knows token.
func provingServer(t *testing.T, token string, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(proving(token, h))
	t.Cleanup(srv.Close)
	return srv
}

// fakeDaemon answers the daemon API the way the contract describes it,
// proving it knows testToken.
func fakeDaemon(t *testing.T) *httptest.Server {
	return fakeDaemonProving(t, testToken)
}

// fakeDaemonProving is fakeDaemon proving it knows proofToken, while it
// accepts only testToken as a bearer token.
func fakeDaemonProving(t *testing.T, proofToken string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	authed := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+testToken {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				json.NewEncoder(w).Encode(apitype.ErrorBody{Error: apitype.ErrorDetail{
					Code: "unauthorized", Message: "missing or wrong token", Hint: "read the token from the state dir",
				}})
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(apitype.Health{Service: apitype.ServiceName, PID: 42, Version: "test"})
	})
	mux.HandleFunc("POST /mcp", authed(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(apitype.HeaderClient) != "client-1" {
			http.Error(w, "no client header", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}` + "\n"))
	}))
	mux.HandleFunc("POST /shutdown", authed(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	mux.HandleFunc("GET /commands", authed(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"pending":[],"completed":[],"failed":[]}`))
	}))
	mux.HandleFunc("POST /pair/code", authed(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"code":"ABCD-2345","expires_at":"2030-01-02T03:04:05Z"}`))
	}))
	return provingServer(t, proofToken, mux)
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestMCP(t *testing.T) {
	srv := fakeDaemon(t)
	c := New(srv.URL, testToken)
	ctx := t.Context()

	tests := []struct {
		name       string
		msg        string
		idempotent bool
		want       string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"tools/call"}`, false, `{"jsonrpc":"2.0","id":"a","result":{}}` + "\n"},
		{"notification gets nil", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.MCP(ctx, "client-1", []byte(tt.msg), tt.idempotent)
			if err != nil {
				t.Fatalf("MCP: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.want == "" && got != nil {
				t.Errorf("got %q, want nil body for 202", got)
			}
		})
	}
}

func TestAPIError(t *testing.T) {
	srv := fakeDaemonProving(t, "wrong-token")
	c := New(srv.URL, "wrong-token")
	_, err := c.MCP(t.Context(), "client-1", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), true)
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok {
		t.Fatalf("got %v, want *APIError", err)
	}
	if apiErr.Status != http.StatusUnauthorized || apiErr.Code != "unauthorized" {
		t.Errorf("got status %d code %q, want 401 unauthorized", apiErr.Status, apiErr.Code)
	}
	for _, want := range []string{"missing or wrong token", "read the token from the state dir"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("error %q leaks the token", err)
	}

	// A plain-text error (not the daemon's shape) still decodes.
	c = New(fakeDaemon(t).URL, testToken)
	_, err = c.MCP(t.Context(), "", []byte(`{}`), false)
	if apiErr, ok := errors.AsType[*APIError](err); !ok || apiErr.Status != http.StatusBadRequest || !strings.Contains(apiErr.Message, "no client header") {
		t.Errorf("got %v, want APIError 400 with the body text", err)
	}
}

func TestOtherEndpoints(t *testing.T) {
	srv := fakeDaemon(t)
	c := New(srv.URL, testToken)
	ctx := t.Context()

	h, err := c.Health(ctx)
	if err != nil || h.PID != 42 {
		t.Errorf("Health: got %+v, %v, want pid 42", h, err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	raw, err := c.Commands(ctx)
	if err != nil || !json.Valid(raw) {
		t.Errorf("Commands: got %s, %v", raw, err)
	}
	code, exp, err := c.PairCode(ctx)
	if err != nil || code != "ABCD-2345" || !exp.Equal(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("PairCode: got %q %v %v, want ABCD-2345 2030-01-02T03:04:05Z", code, exp, err)
	}

	c.SetToken("bad")
	if err := c.Shutdown(ctx); err == nil {
		t.Error("Shutdown with a bad token: got nil error")
	}
}

func TestHealthNotGasoline(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"404", http.NotFound},
		{"other json", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"status":"ok"}`)) }},
		{"html", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html></html>`)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			_, err := New(srv.URL, "").Health(t.Context())
			if !errors.Is(err, ErrNotGasoline) {
				t.Errorf("got %v, want ErrNotGasoline", err)
			}
		})
	}
}

// TestMCPNotGasoline: a 2xx that is not a JSON object never reaches the
// caller (the bridge would write it to stdout), whether it comes from a
// program that cannot prove it is the daemon or from one that can.
func TestMCPNotGasoline(t *testing.T) {
	for _, body := range []string{"hello from some dev server", "", "[1,2]", `{"half":`} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) })
		for name, srv := range map[string]*httptest.Server{"impostor": httptest.NewServer(h), "daemon": httptest.NewServer(proving("t", h))} {
			_, err := New(srv.URL, "t").MCP(t.Context(), "c", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), true)
			srv.Close()
			if !errors.Is(err, ErrNotGasoline) {
				t.Errorf("%s, body %q: got %v, want ErrNotGasoline", name, body, err)
			}
		}
	}
}

func TestUnreachable(t *testing.T) {
	c := New("http://"+freeAddr(t), testToken)
	if _, err := c.Health(t.Context()); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Health: got %v, want ErrUnreachable", err)
	}
	_, err := c.MCP(t.Context(), "client-1", []byte(`{}`), false)
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrConnLost) {
		t.Errorf("MCP: got %v, want ErrUnreachable only", err)
	}
}

// TestConnLost checks a connection broken after the request was written: a
// non-idempotent request reports ErrConnLost; an idempotent one written on
// a reused connection is replayed by the transport.
func TestConnLost(t *testing.T) {
	var requests atomic.Int32
	srv := provingServer(t, testToken, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if requests.Add(1) == 2 {
			// Break the second request's connection as a dying daemon would.
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	c := New(srv.URL, testToken)
	ctx := t.Context()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)

	if _, err := c.MCP(ctx, "c", msg, false); err != nil {
		t.Fatalf("first call: %v", err)
	}
	_, err := c.MCP(ctx, "c", msg, false)
	if !errors.Is(err, ErrConnLost) {
		t.Fatalf("non-idempotent call on a broken connection: got %v, want ErrConnLost", err)
	}

	requests.Store(2) // the next request succeeds and leaves an idle connection
	if _, err := c.MCP(ctx, "c", msg, false); err != nil {
		t.Fatalf("warming a keep-alive connection: %v", err)
	}
	requests.Store(1) // the next request is broken
	if _, err := c.MCP(ctx, "c", msg, true); err != nil {
		t.Errorf("idempotent call on a broken reused connection: got %v, want it replayed", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := provingServer(t, testToken, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := New(srv.URL, testToken).MCP(ctx, "c", []byte(`{}`), true)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrConnLost) || errors.Is(err, ErrUnreachable) {
		t.Errorf("got %v, want only context.DeadlineExceeded", err)
	}
}

// TestKeepAlive checks that sequential calls reuse one connection.
func TestKeepAlive(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(proving(testToken, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Write([]byte(`{}`))
	})))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := New(srv.URL, testToken)
	for range 20 {
		if _, err := c.MCP(t.Context(), "c", []byte(`{"id":1}`), false); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("got %d connections for 20 sequential calls, want 1", n)
	}
}
