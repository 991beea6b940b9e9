//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// injectFaults runs every kind of fault until ctx ends: daemon kills (in
// the first 70% of d, so the last daemon lives through the rest), floods of
// idle connections, oversize and malformed posts.
func (r *run) injectFaults(ctx context.Context, extToken string, d time.Duration) {
	var wg sync.WaitGroup
	start := time.Now()
	loop := func(lo, hi time.Duration, f func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				sleep(ctx, r.between(lo, hi))
				if ctx.Err() != nil {
					return
				}
				f(ctx)
			}
		}()
	}
	kills := max(2, int(d/(15*time.Second)))
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range kills {
			at := start.Add(d * time.Duration(15+55*i/max(1, kills-1)) / 100)
			sleep(ctx, time.Until(at))
			if ctx.Err() != nil {
				return
			}
			r.kill(ctx)
		}
	}()
	loop(3*time.Second, 6*time.Second, r.flood)
	loop(2*time.Second, 4*time.Second, func(ctx context.Context) { r.oversize(ctx, extToken) })
	loop(500*time.Millisecond, 1500*time.Millisecond, func(ctx context.Context) { r.malformed(ctx, extToken) })
	loop(4*time.Second, 8*time.Second, r.unverifiedFlood)
	wg.Wait()
}

// kill sends SIGKILL to the soak's own daemon; the bridge starts another on
// the agents' next call.
func (r *run) kill(ctx context.Context) {
	pid, ok := r.daemonPID(ctx)
	if !ok {
		return
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
		r.count(r.report.Faults, "daemon killed")
		r.cfg.Logf("killed daemon %d", pid)
	}
}

// flood holds a few hundred to 1 500 idle connections for up to 2 s.
func (r *run) flood(ctx context.Context) {
	n := 300 + r.intn(1200)
	conns := make([]net.Conn, 0, n)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port))
	for range n {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		conns = append(conns, c)
	}
	sleep(ctx, r.between(500*time.Millisecond, 2*time.Second))
	for _, c := range conns {
		c.Close()
	}
	r.count(r.report.Faults, "connection flood")
	r.mu.Lock()
	r.report.Faults["flood connections"] += len(conns)
	r.mu.Unlock()
}

var (
	oversizeOnce sync.Once
	bigMCP       []byte // 11 MB, over the 10 MB /mcp cap
	bigResult    []byte // 17 MB, over the 16 MB result cap
)

// oversize posts bodies over the caps: each must be refused with 413.
func (r *run) oversize(ctx context.Context, extToken string) {
	oversizeOnce.Do(func() {
		bigMCP = append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`), bytes.Repeat([]byte("x"), 11<<20)...), `"}}`...)
		bigResult = append(append([]byte(`{"correlation_id":"exec_x","status":"complete","result":"`), bytes.Repeat([]byte("y"), 17<<20)...), `"}`...)
	})
	admin, err := state.Dir{Path: r.stateDir}.ReadToken()
	if err != nil {
		return
	}
	for _, p := range []struct {
		path, token string
		body        []byte
	}{{"/mcp", admin, bigMCP}, {"/query-result", extPrefix + extToken, bigResult}} {
		code, body, err := r.post(ctx, p.path, p.token, p.body)
		if err != nil {
			continue // a connection cut mid-upload after the 413, or a daemon restarting
		}
		r.count(r.report.Faults, "oversize post")
		if code != http.StatusRequestEntityTooLarge {
			r.violation("an oversize POST %s answered %d %.200q, want 413", p.path, code, body)
		}
	}
}

// extPrefix marks an extension token given to post: it signs instead of
// sending the token.
const extPrefix = "ext:"

