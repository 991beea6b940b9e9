package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/internal/server"
)

// signed returns a request signed as the extension signs them with key.
func signed(method, url, host, uri, instance string, key, body []byte) *http.Request {
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	r := extauth.Request{Method: method, Host: host, URI: uri, Instance: instance, TS: time.Now().UnixMilli(), Nonce: randomHex(16), Body: body}
	req.Header.Set("Authorization", r.Authorization(key))
	req.Header.Set(apitype.HeaderExtensionInstance, instance)
	req.Header.Set("Origin", "chrome-extension://"+server.DefaultExtensionID)
	return req
}

// flood holds up to hold idle TCP connections to addr, replacing its
// oldest with a new one until stopped or until it has opened max in all,
// as a hostile local process would. It closes every connection it opened
// before stop returns; stop may be called more than once.
func flood(addr string, hold, max int) (opened *atomic.Int64, stop func()) {
	opened = &atomic.Int64{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		conns := make([]net.Conn, 0, hold)
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for opened.Load() < int64(max) {
			select {
			case <-done:
				return
			default:
			}
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				time.Sleep(time.Millisecond)
				continue
			}
			opened.Add(1)
			if len(conns) == hold {
				conns[0].Close()
				conns = conns[1:]
			}
			conns = append(conns, c)
		}
		<-done
	}()
	var once sync.Once
	return opened, func() { once.Do(func() { close(done) }); wg.Wait() }
}

// TestFloodLeavesExtensionAndAgentsServed is finding 2 of issue 7: while a
// local process floods the port with idle connections (2 000 held, and
// replaced as fast as it can), an agent submits over the Unix socket and
// the extension long-polls and reports over TCP with its token: the whole
// async cycle completes, and the daemon's descriptors stay bounded.
func TestFloodLeavesExtensionAndAgentsServed(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	extKey := pairExtension(t, d).key
	addr := strings.TrimPrefix(d.URL, "http://")
	var port int
	fmt.Sscanf(addr[strings.LastIndexByte(addr, ':')+1:], "%d", &port)
	agent := client.Local(port, d.Dir)
	defer agent.CloseIdleConnections()

	opened, stop := flood(addr, 2000, 10000)
	defer stop()
	// Wait until the flood holds its 2 000 connections and the daemon
	// evicts to make room.
	uc := unixHTTP(d.Dir)
	defer uc.CloseIdleConnections()
	stats := func() apitype.DebugStats {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://unix/debug/stats", nil)
		req.Header.Set("Authorization", "Bearer "+d.Token)
		req.Host = addr
		resp, err := uc.Do(req)
		if err != nil {
			t.Fatalf("debug stats over the socket: %v", err)
		}
		defer resp.Body.Close()
		var st apitype.DebugStats
		json.NewDecoder(resp.Body).Decode(&st)
		return st
	}
	for deadline := time.Now().Add(30 * time.Second); opened.Load() < 2000 || stats().Connections["tcp"].Evicted == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the flood never filled the daemon (%d opened)", opened.Load())
		}
	}

	// The agent queues a command over the socket.
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"document.title"}}}`
	resp, err := agent.MCP(t.Context(), "agent", []byte(msg), false)
	if err != nil {
		t.Fatalf("submitting during the flood: %v", err)
	}
	var sub struct {
		Result struct {
			StructuredContent struct {
				CorrelationID string `json:"correlation_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	json.Unmarshal(resp, &sub)
	id := sub.Result.StructuredContent.CorrelationID
	if id == "" {
		t.Fatalf("submit answered %s", resp)
	}

	// The extension polls and reports over TCP, retrying a connection the
	// flood got to first, as the real one does.
	ext := &http.Client{Transport: &http.Transport{}}
	defer ext.CloseIdleConnections()
	extDo := func(method, path string, body []byte) (int, []byte) {
		t.Helper()
		var lastErr error
		for range 50 {
			req := signed(method, d.URL+path, addr, path, "ext-flood", extKey, body)
			resp, err := ext.Do(req)
			if err != nil {
				lastErr = err
				time.Sleep(20 * time.Millisecond)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, b
		}
		t.Fatalf("%s %s during the flood: %v", method, path, lastErr)
		return 0, nil
	}
	code, body := extDo(http.MethodGet, "/pending-queries?wait_ms=10000", nil)
	var pq apitype.PendingQueries
	json.Unmarshal(body, &pq)
	if code != 200 || len(pq.Queries) != 1 || pq.Queries[0].CorrelationID != id {
		t.Fatalf("long-poll during the flood: got %d %s, want %s", code, body, id)
	}
	report, _ := json.Marshal(apitype.QueryResult{CorrelationID: id, Status: "complete", Result: json.RawMessage(`{"value":"Flooded"}`)})
	if code, body := extDo(http.MethodPost, "/query-result", report); code != 200 {
		t.Fatalf("report during the flood: got %d %s", code, body)
	}

	// The agent reads the result over the socket.
	read := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"` + id + `","wait_ms":5000}}}`
	resp, err = agent.MCP(t.Context(), "agent", []byte(read), true)
	if err != nil || !bytes.Contains(resp, []byte(`"Flooded"`)) {
		t.Fatalf("result during the flood: got %s, %v", resp, err)
	}

	st := stats()
	tcp := st.Connections["tcp"]
	t.Logf("flood opened %d connections; daemon tcp %+v, unix %+v, goroutines %d", opened.Load(), tcp, st.Connections["unix"], st.Goroutines)
	if tcp.Open > 2048 || tcp.Unauthenticated > 1024 {
		t.Errorf("tcp connections %+v exceed the limits (2048 open, 1024 unauthenticated)", tcp)
	}
	stop()
	// Once the flood lets go, the daemon's connections drain.
	for deadline := time.Now().Add(30 * time.Second); stats().Connections["tcp"].Unauthenticated > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("unauthenticated connections still open after the flood: %+v", stats().Connections["tcp"])
		}
	}
}

// unixHTTP is an HTTP client over the daemon's socket in dir.
func unixHTTP(dir string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", dir+"/daemon.sock")
	}}}
}
