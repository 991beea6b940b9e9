package bridge

// In-process tests of the relay against a scripted stand-in for the daemon,
// for the failures that are hard to cause on demand in a real one (a
// connection broken mid-request, a token swapped on disk, a start that
// fails). The real daemon and the real binaries are in cmd/bridge.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
)

const (
	tokenA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	tokenB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// handleFunc answers one /mcp request of the scripted daemon; m is what
// peek read of body.
type handleFunc func(w http.ResponseWriter, r *http.Request, m message, body []byte)

// fake is a scripted daemon: handle decides each /mcp answer.
type fake struct {
	token  atomic.Pointer[string]
	handle handleFunc
	calls  atomic.Int32
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/hello" {
		// Prove, as the daemon does, that it knows the token.
		port := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr).Port
		json.NewEncoder(w).Encode(apitype.Hello{Service: apitype.ServiceName,
			Proof: apitype.HelloProof(*f.token.Load(), port, r.Header.Get(apitype.HeaderNonce))})
		return
	}
	if r.URL.Path == "/health" {
		json.NewEncoder(w).Encode(apitype.Health{Service: apitype.ServiceName})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+*f.token.Load() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(apitype.ErrorBody{Error: apitype.ErrorDetail{Code: "unauthorized", Message: "bad token"}})
		return
	}
	f.calls.Add(1)
	body, _ := io.ReadAll(r.Body)
	m := peek(body, toolpolicy.Default)
	if f.handle != nil {
		f.handle(w, r, m, body)
		return
	}
	echo(w, m)
}

