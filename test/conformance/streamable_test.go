//go:build unix

package conformance

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds the daemon's token to every request of a URL-configured client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestStreamableSDK connects the go-sdk's streamable client to the daemon's
// /mcp directly (no bridge): tools/list and a full async cycle whose wait
// reports progress, statelessly in 2026-07-28, and in 2025-11-25 within a
// session that ends with DELETE.
func TestStreamableSDK(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(v, func(t *testing.T) { testStreamableSDK(t, v) })
	}
}

func testStreamableSDK(t *testing.T, version string) {
	modern := version >= "2026-07-28"
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t)
	start := exec.CommandContext(ctx, filepath.Join(filepath.Dir(bridgeBin), "gasoline"), "daemon", "start",
		"--port", strconv.Itoa(e.port), "--state-dir", e.dir)
	start.Env = e.bridgeCmd().Env
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("gasoline daemon start: %v\n%s", err, out)
	}

	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	c := mcp.NewClient(&mcp.Implementation{Name: "gasoline-streamable", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params)
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   e.url("/mcp"),
		HTTPClient: &http.Client{Transport: bearer{e.token()}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s: %v", e.url("/mcp"), err)
	}
	session := cs.ID()
	if modern && session != "" {
		t.Errorf("session id %q, want none in %s", session, version)
	}
	if !modern && len(session) != 32 {
		t.Errorf("session id %q, want the daemon's 32 hex characters", session)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != version {
		t.Errorf("negotiated %q, want %s", v, version)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 3 {
		t.Fatalf("ListTools: %v, %d tools", err, len(tools.Tools))
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "interact", Arguments: map[string]any{"action": "execute_js", "script": "return 6 * 7"}})
	if err != nil {
		t.Fatalf("interact: %v", err)
	}
	var queued struct {
		Status        string `json:"status"`
		CorrelationID string `json:"correlation_id"`
	}
	structured(t, res, &queued)
	if queued.Status != "queued" {
		t.Fatalf("interact: %+v, want queued", queued)
	}

	// The extension takes the command and finishes it 8 s later: the daemon
	// reports progress every 5 s, so the wait sees at least one report.
	var polled struct {
		Queries []struct {
			CorrelationID string `json:"correlation_id"`
		} `json:"queries"`
	}
	if code := e.do(http.MethodGet, "/pending-queries?wait_ms=5000", nil, &polled); code != 200 || len(polled.Queries) != 1 {
		t.Fatalf("poll: HTTP %d, %+v", code, polled)
	}
	e.do(http.MethodPost, "/query-result", map[string]any{"correlation_id": queued.CorrelationID, "status": "pending"}, nil)
	// It keeps long-polling meanwhile, as the real one does, or the daemon
	// would count it gone and fail the command.
	finished := make(chan int, 1)
	tok := e.token()
	go func() {
		for until := time.Now().Add(8 * time.Second); time.Now().Before(until) && ctx.Err() == nil; {
			quiet(ctx, e, tok, http.MethodGet, "/pending-queries?wait_ms=1000", "")
		}
		finished <- quiet(ctx, e, tok, http.MethodPost, "/query-result",
			`{"correlation_id":"`+queued.CorrelationID+`","status":"complete","result":{"value":42}}`)
	}()

	params := &mcp.CallToolParams{Name: "observe", Arguments: map[string]any{
		"what": "command_result", "correlation_id": queued.CorrelationID, "wait_ms": 30000,
	}}
	params.SetProgressToken("wait-1")
	res, err = cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("observe command_result: %v", err)
	}
	if code := <-finished; code != http.StatusOK {
		t.Fatalf("posting the result: HTTP %d", code)
	}
	var done struct {
		Status string `json:"status"`
		Result struct {
			Value int `json:"value"`
		} `json:"result"`
	}
	structured(t, res, &done)
	if done.Status != "complete" || done.Result.Value != 42 {
		t.Errorf("command_result %+v, want complete 42", done)
	}
	mu.Lock()
	got := append([]*mcp.ProgressNotificationParams(nil), progress...)
	mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no progress notification arrived during an 8 s wait")
	}
	if got[0].ProgressToken != "wait-1" || !strings.Contains(got[0].Message, "execute_js") {
		t.Errorf("progress %+v, want token wait-1 and a message naming the command", got[0])
	}

	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	if modern {
		return
	}
	req, _ := http.NewRequest(http.MethodPost, e.url("/mcp"), strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+e.token())
	req.Header.Set("Mcp-Session-Id", session)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("after Close: ping with the old session got %v %v, want 404 (the SDK deletes its session)", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
}

// quiet sends an authenticated request as the extension would, from a
// goroutine other than the test's: failures are the status code (0 when
// the request failed), never t.Fatal.
func quiet(ctx context.Context, e *env, token, method, path, body string) int {
	req, err := http.NewRequestWithContext(ctx, method, e.url(path), strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
