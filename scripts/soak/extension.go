//go:build unix

package main

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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
	"github.com/gasoline-mcp/gasoline/internal/server"
)

// pair pairs the fake extension as the popup does (extension/auth.js): a
// proof of the code, never the code, and the daemon's answer checked with
// the code's key. It returns the extension token.
func (r *run) pair(ctx context.Context) (string, error) {
	c := client.Local(r.port, r.stateDir)
	defer c.CloseIdleConnections()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	code, _, err := c.PairCode(cctx)
	if err != nil {
		return "", fmt.Errorf("pairing code: %w", err)
	}
	nonce := randomHex(32)
	key := extauth.PairKey(code, nonce)
	body := `{"nonce":"` + nonce + `","proof":"` + extauth.ExtensionProof(key, nonce) + `","instance":"soak"}`
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, config.BaseURL(r.port)+"/pair", strings.NewReader(body))
	req.Header.Set("Origin", "chrome-extension://"+server.DefaultExtensionID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("pairing: %w", err)
	}
	defer resp.Body.Close()
	var pr apitype.Paired
	if err := json.NewDecoder(resp.Body).Decode(&pr); err != nil || resp.StatusCode != 200 || pr.Token == "" {
		return "", fmt.Errorf("pairing: HTTP %d, %v", resp.StatusCode, err)
	}
	if pr.Proof != extauth.DaemonProof(key, nonce, pr.Token, pr.ExtensionID) {
		return "", fmt.Errorf("pairing: the daemon's answer does not prove it knows the code")
	}
	return pr.Token, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// signedRequest is a request signed, and its body sealed, as the extension
// does with the extension token tok; it returns the request and its nonce,
// which the daemon's answer signature covers.
func signedRequest(ctx context.Context, port int, method, uri, tok string, body []byte) (*http.Request, string, error) {
	host := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	sr := extauth.Request{Method: method, Host: host, URI: uri, Instance: "soak", TS: time.Now().UnixMilli(), Nonce: randomHex(16)}
	header := map[string]string{"Authorization": sr.Authorization(extauth.TokenKey(tok))}
	if len(body) > 0 {
		body, header = sr.SignSealed(extauth.TokenKey(tok), body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+host+uri, bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.Header.Set("Origin", "chrome-extension://"+server.DefaultExtensionID)
	req.Header.Set(apitype.HeaderExtensionInstance, "soak")
	return req, sr.Nonce, nil
}

// extension is a fake of the Chrome extension over the daemon's TCP port:
// it long-polls, runs each command it receives (records it, and answers
// soak(N) with N), and now and then disconnects, abandoning what it holds.
type extension struct {
	r     *run
	token string
	hc    *http.Client

	mu       sync.Mutex
	executed map[string]int // correlation id → times received; guarded by mu
	wg       sync.WaitGroup // command runners
}

func newExtension(r *run, token string) *extension {
	return &extension{r: r, token: token, hc: &http.Client{Transport: &http.Transport{}}, executed: map[string]int{}}
}

func (x *extension) executedCount() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.executed)
}

// do sends a signed request and checks the daemon's signature of a 2xx
// answer, as the extension does before it acts on one.
func (x *extension) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, nonce, err := signedRequest(ctx, x.r.port, method, path, x.token, body)
	if err != nil {
		return 0, nil, err
	}
	resp, err := x.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 == 2 &&
		!extauth.Verify(extauth.TokenKey(x.token), extauth.ResponseMessage(nonce, resp.StatusCode, b), resp.Header.Get(extauth.SignatureHeader)) {
		x.r.violation("%s %s answered %d without a valid signature for the request", method, path, resp.StatusCode)
	}
	return resp.StatusCode, b, err
}

// run polls until ctx ends, then waits for the commands it is running.
func (x *extension) run(ctx context.Context) {
	defer x.wg.Wait()
	nextDisconnect := time.Now().Add(x.r.between(2*time.Second, 8*time.Second))
	// Commands run under the worker's life: a disconnect ends it, and what
	// was running is never reported, as when Chrome kills the worker.
	life := newLife(ctx)
	defer func() { life.end() }()
	for ctx.Err() == nil {
		if time.Now().After(nextDisconnect) {
			x.r.count(x.r.report.Faults, "extension disconnect")
			life.end()
			x.hc.CloseIdleConnections()
			sleep(ctx, x.r.between(500*time.Millisecond, 4*time.Second))
			life = newLife(ctx)
			nextDisconnect = time.Now().Add(x.r.between(2*time.Second, 8*time.Second))
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if x.r.intn(100) < 3 {
			// A poll dropped mid-way, as when Chrome suspends the worker.
			cancel()
			pctx, cancel = context.WithTimeout(ctx, x.r.between(10*time.Millisecond, 300*time.Millisecond))
		}
		code, body, err := x.do(pctx, http.MethodGet, "/pending-queries?wait_ms=2000&contract="+extcontract.Version, nil)
		cancel()
		if err != nil || code != 200 {
			sleep(ctx, 100*time.Millisecond) // the daemon restarts, or is busy
			continue
		}
		var pq apitype.PendingQueries
		if err := json.Unmarshal(body, &pq); err != nil {
			x.r.violation("GET /pending-queries answered invalid JSON: %.200q", body)
			continue
		}
		for _, q := range pq.Queries {
			x.mu.Lock()
			x.executed[q.CorrelationID]++
			times := x.executed[q.CorrelationID]
			x.mu.Unlock()
			if times > 1 {
				x.r.violation("command %s was delivered to the extension %d times", q.CorrelationID, times)
				continue
			}
			x.wg.Add(1)
			l := life.ctx
			go func() { defer x.wg.Done(); x.runCommand(l, q) }()
		}
	}
}

// runCommand answers one command: mostly soak(N) → N, sometimes after a
// pending report, sometimes an error, sometimes never (abandoned).
func (x *extension) runCommand(ctx context.Context, q apitype.PendingQuery) {
	var p struct{ Script string }
	json.Unmarshal(q.Params, &p)
	var n int64
	if _, err := fmt.Sscanf(p.Script, "soak(%d)", &n); err != nil {
		x.r.violation("command %s has params %s, not a soak script", q.CorrelationID, q.Params)
		return
	}
	report := func(status string, result any, msg string) {
		body, _ := json.Marshal(map[string]any{"correlation_id": q.CorrelationID, "status": status, "result": result, "error": msg})
		for attempt := 0; attempt < 3 && ctx.Err() == nil; attempt++ {
			code, resp, err := x.do(ctx, http.MethodPost, "/query-result", body)
			switch {
			case err != nil:
				sleep(ctx, 100*time.Millisecond)
				continue
			case code == 200, code == 404, code == 409:
				// 404: the daemon restarted; 409: it already failed the
				// command (a timer, or this extension's absence).
				return
			default:
				x.r.violation("POST /query-result %s answered %d %.200s", status, code, resp)
				return
			}
		}
	}
	switch roll := x.r.intn(100); {
	case roll < 4:
		x.r.count(x.r.report.Faults, "command abandoned")
	case roll < 8:
		report("error", nil, "soak: the script threw")
	case roll < 30:
		report("pending", nil, "")
		sleep(ctx, x.r.between(0, time.Second))
		report("complete", map[string]any{"value": n}, "")
	default:
		report("complete", map[string]any{"value": n}, "")
	}
}

// life is one life of the extension's worker.
type life struct {
	ctx context.Context
	end context.CancelFunc
}

func newLife(parent context.Context) life {
	ctx, end := context.WithCancel(parent)
	return life{ctx: ctx, end: end}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
