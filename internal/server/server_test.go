package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/task"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

type env struct {
	url     string
	port    int
	tracker *tracker.Tracker
	pairing *pairing.Pairing
	mcp     *mcp.Server
	capture *capture.Store
}

// newEnv serves the real echo handler on 127.0.0.1 with real tools.
// firefoxUUID is the moz-extension:// host the test servers allow as the
// extension in Firefox.
const firefoxUUID = "6a0b3c2e-4f1d-4e8a-9b7c-3d2e1f0a9b8c"

func newEnv(t testing.TB) *env { return newEnvWith(t, tools.Deps{}) }

// newEnvWith is newEnv with tools built from deps (Tracker, Health and Log
// are filled in).
func newEnvWith(t testing.TB, deps tools.Deps) *env { return newEnvConfig(t, deps, nil) }

// newEnvConfig is newEnvWith with the server's config changed by edit
// (when not nil) before the server is built.
func newEnvConfig(t testing.TB, deps tools.Deps, edit func(*server.Config)) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	log := zerolog.New(zerolog.NewTestWriter(t))
	trk := tracker.New(tracker.Options{})
	pair, err := pairing.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "test"}, "", log)
	health := func() apitype.Health { return apitype.Health{Service: apitype.ServiceName, Port: port} }
	deps.Tracker, deps.Health, deps.Log = trk, health, log
	if deps.Capture == nil {
		deps.Capture = capture.New(capture.Options{})
	}
	tools.New(deps).Register(m)
	m.SetTasks(task.New(trk))
	cfg := server.Config{Port: port, Token: token, Tracker: trk, MCP: m, Pairing: pair, Health: health, Capture: deps.Capture, Log: log,
		FirefoxExtensionUUID: firefoxUUID}
	if edit != nil {
		edit(&cfg)
	}
	srv := server.New(cfg)
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() { trk.Close(); ts.Close() })
	return &env{url: ts.URL, port: port, tracker: trk, pairing: pair, mcp: m, capture: deps.Capture}
}

type req struct {
	method, path string
	headers      map[string]string
	body         string
}

// signAs, as a header of a req, makes do sign the request as the extension
// does with the extension token it holds, instead of sending the header.
const signAs = "Test-Sign-As"

