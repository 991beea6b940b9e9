package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// sendSealed sends plain sealed and signed as the extension does
// (extension/auth.js), after edit may change the wire body and headers.
func (s *signer) sendSealed(t testing.TB, method, path, plain string, edit func(r *extauth.Request, body []byte, h map[string]string) []byte) sent {
	t.Helper()
	r := extauth.Request{Method: method, Host: "127.0.0.1:" + strconv.Itoa(s.e.port), URI: path, Instance: s.instance,
		TS: time.Now().UnixMilli(), Nonce: randomHex(16)}
	body, h := r.SignSealed(s.key, []byte(plain))
	if edit != nil {
		body = edit(&r, body, h)
	}
	hr, err := http.NewRequest(method, s.e.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		hr.Header.Set(k, v)
	}
	hr.Header.Set(apitype.HeaderExtensionInstance, s.instance)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return sent{status: resp.StatusCode, body: b, header: resp.Header, nonce: r.Nonce}
}

// deliver queues a command and hands it to ext's poll.
func (e *env) deliver(t testing.TB, ext *signer) string {
	t.Helper()
	c, err := e.tracker.Submit(tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js", Params: json.RawMessage(`{"script":"1"}`),
		Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if x := ext.send(t, "GET", "/pending-queries?wait_ms=5000", "", nil, nil); x.status != 200 || !strings.Contains(string(x.body), c.ID) {
		t.Fatalf("poll: got %d %s, want the command", x.status, x.body)
	}
	return c.ID
}

// TestSealedBodies: a sealed, signed result is opened and applied; one that
// does not open for its request, or whose body is not the one signed, is
// refused and changes nothing.
func TestSealedBodies(t *testing.T) {
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	id := e.deliver(t, ext)
	result := `{"correlation_id":"` + id + `","status":"complete","result":{"value":"typed secret"}}`

	for _, tc := range []struct {
		name       string
		edit       func(r *extauth.Request, body []byte, h map[string]string) []byte
		wantStatus int
		wantCode   string
	}{
		{"sealed for another path", func(r *extauth.Request, body []byte, h map[string]string) []byte {
			r.URI = "/events"
			sealed := r.Seal(extauth.SealKey(ext.key), nil, []byte(result))
			r.URI, r.Body = "/query-result", sealed
			h["Authorization"], h[extauth.BodyHashHeader] = r.Authorization(ext.key), extauth.BodyHash(sealed)
			return sealed
		}, 400, "unsealable"},
		{"sealed with another token", func(r *extauth.Request, body []byte, h map[string]string) []byte {
			sealed := r.Seal(extauth.SealKey(extauth.TokenKey("other")), nil, []byte(result))
			r.Body = sealed
			h["Authorization"], h[extauth.BodyHashHeader] = r.Authorization(ext.key), extauth.BodyHash(sealed)
			return sealed
		}, 400, "unsealable"},
		{"body altered after signing", func(r *extauth.Request, body []byte, h map[string]string) []byte {
			body[len(body)-1] ^= 1
			return body
		}, 400, "body_hash_mismatch"},
		{"claimed hash not the signed one", func(r *extauth.Request, body []byte, h map[string]string) []byte {
			h[extauth.BodyHashHeader] = extauth.BodyHash([]byte("other"))
			return body
		}, 401, "unauthorized"},
		{"claimed hash malformed", func(r *extauth.Request, body []byte, h map[string]string) []byte {
			h[extauth.BodyHashHeader] = strings.ToUpper(h[extauth.BodyHashHeader])
			return body
		}, 401, "bad_signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := ext.sendSealed(t, "POST", "/query-result", result, tc.edit)
			if x.status != tc.wantStatus || errCode(t, x.body) != tc.wantCode {
				t.Errorf("got %d %s, want %d %s", x.status, x.body, tc.wantStatus, tc.wantCode)
			}
		})
	}
	if cmd, _ := e.tracker.Get(id); cmd.State == tracker.StateComplete {
		t.Fatalf("a refused result completed the command")
	}
	x := ext.sendSealed(t, "POST", "/query-result", result, nil)
	if x.status != 200 || !extauth.Verify(ext.key, extauth.ResponseMessage(x.nonce, 200, x.body), x.header.Get(extauth.SignatureHeader)) {
		t.Fatalf("sealed result: got %d %s, want a signed 200", x.status, x.body)
	}
	if cmd, _ := e.tracker.Get(id); cmd.State != tracker.StateComplete {
		t.Errorf("command state %s, want complete", cmd.State)
	}

	big := strings.Repeat("x", 16<<20+1)
	if x := ext.sendSealed(t, "POST", "/query-result", big, nil); x.status != 413 {
		t.Errorf("a sealed body over the route's 16 MB: got %d %.200s, want 413", x.status, x.body)
	}
}

