package server_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// wrongProof is a /pair body proving a code the daemon never issued.
func wrongProof() string {
	n := randomHex(32)
	return `{"nonce":"` + n + `","proof":"` + extauth.ExtensionProof(extauth.PairKey("ZZZZ-9999", n), n) + `"}`
}

// pairExtension pairs as the extension does (extension/auth.js): a proof of
// a fresh code, and the daemon's answer checked with the code's key. It
// returns the token.
func (e *env) pairExtension(t testing.TB) string {
	t.Helper()
	got, body := e.do(t, req{"POST", "/pair/code", map[string]string{"Authorization": "Bearer " + token}, ""})
	if got != 200 {
		t.Fatalf("pair/code: got %d %s", got, body)
	}
	var pc struct{ Code string }
	json.Unmarshal(body, &pc)
	n := randomHex(32)
	k := extauth.PairKey(pc.Code, n)
	pairBody := `{"nonce":"` + n + `","proof":"` + extauth.ExtensionProof(k, n) + `","instance":"i1"}`
	got, body = e.do(t, req{"POST", "/pair", map[string]string{"Origin": "chrome-extension://" + server.DefaultExtensionID}, pairBody})
	if got != 200 {
		t.Fatalf("pair: got %d %s, want 200", got, body)
	}
	var pr struct{ Token, ExtensionID, Proof string }
	if err := json.Unmarshal(body, &pr); err != nil {
		t.Fatal(err)
	}
	var ans struct {
		ExtensionID string `json:"extension_id"`
	}
	json.Unmarshal(body, &ans)
	if strings.Contains(pairBody, pc.Code) {
		t.Fatalf("the pairing request carries the code itself")
	}
	if pr.Proof != extauth.DaemonProof(k, n, pr.Token, ans.ExtensionID) || ans.ExtensionID != server.DefaultExtensionID {
		t.Fatalf("the daemon's answer %s does not prove the code", body)
	}
	return pr.Token
}

// signer sends requests signed as the extension signs them.
type signer struct {
	e        *env
	key      []byte
	instance string
}

func (e *env) signer(tok, instance string) *signer {
	return &signer{e: e, key: extauth.TokenKey(tok), instance: instance}
}

// sent is one signed request with its answer.
type sent struct {
	status int
	body   []byte
	header http.Header
	auth   string // the Authorization header it carried
	nonce  string
}

// send signs r (its fields filled in from the request when empty) and sends
// it with the Authorization header auth(r) returns.
func (s *signer) send(t testing.TB, method, path, body string, edit func(*extauth.Request), header func(string) string) sent {
	t.Helper()
	r := extauth.Request{Method: method, Host: "127.0.0.1:" + strconv.Itoa(s.e.port), URI: path, Instance: s.instance,
		TS: time.Now().UnixMilli(), Nonce: randomHex(16), Body: []byte(body)}
	if edit != nil {
		edit(&r)
	}
	auth := r.Authorization(s.key)
	if header != nil {
		auth = header(auth)
	}
	hr, err := http.NewRequest(method, s.e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Authorization", auth)
	hr.Header.Set(apitype.HeaderExtensionInstance, s.instance)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return sent{status: resp.StatusCode, body: b, header: resp.Header, auth: auth, nonce: r.Nonce}
}

// do sends a signed request and checks that a 2xx answer is signed for it.
func (s *signer) do(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	x := s.send(t, method, path, body, nil, nil)
	if x.status/100 == 2 {
		sig := x.header.Get(extauth.SignatureHeader)
		if !extauth.Verify(s.key, extauth.ResponseMessage(x.nonce, x.status, x.body), sig) {
			t.Errorf("%s %s: answer %d %s has signature %q, not the daemon's for this request", method, path, x.status, x.body, sig)
		}
	}
	return x.status, x.body
}

func errCode(t *testing.T, body []byte) string {
	t.Helper()
	var eb apitype.ErrorBody
	if err := json.Unmarshal(body, &eb); err != nil {
		t.Fatalf("error body %s is not JSON: %v", body, err)
	}
	if eb.Error.Message == "" || eb.Error.Hint == "" {
		t.Errorf("error %+v: want a message and a hint", eb.Error)
	}
	return eb.Error.Code
}

// TestSignedRequests: the extension's requests are accepted only when
// signed by a paired token's key, for this daemon, now, once; its token as
// a bearer token is refused; the state-dir token keeps working for curl.
func TestSignedRequests(t *testing.T) {
	e := newEnv(t)
	tok := e.pairExtension(t)
	ext := e.signer(tok, "i1")

	if got, body := ext.do(t, "GET", "/pending-queries?wait_ms=0", ""); got != 200 {
		t.Fatalf("signed poll: got %d %s, want 200", got, body)
	}

	fresh := func(t *testing.T) sent { return ext.send(t, "GET", "/pending-queries?wait_ms=0", "", nil, nil) }
	replayed := fresh(t)
	tests := []struct {
		name     string
		send     func(t *testing.T) sent
		wantCode string
	}{
		{"bearer extension token", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", nil, func(string) string { return "Bearer " + tok })
		}, "signature_required"},
		{"replayed request", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries?wait_ms=0", "", func(r *extauth.Request) { r.TS, r.Nonce = 0, replayed.nonce },
				func(string) string { return replayed.auth })
		}, "replayed"},
		{"signed two minutes ago", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", func(r *extauth.Request) { r.TS -= 2 * time.Minute.Milliseconds() }, nil)
		}, "stale_request"},
		{"signed for the future", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", func(r *extauth.Request) { r.TS += 2 * time.Minute.Milliseconds() }, nil)
		}, "stale_request"},
		{"signed for another port", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", func(r *extauth.Request) { r.Host = "127.0.0.1:1" }, nil)
		}, "unauthorized"},
		{"signed for another path", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", func(r *extauth.Request) { r.URI = "/pending-queries?wait_ms=1" }, nil)
		}, "unauthorized"},
		{"signed for another instance", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", func(r *extauth.Request) { r.Instance = "i2" }, nil)
		}, "unauthorized"},
		{"body changed after signing", func(t *testing.T) sent {
			return ext.send(t, "POST", "/query-result", `{"correlation_id":"exec_x","status":"complete"}`,
				func(r *extauth.Request) { r.Body = []byte(`{"correlation_id":"exec_y","status":"complete"}`) }, nil)
		}, "unauthorized"},
		{"signed with another token", func(t *testing.T) sent {
			return e.signer(strings.Repeat("0", 64), "i1").send(t, "GET", "/pending-queries", "", nil, nil)
		}, "unauthorized"},
		{"signed with the state-dir token", func(t *testing.T) sent {
			return e.signer(token, "i1").send(t, "GET", "/pending-queries", "", nil, nil)
		}, "unauthorized"},
		{"malformed header", func(t *testing.T) sent {
			return ext.send(t, "GET", "/pending-queries", "", nil, func(a string) string { return strings.Replace(a, ", sig=", ",sig=", 1) })
		}, "bad_signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.send(t)
			if x.status != http.StatusUnauthorized {
				t.Fatalf("got %d %s, want 401", x.status, x.body)
			}
			if got := errCode(t, x.body); got != tt.wantCode {
				t.Errorf("got code %q, want %q", got, tt.wantCode)
			}
			if x.header.Get(extauth.SignatureHeader) != "" {
				t.Errorf("a refusal carries a signature")
			}
		})
	}
	if got := e.tracker.Stats(); got != (tracker.Stats{}) {
		t.Errorf("refused requests changed the tracker: %+v", got)
	}

	// The state-dir token stays a bearer token for tools and curl; their
	// answers are not signed.
	got, body := e.do(t, req{"GET", "/pending-queries?wait_ms=0", map[string]string{"Authorization": "Bearer " + token}, ""})
	if got != 200 {
		t.Errorf("state-dir token on /pending-queries: got %d %s, want 200", got, body)
	}
}