// echo answers a request with a result naming its method; notifications
// get 202.
func echo(w http.ResponseWriter, m message) {
	if m.ID == nil || m.Method == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"method":"` + m.Method + `"}}` + "\n"))
}

func newFake(token string) *fake {
	f := &fake{}
	f.token.Store(&token)
	return f
}

// serveOn starts f on addr.
func serveOn(t *testing.T, addr string, f http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(f)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// session is a bridge served in-process over pipes.
type session struct {
	t     *testing.T
	dir   string // the state dir
	b     *Bridge
	stdin *io.PipeWriter
	lines chan string
	done  chan error
}

func writeToken(t *testing.T, dir, tok string) {
	t.Helper()
	tmp := filepath.Join(dir, "token.tmp")
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, state.TokenFile)); err != nil {
		t.Fatal(err)
	}
}

func startSession(t *testing.T, port int, dir string, to Timeouts, configure func(*Bridge)) *session {
	t.Helper()
	if to == (Timeouts{}) {
		to = Timeouts{Default: 2 * time.Second, Browser: 3 * time.Second, Max: 5 * time.Second}
	}
	b := New(Options{
		Port:      port,
		StateDir:  dir,
		DaemonBin: filepath.Join(dir, "no-such-gasoline"),
		Timeouts:  to,
		Logger:    zerolog.New(zerolog.NewTestWriter(t)),
	}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b.out.Reset(outW)
	if configure != nil {
		configure(b)
	}
	s := &session{t: t, dir: dir, b: b, stdin: inW, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() {
		err := b.Serve(t.Context(), inR)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *session) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("writing stdin: %v", err)
		}
	}
}

// response is a JSON-RPC response as the tests read it.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func (s *session) recv(within time.Duration) response {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatal("stdout closed, want a response")
		}
		var r response
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			s.t.Fatalf("stdout line %q is not JSON-RPC: %v", line, err)
		}
		return r
	case <-time.After(within):
		s.t.Fatalf("no response within %v", within)
	}
	return response{}
}

// finish closes stdin and checks Serve returns nil with nothing more on
// stdout.
func (s *session) finish() {
	s.t.Helper()
	s.stdin.Close()
	for line := range s.lines {
		s.t.Errorf("unexpected stdout line %q", line)
	}
	if err := <-s.done; err != nil {
		s.t.Errorf("Serve: got %v, want nil", err)
	}
}

// relay starts a bridge session in front of a scripted daemon that accepts
// tokenA and answers /mcp with handle (echo when nil). A zero to takes
// short test timeouts.
func relay(t *testing.T, handle handleFunc, to Timeouts) (*session, *fake) {
	t.Helper()
	dir := t.TempDir()
	writeToken(t, dir, tokenA)
	f := newFake(tokenA)
	f.handle = handle
	srv := serveOn(t, "127.0.0.1:0", f)
	return startSession(t, srv.Listener.Addr().(*net.TCPAddr).Port, dir, to, nil), f
}

// answer is what one response must be: a result equal to result, or an
// error with code (any code when 0) whose message contains every part.
type answer struct {
	result   string
	code     int
	contains []string
}

// breakConn closes the request's connection without answering, as a daemon
// killed mid-call does.
func breakConn(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// TestExchanges sends lines through the bridge to a daemon that behaves as
// each case scripts and checks the answer to every request, by id; nothing
// else may reach stdout (notifications are never answered).
func TestExchanges(t *testing.T) {
	wedged := func(w http.ResponseWriter, r *http.Request, m message, body []byte) { <-r.Context().Done() }
	var brokenOnce sync.Map // ids whose first attempt was broken
	breakFirst := func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		if _, done := brokenOnce.LoadOrStore(string(m.ID), true); !done {
			breakConn(w)
			return
		}
		echo(w, m)
	}
	answerWith := func(status int, body string) handleFunc {
		return func(w http.ResponseWriter, r *http.Request, m message, _ []byte) {
			if m.ID == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}
	}
	short := Timeouts{Default: 100 * time.Millisecond, Browser: 300 * time.Millisecond, Max: time.Second}
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	tests := []struct {
		name   string
		handle handleFunc // nil: echo
		to     Timeouts
		send   []string
		want   map[string]answer // by raw id
	}{
		{
			name: "requests are relayed, notifications and blank lines are not answered",
			send: []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, initialized, ``,
				`{"jsonrpc":"2.0","id":"two","method":"tools/list"}`},
			want: map[string]answer{`1`: {result: `{"method":"initialize"}`}, `"two"`: {result: `{"method":"tools/list"}`}},
		},
		{
			name:   "a read times out after the default timeout",
			handle: wedged, to: short,
			send: []string{call("observe", `{"what":"pending_commands"}`), initialized},
			want: map[string]answer{`7`: {code: CodeTimeout, contains: []string{"tools/call observe within 100ms"}}},
		},
		{
			name:   "a browser call times out after the browser timeout",
			handle: wedged, to: short,
			send: []string{call("interact", `{"action":"execute_js","script":"1"}`), initialized},
			want: map[string]answer{`7`: {code: CodeTimeout, contains: []string{"tools/call interact within 300ms; the browser command may still be running"}}},
		},
		{
			name:   "a lost connection under a non-idempotent call is reported",
			handle: breakFirst,
			send:   []string{call("interact", `{"action":"execute_js","script":"1"}`)},
			want: map[string]answer{`7`: {code: CodeDaemonRestarted, contains: []string{
				"restarted while tools/call interact was in flight", "may or may not have run", `observe({what:"pending_commands"})`}}},
		},
		{
			name:   "a lost connection under an idempotent call is retried",
			handle: breakFirst,
			send:   []string{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"exec_1","wait_ms":100}}}`},
			want:   map[string]answer{`8`: {result: `{"method":"tools/call"}`}},
		},
		{
			name: "a request accepted without an answer is a daemon bug",
			handle: func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
				w.WriteHeader(http.StatusAccepted)
			},
			send: []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			want: map[string]answer{`1`: {code: codeInternal, contains: []string{"sent no answer"}}},
		},
		{
			name:   "a multi-line answer is compacted onto one line",
			handle: answerWith(http.StatusOK, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"result\": {}\n}\n"),
			send:   []string{`{"jsonrpc":"2.0","id":2,"method":"ping"}`},
			want:   map[string]answer{`2`: {result: `{}`}},
		},
		{
			name:   "a 413 keeps the daemon's hint",
			handle: answerWith(http.StatusRequestEntityTooLarge, `{"error":{"code":"too_large","message":"body over 10 MB","hint":"send less"}}`),
			send:   []string{`{"jsonrpc":"2.0","id":3,"method":"ping"}`},
			want:   map[string]answer{`3`: {code: codeInvalidRequest, contains: []string{"send less"}}},
		},
		{
			name:   "a 404 not in the daemon's error shape names it and what to check",
			handle: func(w http.ResponseWriter, r *http.Request, m message, body []byte) { http.NotFound(w, r) },
			send:   []string{`{"jsonrpc":"2.0","id":4,"method":"ping"}`},
			want:   map[string]answer{`4`: {contains: []string{"HTTP 404", "daemon status"}}},
		},
		{
			name: "an answer to a notification is dropped",
			handle: func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
				if m.ID == nil {
					w.Write([]byte(`{"jsonrpc":"2.0","id":null,"result":{}}`))
					return
				}
				echo(w, m)
			},
			send: []string{`{"jsonrpc":"2.0","method":"notifications/chatty"}`, `{"jsonrpc":"2.0","id":5,"method":"ping"}`},
			want: map[string]answer{`5`: {result: `{"method":"ping"}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := relay(t, tt.handle, tt.to)
			s.send(tt.send...)
			for range tt.want {
				r := s.recv(3 * time.Second)
				want, ok := tt.want[string(r.ID)]
				if !ok {
					t.Fatalf("got an answer to id %s, want answers to %v", r.ID, keys(tt.want))
				}
				switch {
				case want.result != "" && (r.Error != nil || string(r.Result) != want.result):
					t.Errorf("id %s: got result %s error %+v, want result %s", r.ID, r.Result, r.Error, want.result)
				case want.result == "" && r.Error == nil:
					t.Errorf("id %s: got result %s, want an error", r.ID, r.Result)
				case want.result == "" && want.code != 0 && r.Error.Code != want.code:
					t.Errorf("id %s: got error %d %q, want code %d", r.ID, r.Error.Code, r.Error.Message, want.code)
				}
				for _, part := range want.contains {
					if r.Error != nil && !strings.Contains(r.Error.Message, part) {
						t.Errorf("id %s: message %q does not contain %q", r.ID, r.Error.Message, part)
					}
				}
			}
			s.finish()
		})
	}
}

func keys(m map[string]answer) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestClientHeader checks that every request of a bridge carries the same
// client id, a ULID.
func TestClientHeader(t *testing.T) {
	var clientIDs sync.Map
	s, _ := relay(t, func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		clientIDs.Store(r.Header.Get(apitype.HeaderClient), true)
		echo(w, m)
	}, Timeouts{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	s.recv(2 * time.Second)
	s.recv(2 * time.Second)
	s.finish()
	n := 0
	clientIDs.Range(func(k, _ any) bool {
		if len(k.(string)) != 26 {
			t.Errorf("client id %q: want 26 characters", k)
		}
		n++
		return true
	})
	if n != 1 {
		t.Errorf("got %d client ids, want 1 per bridge", n)
	}
}

// TestConcurrent checks that a slow call does not hold up a fast one.
func TestConcurrent(t *testing.T) {
	release := make(chan struct{})
	s, _ := relay(t, func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		if string(m.ID) == `"slow"` {
			<-release
		}
		echo(w, m)
	}, Timeouts{})
	s.send(`{"jsonrpc":"2.0","id":"slow","method":"ping"}`)
	for i := range 10 {
		s.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`)
	}
	for range 10 {
		if r := s.recv(2 * time.Second); string(r.ID) == `"slow"` {
			t.Fatal("the slow call answered before the fast ones")
		}
	}
	close(release)
	if r := s.recv(2 * time.Second); string(r.ID) != `"slow"` {
		t.Errorf("got id %s, want \"slow\"", r.ID)
	}
	s.finish()
}

