package daemon_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/internal/server"
)

// extension is a fake extension paired with a daemon as the popup pairs
// (a proof of the code, never the code) that signs its requests with its
// own token as extension/auth.js does.
type extension struct {
	d   *harness.Daemon
	key []byte
}

func pairExtension(t *testing.T, d *harness.Daemon) *extension {
	t.Helper()
	code, body := d.Post(t, "/pair/code", nil, nil)
	var pc apitype.PairCode
	if err := json.Unmarshal(body, &pc); code != http.StatusOK || err != nil {
		t.Fatalf("POST /pair/code: %d %s", code, body)
	}
	nonce := randomHex(32)
	proof := extauth.ExtensionProof(extauth.PairKey(pc.Code, nonce), nonce)
	req, _ := http.NewRequest(http.MethodPost, d.URL+"/pair", strings.NewReader(`{"nonce":"`+nonce+`","proof":"`+proof+`","instance":"capture-test"}`))
	req.Header.Set("Origin", "chrome-extension://"+server.DefaultExtensionID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p apitype.Paired
	if err := json.NewDecoder(resp.Body).Decode(&p); resp.StatusCode != http.StatusOK || err != nil || p.Token == "" || p.Token == d.Token {
		t.Fatalf("POST /pair: HTTP %d, %v, token %q", resp.StatusCode, err, p.Token)
	}
	return &extension{d: d, key: extauth.TokenKey(p.Token)}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// postEvents posts a batch as the extension's worker does, signed.
func (x *extension) postEvents(evs ...apitype.Event) error {
	b, _ := json.Marshal(apitype.EventBatch{Events: evs})
	u, _ := url.Parse(x.d.URL)
	r := extauth.Request{Method: http.MethodPost, Host: u.Host, URI: "/events", Instance: "capture-test",
		TS: time.Now().UnixMilli(), Nonce: randomHex(16), Body: b}
	req, _ := http.NewRequest(http.MethodPost, x.d.URL+"/events", bytes.NewReader(b))
	req.Header.Set("Authorization", r.Authorization(x.key))
	req.Header.Set(apitype.HeaderExtensionInstance, r.Instance)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var ack apitype.EventsAck
	if err := json.Unmarshal(out, &ack); resp.StatusCode != http.StatusOK || err != nil || ack.Accepted != len(evs) {
		return fmt.Errorf("POST /events: HTTP %d %s", resp.StatusCode, out)
	}
	return nil
}

// TestObserveCapturedEvents runs the capture path end to end without a
// browser: the paired extension posts events over HTTP signed with its own
// token,
// and the agent reads them through /mcp, including a wait that the next
// batch ends.
func TestObserveCapturedEvents(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := pairExtension(t, d)
	page := "http://localhost:3000/cart"
	failed := apitype.Event{Kind: "network", TS: 1_700_000_000_100, TabID: 4, PageURL: page, RequestID: "r1", Source: "page",
		Method: "POST", URL: "http://localhost:3000/api/cart", Status: apitype.Num(500), ResourceType: "fetch",
		RequestHeaders: map[string]string{"Authorization": "Bearer secret"}, ResponseBody: `{"error":"out of stock"}`}
	if err := ext.postEvents(
		apitype.Event{Kind: "tab", TS: 1_700_000_000_000, TabID: 4, PageURL: page, Type: "activated", Title: "Cart", WindowID: 1},
		apitype.Event{Kind: "log", TS: 1_700_000_000_000, TabID: 4, PageURL: page, Level: "info", Message: "cart loaded"},
		failed,
	); err != nil {
		t.Fatal(err)
	}

	logs, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "logs"})
	entries, _ := logs["entries"].([]any)
	if isErr || len(entries) != 1 || harness.Field(entries[0].(map[string]any), "message") != "cart loaded" {
		t.Fatalf("observe logs: got %v", logs)
	}
	net, _ := d.Call(t, "agent", "observe", map[string]any{"what": "network", "status": ">=400"})
	reqs, _ := net["entries"].([]any)
	if len(reqs) != 1 {
		t.Fatalf("observe network status>=400: got %v", net)
	}
	id := reqs[0].(map[string]any)["id"]
	detail, _ := d.Call(t, "agent", "observe", map[string]any{"what": "network", "id": id})
	if auth := harness.Field(detail, "entry", "request_headers", "Authorization"); auth != "[redacted]" {
		t.Errorf("Authorization header: got %v, want it redacted", auth)
	}
	body, _ := d.Call(t, "agent", "observe", map[string]any{"what": "network", "id": id, "body": "response"})
	if body["text"] != `{"error":"out of stock"}` {
		t.Errorf("response body: got %v", body)
	}
	if p, _ := d.Call(t, "agent", "observe", map[string]any{"what": "page"}); p["title"] != "Cart" || p["tab_id"] != float64(4) {
		t.Errorf("observe page: got %v", p)
	}

	// A wait from the cursor of the last read ends when the next warning
	// arrives, whenever the batch is posted relative to the call.
	got := make(chan map[string]any, 1)
	go func() { // d.Call may not fail the test from here: a raw call
		args, _ := json.Marshal(map[string]any{"what": "logs", "min_level": "warn", "since": logs["next_cursor"], "wait_ms": 30000})
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":` + string(args) + `}}`
		req, _ := http.NewRequest(http.MethodPost, d.URL+"/mcp", strings.NewReader(msg))
		req.Header.Set("Authorization", "Bearer "+d.Token)
		req.Header.Set(apitype.HeaderClient, "agent") // as the bridge: no session
		var out struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
		}
		got <- out.Result.StructuredContent
	}()
	if err := ext.postEvents(
		apitype.Event{Kind: "log", TS: 1_700_000_000_200, TabID: 4, PageURL: page, Level: "log", Message: "not this"},
		apitype.Event{Kind: "log", TS: 1_700_000_000_300, TabID: 4, PageURL: page, Level: "warn", Message: "low stock"},
	); err != nil {
		t.Fatal(err)
	}
	res := <-got
	entries, _ = res["entries"].([]any)
	if len(entries) != 1 || harness.Field(entries[0].(map[string]any), "message") != "low stock" {
		t.Errorf("waiting observe logs: got %v, want only the warning", res)
	}
}

// TestStoreSurvivesRestart stores a value, restarts the daemon on the same
// state dir and loads it back: the daemon opens the key-value store there.
func TestStoreSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	t.Run("store", func(t *testing.T) {
		d := harness.StartDaemon(t, daemon.Options{StateDir: dir})
		if res, isErr := d.Call(t, "agent", "configure", map[string]any{"action": "store", "key": "login", "value": map[string]any{"user": "qa"}}); isErr {
			t.Fatalf("store: %v", res)
		}
	})
	d := harness.StartDaemon(t, daemon.Options{StateDir: dir})
	res, isErr := d.Call(t, "agent", "configure", map[string]any{"action": "load", "key": "login"})
	if isErr || harness.Field(res, "value", "user") != "qa" {
		t.Errorf("load after restart: got %v", res)
	}
}
