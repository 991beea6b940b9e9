package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/rs/zerolog"
)

// runCLI runs the gasoline command line in-process and returns its exit
// code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// testDaemon is a real daemon.Run on a free 127.0.0.1 port.
type testDaemon struct {
	port  int
	dir   string
	token string
	// browser, when set, is the browser the fake extension says it runs
	// in (apitype.BrowserChrome or BrowserFirefox).
	browser string
}

func startTestDaemon(t *testing.T) *testDaemon {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	ready := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Options{
			StateDir: dir, LogLevel: zerolog.DebugLevel, LogTo: zerolog.NewTestWriter(t),
			Ready: func(a net.Addr) { ready <- a },
		})
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("daemon exited: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("daemon did not start")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon.Run: %v", err)
		}
	})
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return &testDaemon{port: addr.(*net.TCPAddr).Port, dir: dir, token: strings.TrimSpace(string(tok))}
}

func (d *testDaemon) url(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", d.port, path)
}

// flags are the global flags that point the CLI at this daemon.
func (d *testDaemon) flags() []string {
	return []string{"--port", fmt.Sprint(d.port), "--state-dir", d.dir}
}

func (d *testDaemon) do(t *testing.T, method, path, token string, header map[string]string, body any) []byte {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, d.url(path), rd)
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d %s", method, path, resp.StatusCode, out)
	}
	return out
}

// pairExtension pairs a fake extension as the popup does, proving the
// code without sending it.
func (d *testDaemon) pairExtension(t *testing.T) {
	t.Helper()
	var code apitype.PairCode
	json.Unmarshal(d.do(t, http.MethodPost, "/pair/code", d.token, nil, nil), &code)
	var b [32]byte
	rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	proof := extauth.ExtensionProof(extauth.PairKey(code.Code, nonce), nonce)
	var paired apitype.Paired
	json.Unmarshal(d.do(t, http.MethodPost, "/pair", "",
		map[string]string{"Origin": "chrome-extension://" + server.DefaultExtensionID},
		apitype.PairRequest{Nonce: nonce, Proof: proof, Instance: "test"}), &paired)
	if paired.Token == "" {
		t.Fatal("pairing returned no token")
	}
}

// serveExtension runs a fake extension until the test ends: it long-polls
// and answers every command with answer(query). Like the shared harness's,
// it authenticates with the state-dir token, as curl would.
func (d *testDaemon) serveExtension(t *testing.T, answer func(apitype.PendingQuery) apitype.QueryResult) {
	d.serveExtensionBuilt(t, extcontract.Version, answer)
}

// serveExtensionBuilt is serveExtension for an extension built with
// contract version v ("": one that sends none, older than the check).
func (d *testDaemon) serveExtensionBuilt(t *testing.T, v string, answer func(apitype.PendingQuery) apitype.QueryResult) {
	token := d.token
	poll := "/pending-queries?wait_ms=1000"
	if v != "" {
		poll += "&contract=" + v
	}
	if d.browser != "" {
		poll += "&browser=" + d.browser
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	hdr := map[string]string{"Origin": "chrome-extension://" + server.DefaultExtensionID, apitype.HeaderExtensionInstance: "test"}
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.url(poll), nil)
			req.Header.Set("Authorization", "Bearer "+token)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				continue
			}
			var pq apitype.PendingQueries
			json.NewDecoder(resp.Body).Decode(&pq)
			resp.Body.Close()
			for _, q := range pq.Queries {
				b, _ := json.Marshal(answer(q))
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, d.url("/query-result"), bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+token)
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	}()
}

// waitConnected waits until /health reports an extension connected.
func (d *testDaemon) waitConnected(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var h apitype.Health
		json.Unmarshal(d.do(t, http.MethodGet, "/health", "", nil, nil), &h)
		if h.Extension.Connected {
			return
		}
	}
	t.Fatal("the fake extension never showed as connected")
}