func TestTokenReload(t *testing.T) {
	s, f := relay(t, nil, Timeouts{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if r := s.recv(2 * time.Second); r.Error != nil {
		t.Fatalf("got %+v", r.Error)
	}
	// The daemon restarts with a fresh token.
	f.token.Store(new(tokenB))
	writeToken(t, s.dir, tokenB)
	s.send(call("interact", `{"action":"execute_js"}`))
	if r := s.recv(2 * time.Second); r.Error != nil {
		t.Errorf("after a token change: got %+v, want the call retried with the new token", r.Error)
	}
	// A token that matches nothing is reported, not retried forever.
	f.token.Store(new(tokenA))
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	r := s.recv(2 * time.Second)
	if r.Error == nil || r.Error.Code != CodeDaemonRejected || !strings.Contains(r.Error.Message, "bad token") {
		t.Errorf("wrong token: got %+v, want error %d naming the daemon's message", r.Error, CodeDaemonRejected)
	}
	s.finish()
}

// TestAutoStart checks that calls finding no daemon start one, once for
// all of them, and retry.
func TestAutoStart(t *testing.T) {
	dir := t.TempDir()
	port := harness.FreePort(t)
	f := newFake(tokenA)
	var starts atomic.Int32
	s := startSession(t, port, dir, Timeouts{}, func(b *Bridge) {
		b.starter.start = func(ctx context.Context) error {
			starts.Add(1)
			time.Sleep(50 * time.Millisecond) // not synchronization: a slow start, so that calls pile up behind it (one start either way)
			writeToken(t, dir, tokenA)
			serveOn(t, "127.0.0.1:"+strconv.Itoa(port), f)
			return nil
		}
	})
	const n = 20
	for i := range n {
		s.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/list"}`)
	}
	for range n {
		if r := s.recv(3 * time.Second); r.Error != nil {
			t.Errorf("id %s: got %+v", r.ID, r.Error)
		}
	}
	if got := starts.Load(); got != 1 {
		t.Errorf("got %d starts, want 1", got)
	}
	s.finish()
}

func TestStartFails(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "gasoline")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"port in use: $*\" >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startSession(t, harness.FreePort(t), dir, Timeouts{}, func(b *Bridge) { b.opts.DaemonBin = script })
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r := s.recv(5 * time.Second)
	if r.Error == nil || r.Error.Code != CodeDaemonUnavailable {
		t.Fatalf("got %+v, want error %d", r, CodeDaemonUnavailable)
	}
	for _, want := range []string{"could not be started", "port in use: daemon start --port", filepath.Join(dir, "daemon.log"), "gasoline daemon run"} {
		if !strings.Contains(r.Error.Message, want) {
			t.Errorf("message %q does not contain %q", r.Error.Message, want)
		}
	}
	s.finish()
}

func TestOversizedLine(t *testing.T) {
	s, f := relay(t, nil, Timeouts{})
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"interact","arguments":{"script":"` +
		strings.Repeat("x", MaxLine) + `"}}}`
	go s.send(big, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	// Guards only: scanning a line over MaxLine under -race on a busy
	// machine has taken more than 5 s.
	r := s.recv(30 * time.Second)
	if r.Error == nil || r.Error.Code != codeInvalidRequest || string(r.ID) != "5" {
		t.Fatalf("got %+v, want error -32600 for id 5", r)
	}
	if r = s.recv(30 * time.Second); r.Error != nil || string(r.ID) != "6" {
		t.Errorf("after an oversized line: got %+v, want id 6 answered", r)
	}
	if got := f.calls.Load(); got != 1 {
		t.Errorf("daemon got %d calls, want 1 (the oversized line is not relayed)", got)
	}
	s.finish()
}

// TestEOFWaits checks that the end of stdin waits for calls in flight.
func TestEOFWaits(t *testing.T) {
	s, _ := relay(t, func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		time.Sleep(200 * time.Millisecond) // not synchronization: a slow daemon, so that the EOF comes while the call is in flight (answered either way)
		echo(w, m)
	}, Timeouts{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	s.stdin.Close()
	if r := s.recv(2 * time.Second); string(r.ID) != "1" || r.Error != nil {
		t.Errorf("got %+v, want id 1 answered after EOF", r)
	}
	s.finish()
}

// TestCancelled checks that notifications/cancelled aborts the request in
// flight (freeing the daemon) and that the request is then never answered.
func TestCancelled(t *testing.T) {
	aborted := make(chan string, 1)
	relayed := make(chan string, 1)
	inFlight := make(chan struct{})
	s, _ := relay(t, func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		switch m.Method {
		case "tools/call":
			close(inFlight)
			<-r.Context().Done()
			aborted <- string(m.ID)
		case "notifications/cancelled":
			relayed <- string(m.Params.RequestID)
			w.WriteHeader(http.StatusAccepted)
		default:
			echo(w, m)
		}
	}, Timeouts{})
	s.send(call("observe", `{"what":"command_result","correlation_id":"exec_1","wait_ms":50000}`))
	select {
	case <-inFlight: // the call is at the daemon
	case <-time.After(5 * time.Second):
		t.Fatal("the call never reached the daemon")
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
	for _, ch := range []struct {
		name string
		c    chan string
	}{{"daemon request aborted", aborted}, {"notification relayed", relayed}} {
		select {
		case id := <-ch.c:
			if id != "7" {
				t.Errorf("%s: got id %s, want 7", ch.name, id)
			}
		case <-time.After(2 * time.Second):
			t.Errorf("%s: did not happen", ch.name)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if r := s.recv(2 * time.Second); string(r.ID) != "8" {
		t.Errorf("got a response to id %s, want only 8 (7 was cancelled)", r.ID)
	}
	s.finish()
}

func TestServeCancel(t *testing.T) {
	dir := t.TempDir()
	writeToken(t, dir, tokenA)
	f := newFake(tokenA)
	inFlight := make(chan struct{}, 1)
	f.handle = func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		select {
		case inFlight <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}
	srv := serveOn(t, "127.0.0.1:0", f)
	b := New(Options{Port: srv.Listener.Addr().(*net.TCPAddr).Port, StateDir: dir, Timeouts: DefaultTimeouts,
		Logger: zerolog.New(zerolog.NewTestWriter(t))}, io.Discard)
	ctx, cancel := context.WithCancel(t.Context())
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- b.Serve(ctx, inR) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case <-inFlight: // the ping is at the daemon
	case <-time.After(5 * time.Second):
		t.Fatal("the ping never reached the daemon")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: got %v, want nil", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Serve did not return after ctx was cancelled")
	}
}

func TestClientID(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for range 100 {
		id := newClientID()
		if len(id) != 26 || strings.Trim(id, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
			t.Fatalf("id %q: want 26 Crockford base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
		if id[:10] < prev {
			t.Errorf("id %q sorts before the earlier %q", id, prev)
		}
		prev = id[:10]
	}
}

// TestProjectHeader checks that every request of a bridge names its own
// project folder, escaped, and only its own: two bridges in front of one
// daemon, started in different folders.
func TestProjectHeader(t *testing.T) {
	dir := t.TempDir()
	writeToken(t, dir, tokenA)
	var mu sync.Mutex
	seen := map[string][]string{} // client id → the project headers of its requests
	f := newFake(tokenA)
	f.handle = func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		mu.Lock()
		id := r.Header.Get(apitype.HeaderClient)
		seen[id] = append(seen[id], r.Header.Get(apitype.HeaderProject))
		mu.Unlock()
		echo(w, m)
	}
	port := serveOn(t, "127.0.0.1:0", f).Listener.Addr().(*net.TCPAddr).Port
	want := map[string]string{}
	for _, project := range []string{"/home/ann/shop", "/home/bo/my app"} {
		s := startSession(t, port, dir, Timeouts{}, func(b *Bridge) {
			b.opts.Project = project
			want[b.ClientID()] = url.PathEscape(project)
		})
		s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		s.recv(2 * time.Second)
		s.recv(2 * time.Second)
		s.finish()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("got requests of %d clients, want 2: %v", len(seen), seen)
	}
	for id, got := range seen {
		for _, h := range got {
			if h != want[id] {
				t.Errorf("client %s: got project %q, want %q", id, h, want[id])
			}
		}
	}
}

// TestRootsHeader checks that a client which declared the roots capability
// is asked for its roots once initialized and when they change, that its
// answer goes no further, and that its file: roots lead the project
// folders each later request names, before the bridge's own folder.
func TestRootsHeader(t *testing.T) {
	dir := t.TempDir()
	writeToken(t, dir, tokenA)
	var mu sync.Mutex
	var last []string // the project headers of the last ping
	f := newFake(tokenA)
	var relayed atomic.Int32 // messages with the bridge's roots id that reached the daemon
	f.handle = func(w http.ResponseWriter, r *http.Request, m message, body []byte) {
		if strings.Contains(string(body), "gasoline-mcp:roots") {
			relayed.Add(1)
		}
		if m.Method == "ping" {
			mu.Lock()
			last = r.Header.Values(apitype.HeaderProject)
			mu.Unlock()
		}
		echo(w, m)
	}
	port := serveOn(t, "127.0.0.1:0", f).Listener.Addr().(*net.TCPAddr).Port
	s := startSession(t, port, dir, Timeouts{}, func(b *Bridge) { b.opts.Project = "/home/ann/cwd" })
	// ping pings until the daemon sees want: each line is relayed on its
	// own, so a ping may overtake the answer before it.
	ping := func(want ...string) {
		t.Helper()
		var got []string
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
			s.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
			s.recv(2 * time.Second)
			mu.Lock()
			got = last
			mu.Unlock()
			if slices.Equal(got, want) {
				return
			}
		}
		t.Errorf("project headers: got %q, want %q", got, want)
	}
	asked := func() {
		t.Helper()
		select {
		case line := <-s.lines:
			if line != `{"jsonrpc":"2.0","id":"gasoline-mcp:roots","method":"roots/list"}` {
				t.Fatalf("got %s, want the bridge's roots/list", line)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("the bridge did not ask for the roots")
		}
	}
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}`)
	s.recv(2 * time.Second)
	ping("%2Fhome%2Fann%2Fcwd")
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	asked()
	s.send(`{"jsonrpc":"2.0","id":"gasoline-mcp:roots","result":{"roots":[{"uri":"file:///home/ann/my%20shop","name":"shop"},{"uri":"https://example.com/x"}]}}`)
	ping("%2Fhome%2Fann%2Fmy%20shop", "%2Fhome%2Fann%2Fcwd")
	s.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	asked()
	s.send(`{"jsonrpc":"2.0","id":"gasoline-mcp:roots","result":{"roots":[]}}`)
	ping("%2Fhome%2Fann%2Fcwd")
	s.finish()
	if n := relayed.Load(); n != 0 {
		t.Errorf("%d of the client's answers to the bridge's roots/list reached the daemon, want none", n)
	}
}