func (e *env) do(t testing.TB, r req) (int, []byte) {
	t.Helper()
	hr, err := http.NewRequest(r.method, e.url+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range r.headers {
		switch k {
		case "Host":
			hr.Host = v
		case signAs:
		default:
			hr.Header.Set(k, v)
		}
	}
	if tok, ok := r.headers[signAs]; ok {
		sr := extauth.Request{Method: r.method, Host: hr.Host, URI: r.path, Instance: hr.Header.Get(apitype.HeaderExtensionInstance),
			TS: time.Now().UnixMilli(), Nonce: randomHex(16), Body: []byte(r.body)}
		hr.Header.Set("Authorization", sr.Authorization(extauth.TokenKey(tok)))
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

const interactCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"1+1"}}}`

func TestSecurity(t *testing.T) {
	e := newEnv(t)
	auth := "Bearer " + token
	extOrigin := "chrome-extension://" + server.DefaultExtensionID
	tests := []struct {
		name     string
		r        req
		want     int
		wantCode string
	}{
		{"wrong host", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Host": "evil.example:" + strconv.Itoa(e.port)}, interactCall}, 403, "forbidden_host"},
		{"rebinding host on our port", req{"GET", "/health", map[string]string{"Host": "attacker.test:" + strconv.Itoa(e.port)}, ""}, 403, "forbidden_host"},
		{"right host wrong port", req{"GET", "/health", map[string]string{"Host": "127.0.0.1:1"}, ""}, 403, "forbidden_host"},
		{"web origin", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, interactCall}, 403, "forbidden_origin"},
		{"localhost page origin", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "http://localhost:3000"}, interactCall}, 403, "forbidden_origin"},
		{"null origin", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "null"}, interactCall}, 403, "forbidden_origin"},
		{"other extension", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, interactCall}, 403, "forbidden_origin"},
		{"cross-site fetch", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Sec-Fetch-Site": "cross-site"}, interactCall}, 403, "forbidden_origin"},
		{"same-site fetch", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Sec-Fetch-Site": "same-site"}, interactCall}, 403, "forbidden_origin"},
		{"web origin on health", req{"GET", "/health", map[string]string{"Origin": "http://localhost:3000"}, ""}, 403, "forbidden_origin"},
		{"missing token", req{"POST", "/mcp", nil, interactCall}, 401, "unauthorized"},
		{"wrong token", req{"POST", "/mcp", map[string]string{"Authorization": "Bearer nope"}, interactCall}, 401, "unauthorized"},
		{"basic auth", req{"POST", "/mcp", map[string]string{"Authorization": "Basic " + token}, interactCall}, 401, "unauthorized"},
		{"poll without token", req{"GET", "/pending-queries", nil, ""}, 401, "unauthorized"},
		{"result without token", req{"POST", "/query-result", nil, `{"correlation_id":"exec_x","status":"complete"}`}, 401, "unauthorized"},
		{"commands without token", req{"GET", "/commands", nil, ""}, 401, "unauthorized"},
		{"shutdown without token", req{"POST", "/shutdown", nil, ""}, 401, "unauthorized"},
		{"pair code without token", req{"POST", "/pair/code", nil, ""}, 401, "unauthorized"},
		{"pair from a page", req{"POST", "/pair", map[string]string{"Origin": "http://localhost:3000"}, `{"code":"AAAA-BBBB"}`}, 403, "forbidden_origin"},
		{"pair without origin", req{"POST", "/pair", nil, `{"code":"AAAA-BBBB"}`}, 403, "forbidden_origin"},
		{"pair wrong code", req{"POST", "/pair", map[string]string{"Origin": extOrigin}, wrongProof()}, 401, "invalid_code"},
		{"pair with the code in the clear", req{"POST", "/pair", map[string]string{"Origin": extOrigin}, `{"code":"AAAA-BBBB"}`}, 400, "outdated_extension"},
		{"unpair without token", req{"POST", "/unpair", nil, `{}`}, 401, "unauthorized"},
		{"revoke without token", req{"POST", "/pair/revoke", nil, ""}, 401, "unauthorized"},
		{"health, no token", req{"GET", "/health", nil, ""}, 200, ""},
		{"health from the extension", req{"GET", "/health", map[string]string{"Origin": extOrigin}, ""}, 200, ""},
		{"health from the extension in Firefox", req{"GET", "/health", map[string]string{"Origin": "moz-extension://" + firefoxUUID}, ""}, 200, ""},
		{"pair from the extension in Firefox", req{"POST", "/pair", map[string]string{"Origin": "moz-extension://" + firefoxUUID}, wrongProof()}, 401, "invalid_code"},
		{"other Firefox extension", req{"POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "moz-extension://0a0b3c2e-4f1d-4e8a-9b7c-3d2e1f0a9b8c"}, interactCall}, 403, "forbidden_origin"},
		{"pair from another Firefox extension", req{"POST", "/pair", map[string]string{"Origin": "moz-extension://0a0b3c2e-4f1d-4e8a-9b7c-3d2e1f0a9b8c"}, wrongProof()}, 403, "forbidden_origin"},
		{"ipv6 and localhost hosts", req{"GET", "/health", map[string]string{"Host": "localhost:" + strconv.Itoa(e.port)}, ""}, 200, ""},
		{"unknown route", req{"GET", "/nope", nil, ""}, 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body := e.do(t, tt.r)
			if got != tt.want {
				t.Fatalf("got status %d (%s), want %d", got, body, tt.want)
			}
			if tt.wantCode != "" {
				var eb apitype.ErrorBody
				if err := json.Unmarshal(body, &eb); err != nil {
					// /mcp refuses an MCP client with a JSON-RPC error whose
					// data carries the code and hint.
					var rpc struct {
						Error struct {
							Message string              `json:"message"`
							Data    apitype.ErrorDetail `json:"data"`
						} `json:"error"`
					}
					if json.Unmarshal(body, &rpc) != nil || !strings.HasPrefix(tt.r.path, "/mcp") {
						t.Fatalf("error body %s is not JSON: %v", body, err)
					}
					eb.Error = rpc.Error.Data
					eb.Error.Message = rpc.Error.Message
				}
				if eb.Error.Code != tt.wantCode {
					t.Errorf("got code %q, want %q", eb.Error.Code, tt.wantCode)
				}
				if eb.Error.Message == "" || (tt.want != 404 && eb.Error.Hint == "") {
					t.Errorf("got error %+v, want a message and a hint", eb.Error)
				}
			}
			if got := e.tracker.Stats(); got != (tracker.Stats{}) {
				t.Errorf("a refused request changed the tracker: got %+v, want none", got)
			}
		})
	}
	t.Run("never allow-origin *", func(t *testing.T) {
		resp, err := http.Get(e.url + "/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("got Access-Control-Allow-Origin %q, want none", got)
		}
	})
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 11<<20) + `"}}`
	got, body := e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": "Bearer " + token, apitype.HeaderClient: "t"}, big})
	if got != http.StatusRequestEntityTooLarge {
		t.Fatalf("got %d (%.200s), want 413", got, body)
	}
	// The daemon is unharmed.
	got, body = e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": "Bearer " + token, apitype.HeaderClient: "t"}, `{"jsonrpc":"2.0","id":2,"method":"ping"}`})
	if got != 200 || !bytes.Contains(body, []byte(`"result":{}`)) {
		t.Fatalf("after 413: got %d %s, want a ping answer", got, body)
	}
}