// TestSignedBatch: a command delivered to a signed poll arrives in an
// answer signed for that poll only, and the signed result completes it.
func TestSignedBatch(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	c, err := e.tracker.Submit(tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js", Params: json.RawMessage(`{"script":"1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	x := ext.send(t, "GET", "/pending-queries?wait_ms=5000", "", nil, nil)
	if x.status != 200 || !strings.Contains(string(x.body), c.ID) {
		t.Fatalf("poll: got %d %s, want the command", x.status, x.body)
	}
	sig := x.header.Get(extauth.SignatureHeader)
	if !extauth.Verify(ext.key, extauth.ResponseMessage(x.nonce, 200, x.body), sig) {
		t.Fatalf("the batch is not signed for its poll")
	}
	if extauth.Verify(ext.key, extauth.ResponseMessage(randomHex(16), 200, x.body), sig) {
		t.Errorf("the batch's signature also checks for another poll: it could be replayed")
	}
	got, body := ext.do(t, "POST", "/query-result", `{"correlation_id":"`+c.ID+`","status":"complete","result":{"value":1}}`)
	if got != 200 {
		t.Fatalf("signed result: got %d %s", got, body)
	}
	if cmd, _ := e.tracker.Get(c.ID); cmd.State != tracker.StateComplete {
		t.Errorf("command state %s, want complete", cmd.State)
	}
}

// TestUnpairRevokes: POST /unpair revokes the token that signs it; after
// that its signatures are refused. 'gasoline unpair' (POST /pair/revoke)
// revokes every token.
func TestUnpairRevokes(t *testing.T) {
	e := newEnv(t)
	first := e.signer(e.pairExtension(t), "i1")
	second := e.signer(e.pairExtension(t), "i2")

	got, body := first.do(t, "POST", "/unpair", `{}`)
	if got != 200 || !strings.Contains(string(body), `"revoked":true`) {
		t.Fatalf("unpair: got %d %s, want revoked", got, body)
	}
	if got, body := first.do(t, "GET", "/pending-queries?wait_ms=0", ""); got != 401 || errCode(t, body) != "unauthorized" {
		t.Errorf("poll with the revoked token: got %d %s, want 401 unauthorized", got, body)
	}
	if got, body := second.do(t, "GET", "/pending-queries?wait_ms=0", ""); got != 200 {
		t.Errorf("the other pairing after one unpair: got %d %s, want 200", got, body)
	}
	admin := map[string]string{"Authorization": "Bearer " + token}
	if got, body := e.do(t, req{"POST", "/unpair", admin, `{}`}); got != 400 || errCode(t, body) != "not_an_extension" {
		t.Errorf("unpair with the state-dir token: got %d %s, want 400 not_an_extension", got, body)
	}
	got, body = e.do(t, req{"POST", "/pair/revoke", admin, ""})
	if got != 200 || string(body) != "{\"revoked\":1}\n" {
		t.Fatalf("pair/revoke: got %d %q, want {\"revoked\":1}", got, body)
	}
	if got, _ := second.do(t, "GET", "/pending-queries?wait_ms=0", ""); got != 401 {
		t.Errorf("poll after pair/revoke: got %d, want 401", got)
	}
	if e.pairing.Paired() {
		t.Errorf("after pair/revoke the daemon still has a pairing")
	}
}