// malformedMCP are bodies no client should send; each must get a valid
// JSON-RPC answer (or 202 for what reads as a notification).
var malformedMCP = []string{
	`{"jsonrpc":"2.0","id":1,"method":`,
	`[]`,
	"\xff\xfe\x00garbage",
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":7}}}`,
	`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
	`null`,
}

// malformed posts broken bodies to /mcp, /query-result and /pair.
func (r *run) malformed(ctx context.Context, extToken string) {
	admin, err := state.Dir{Path: r.stateDir}.ReadToken()
	if err != nil {
		return
	}
	body := malformedMCP[r.intn(len(malformedMCP))]
	code, resp, err := r.post(ctx, "/mcp", admin, []byte(body))
	if err != nil {
		return
	}
	r.count(r.report.Faults, "malformed post")
	switch {
	case code == http.StatusAccepted:
	case code == http.StatusOK:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(resp, &m); err != nil || string(m["jsonrpc"]) != `"2.0"` || (m["result"] == nil) == (m["error"] == nil) {
			r.violation("POST /mcp %.60q answered with an invalid JSON-RPC message: %.200q", body, resp)
		}
	case code >= 500:
		r.violation("POST /mcp %.60q answered %d %.200q", body, code, resp)
	}
	for _, p := range []struct{ path, token, body string }{
		{"/query-result", extPrefix + extToken, `{"correlation_id":`},
		{"/query-result", extPrefix + extToken, `{"correlation_id":"exec_nope","status":"complete","result":1}`},
		{"/query-result", extPrefix + extToken, `{"correlation_id":"x","status":"exploded"}`},
		{"/pair", "", `{"code":12}`},
	} {
		code, resp, err := r.post(ctx, p.path, p.token, []byte(p.body))
		if err != nil {
			return
		}
		if code < 400 || code >= 500 {
			r.violation("POST %s %.60q answered %d %.200q, want a 4xx refusal", p.path, p.body, code, resp)
		}
		if !json.Valid(resp) {
			r.violation("POST %s answered a body that is not JSON: %.200q", p.path, resp)
		}
	}
}

// post sends body to path over TCP as curl (token: the state-dir token as
// a bearer token) or a broken extension (extToken: a signed request) would.
func (r *run) post(ctx context.Context, path, token string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var req *http.Request
	var err error
	if strings.HasPrefix(token, extPrefix) {
		req, _, err = signedRequest(ctx, r.port, http.MethodPost, path, strings.TrimPrefix(token, extPrefix), body)
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, config.BaseURL(r.port)+path, bytes.NewReader(body))
		if err == nil && token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
	}
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Origin", "chrome-extension://"+server.DefaultExtensionID)
	if req.Header.Get("Content-Type") == "" { // a sealed body says so
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// Bounds of the unverified-bodies flood (issue 16): requests at once, the
// size of each body, and the daemon heap it may cause.
const (
	unverifiedFloodN    = 40
	unverifiedFloodSize = 16 << 20
	unverifiedHeapLimit = 100 << 20
)

// filler is a body of n bytes that the soak does not hold in memory.
type filler struct{ n int64 }

var fill = bytes.Repeat([]byte("z"), 64<<10)

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(int64(len(p)), f.n)], fill)
	f.n -= int64(k)
	return k, nil
}

// unverifiedFlood posts unverifiedFloodN 16 MB bodies at once under a
// Gasoline-HMAC header with a wrong signature, half claiming the body's
// hash: none may be accepted, and the daemon's heap must stay under
// unverifiedHeapLimit meanwhile (it verifies the claim before reading and
// bounds what it reads unverified).
func (r *run) unverifiedFlood(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	host := net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port))
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	for i := range unverifiedFloodN {
		wg.Go(func() {
			sr := extauth.Request{Method: http.MethodPost, Host: host, URI: "/query-result", Instance: "soak",
				TS: time.Now().UnixMilli(), Nonce: randomHex(16)}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+host+"/query-result", &filler{unverifiedFloodSize})
			if err != nil {
				return
			}
			req.ContentLength = unverifiedFloodSize
			req.Header.Set("Authorization", sr.Authorization(extauth.TokenKey("not a paired token")))
			if i%2 == 0 {
				req.Header.Set(extauth.BodyHashHeader, randomHex(32))
			}
			resp, err := hc.Do(req)
			if err != nil {
				return // the daemon closes a refused upload's connection, or it is restarting
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				r.violation("a 16 MB body with a wrong signature was accepted: %d", resp.StatusCode)
			}
		})
	}
	c := client.Local(r.port, r.stateDir)
	defer c.CloseIdleConnections()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := c.DebugStats(sctx, false)
		scancel()
		if err == nil && st.HeapInuseBytes > unverifiedHeapLimit {
			r.violation("daemon heap %d MB in use during a flood of unverified bodies, over %d MB", st.HeapInuseBytes>>20, unverifiedHeapLimit>>20)
		}
		select {
		case <-done:
			r.count(r.report.Faults, "unverified flood")
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}