// filler is a body of n bytes that allocates nothing.
type filler struct{ n int64 }

var fill = bytes.Repeat([]byte("a"), 64<<10)

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(int64(len(p)), f.n)], fill)
	f.n -= int64(k)
	return k, nil
}

// TestUnverifiedBodiesBounded is issue 16's attack: 200 requests at once,
// each a 16 MB body under a Gasoline-HMAC header with a wrong signature
// (half claiming the body's hash, half not). The daemon's heap stays under
// 100 MB, and the real extension and an MCP client are served meanwhile.
func TestUnverifiedBodiesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 3.2 GB of bodies")
	}
	e := newEnv(t)
	ext := e.signer(e.pairExtension(t), "i1")
	const n, size = 200, 16 << 20

	runtime.GC() // what earlier tests left is not the attack's
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, DisableKeepAlives: true}, Timeout: 2 * time.Minute}
	statuses := make(map[int]int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := extauth.Request{Method: "POST", Host: "127.0.0.1:" + strconv.Itoa(e.port), URI: "/query-result", Instance: "i1",
				TS: time.Now().UnixMilli(), Nonce: randomHex(16)}
			hr, _ := http.NewRequest("POST", e.url+"/query-result", &filler{size})
			hr.ContentLength = size
			hr.Header.Set("Authorization", r.Authorization(extauth.TokenKey("not the paired token")))
			if i%2 == 0 {
				hr.Header.Set(extauth.BodyHashHeader, strings.Repeat("0", 64))
			}
			status := 0
			if resp, err := client.Do(hr); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				status = resp.StatusCode
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}

	// Meanwhile the extension polls and posts sealed results, and an agent
	// calls MCP. (The result is for a command that does not exist: a 404
	// unknown_command shows the daemon verified, opened and read it, without
	// tying the test to how long a delivered command waits under load.)
	served, slowest := 0, time.Duration(0)
	for attacking := true; attacking || served < 3; served++ {
		start := time.Now()
		if x := ext.send(t, "GET", "/pending-queries?wait_ms=0", "", nil, nil); x.status != 200 {
			t.Errorf("the extension's poll during the attack: got %d %s, want 200", x.status, x.body)
		}
		if x := ext.sendSealed(t, "POST", "/query-result", `{"correlation_id":"exec_gone","status":"complete","result":1}`, nil); x.status != 404 || errCode(t, x.body) != "unknown_command" {
			t.Errorf("the extension's result during the attack: got %d %s, want 404 unknown_command", x.status, x.body)
		}
		got, body := e.do(t, req{"POST", "/mcp", map[string]string{"Authorization": "Bearer " + token, apitype.HeaderClient: "agent"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`})
		if got != 200 {
			t.Errorf("MCP during the attack: got %d %s, want 200", got, body)
		}
		slowest = max(slowest, time.Since(start))
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
			attacking = false
		case <-time.After(50 * time.Millisecond):
		}
	}
	wg.Wait()
	close(stop)
	<-sampled
	t.Logf("answers to the attack: %v; extension and MCP served %d times (slowest round %v); peak heap in use %.1f MB",
		statuses, served, slowest.Round(time.Millisecond), float64(peak.Load())/(1<<20))
	if statuses[200] != 0 {
		t.Errorf("%d wrongly signed requests were accepted", statuses[200])
	}
	if p := peak.Load(); p > 100<<20 {
		t.Errorf("peak heap in use %.1f MB during the attack, want under 100 MB", float64(p)/(1<<20))
	}
	// And afterwards a delivered command's sealed result completes it.
	id := e.deliver(t, ext)
	if x := ext.sendSealed(t, "POST", "/query-result", `{"correlation_id":"`+id+`","status":"complete","result":1}`, nil); x.status != 200 {
		t.Errorf("the extension's result after the attack: got %d %s, want 200", x.status, x.body)
	}
}