func TestPairing(t *testing.T) {
	e := newEnv(t)
	tok := e.pairExtension(t)
	if len(tok) != 64 {
		t.Fatalf("got token %q, want 64 hex chars", tok)
	}
	ext := e.signer(tok, "i1")
	if got, body := ext.do(t, "GET", "/pending-queries", ""); got != 200 {
		t.Errorf("signed poll: got %d %s, want 200", got, body)
	}
	if got, _ := e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": "Bearer " + tok}, interactCall}); got != 403 {
		t.Errorf("extension token on /mcp: got %d, want 403", got)
	}
	// Rate limit: repeated wrong codes end in 429.
	extOrigin := map[string]string{"Origin": "chrome-extension://" + server.DefaultExtensionID}
	var last int
	for range 8 {
		last, _ = e.do(t, req{"POST", "/pair", extOrigin, wrongProof()})
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("after repeated wrong codes: got %d, want 429", last)
	}
}

func TestQueryResultErrors(t *testing.T) {
	e := newEnv(t)
	auth := map[string]string{"Authorization": "Bearer " + token}
	c, err := e.tracker.Submit(tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
		want int
	}{
		{"not json", `{`, 400},
		{"no id", `{"status":"complete"}`, 400},
		{"bad status", `{"correlation_id":"` + c.ID + `","status":"done"}`, 400},
		{"unknown id", `{"correlation_id":"exec_nope","status":"complete"}`, 404},
		{"not delivered yet", `{"correlation_id":"` + c.ID + `","status":"complete"}`, 409},
		{"unknown reason", `{"correlation_id":"` + c.ID + `","status":"error","reason":"because"}`, 400},
		{"navigated with complete", `{"correlation_id":"` + c.ID + `","status":"complete","reason":"navigated"}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, body := e.do(t, req{"POST", "/query-result", auth, tt.body}); got != tt.want {
				t.Errorf("got %d %s, want %d", got, body, tt.want)
			}
		})
	}
	if got, _ := e.tracker.Get(c.ID); got.State != tracker.StateQueued {
		t.Errorf("got state %s, want the command untouched (queued)", got.State)
	}
}
