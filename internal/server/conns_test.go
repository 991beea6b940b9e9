package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/harness"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// limited is the real handler served by NewHTTPServer on a Limit listener.
type limited struct {
	port    int
	ln      *server.Listener
	pairing *pairing.Pairing
	log     *harness.SyncBuffer
	started time.Time
}

func serveLimited(t *testing.T, limits server.Limits) *limited {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &limited{port: raw.Addr().(*net.TCPAddr).Port, ln: server.Limit(raw, limits), log: &harness.SyncBuffer{}, started: time.Now().Add(-time.Minute)}
	log := zerolog.New(zerolog.MultiLevelWriter(l.log, zerolog.NewTestWriter(t)))
	trk := tracker.New(tracker.Options{})
	l.pairing, _ = pairing.New(t.TempDir(), nil)
	srv := server.New(server.Config{
		Port: l.port, Token: token, Tracker: trk, Pairing: l.pairing, Log: log, Started: l.started,
		MCP:       mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "test"}, "", log),
		Health:    func() apitype.Health { return apitype.Health{Service: apitype.ServiceName} },
		Listeners: map[string]*server.Listener{"tcp": l.ln},
	})
	hs := server.NewHTTPServer(srv.Handler())
	go hs.Serve(l.ln)
	t.Cleanup(func() { hs.Close(); trk.Close() })
	return l
}

// rawGet writes one GET on c and reads its response.
func rawGet(t *testing.T, c net.Conn, br *bufio.Reader, port int, path, auth string) *http.Response {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(port) + "\r\n"
	if auth != "" {
		req += "Authorization: Bearer " + auth + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer to %s: %v", path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// closedByPeer reports whether the server closed c: a read returns EOF (or
// a reset) within a generous delay.
func closedByPeer(c net.Conn, br *bufio.Reader, within time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(within))
	_, err := br.ReadByte()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return err != nil
}

func dial(t *testing.T, port int) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestRefusalClosesTheConnection: a client refused with 401, 403, 413 or 429
// gets no kept-alive connection to try again on (finding 2 of issue 7).
func TestRefusalClosesTheConnection(t *testing.T) {
	l := serveLimited(t, server.Limits{MaxUnauthenticated: 64, MaxTotal: 64})
	c, br := dial(t, l.port)
	if resp := rawGet(t, c, br, l.port, "/health", ""); resp.StatusCode != 200 || resp.Close {
		t.Fatalf("health: got %d close=%v, want 200 kept alive", resp.StatusCode, resp.Close)
	}
	resp := rawGet(t, c, br, l.port, "/commands", "wrong")
	if resp.StatusCode != 401 || !resp.Close {
		t.Fatalf("wrong token: got %d close=%v, want 401 with Connection: close", resp.StatusCode, resp.Close)
	}
	if !closedByPeer(c, br, 10*time.Second) {
		t.Error("the connection stayed open after 401")
	}
}

// TestFloodEvictsOldestUnauthenticated: idle connections that never showed
// a token are closed oldest first to make room, authenticated ones are
// kept, and beyond the total a newcomer is refused at once.
func TestFloodEvictsOldestUnauthenticated(t *testing.T) {
	l := serveLimited(t, server.Limits{MaxUnauthenticated: 4, MaxTotal: 6})
	authed, abr := dial(t, l.port)
	if resp := rawGet(t, authed, abr, l.port, "/commands", token); resp.StatusCode != 200 {
		t.Fatalf("authenticated request: got %d", resp.StatusCode)
	}
	type idle struct {
		c  net.Conn
		br *bufio.Reader
	}
	var flood []idle
	for range 12 {
		c, br := dial(t, l.port)
		flood = append(flood, idle{c, br})
	}
	// The last 4 survive (they wait for their request); the 8 before them
	// were evicted, oldest first.
	for i, f := range flood[:8] {
		if !closedByPeer(f.c, f.br, 10*time.Second) {
			t.Errorf("flood connection %d was not evicted", i)
		}
	}
	if resp := rawGet(t, flood[11].c, flood[11].br, l.port, "/health", ""); resp.StatusCode != 200 {
		t.Errorf("the newest connection: got %d, want it served", resp.StatusCode)
	}
	if resp := rawGet(t, authed, abr, l.port, "/commands", token); resp.StatusCode != 200 {
		t.Errorf("the authenticated connection after the flood: got %d, want it kept", resp.StatusCode)
	}
	st := l.ln.Stats()
	if st.Unauthenticated > 4 || st.Open > 6 || st.Evicted < 8 {
		t.Errorf("stats %+v, want at most 4 unauthenticated, 6 open, 8 evicted", st)
	}
}

// TestTotalLimitRefuses: with every slot held by authenticated clients, a
// newcomer is closed at once rather than queued.
func TestTotalLimitRefuses(t *testing.T) {
	l := serveLimited(t, server.Limits{MaxUnauthenticated: 2, MaxTotal: 2})
	for range 2 {
		c, br := dial(t, l.port)
		if resp := rawGet(t, c, br, l.port, "/commands", token); resp.StatusCode != 200 {
			t.Fatalf("got %d", resp.StatusCode)
		}
	}
	c, br := dial(t, l.port)
	if !closedByPeer(c, br, 10*time.Second) {
		t.Error("a connection beyond the total was not refused")
	}
	if st := l.ln.Stats(); st.Refused != 1 || st.Open != 2 {
		t.Errorf("stats %+v, want 1 refused, 2 open", st)
	}
}

// TestIdleUnauthenticatedClosed: an unauthenticated keep-alive connection
// is closed once idle, an authenticated one is not.
func TestIdleUnauthenticatedClosed(t *testing.T) {
	l := serveLimited(t, server.Limits{MaxUnauthenticated: 8, MaxTotal: 8, UnauthenticatedIdle: 50 * time.Millisecond})
	anon, br := dial(t, l.port)
	rawGet(t, anon, br, l.port, "/health", "")
	if !closedByPeer(anon, br, 10*time.Second) {
		t.Error("an idle unauthenticated connection stayed open")
	}
	authed, abr := dial(t, l.port)
	rawGet(t, authed, abr, l.port, "/commands", token)
	if closedByPeer(authed, abr, 500*time.Millisecond) {
		t.Error("an idle authenticated connection was closed")
	}
}

// TestHello: the daemon proves it knows the token for its port and the
// client's nonce, and marks every answer with its start time.
func TestHello(t *testing.T) {
	l := serveLimited(t, server.Limits{MaxUnauthenticated: 8, MaxTotal: 8})
	nonce := strings.Repeat("ab", 16)
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/hello", l.port), nil)
	req.Header.Set(apitype.HeaderNonce, nonce)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var h apitype.Hello
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h.Service != apitype.ServiceName || h.Proof != apitype.HelloProof(token, l.port, nonce) {
		t.Errorf("got %d %+v, want the proof for this token, port and nonce", resp.StatusCode, h)
	}
	if got, _ := time.Parse(time.RFC3339Nano, resp.Header.Get(apitype.HeaderDaemonStarted)); !got.Equal(l.started) {
		t.Errorf("%s: got %q, want %v", apitype.HeaderDaemonStarted, resp.Header.Get(apitype.HeaderDaemonStarted), l.started)
	}
	for _, bad := range []string{"", "short", strings.Repeat("z", 40), strings.Repeat("a", 200)} {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/hello", l.port), nil)
		req.Header.Set(apitype.HeaderNonce, bad)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("nonce %q: got %d, want 400", bad, resp.StatusCode)
		}
	}
}

// TestWrongPairingCodesDoNotLockOut is finding 3 of issue 7 over HTTP:
// wrong codes are refused and logged, and the right one still pairs.
func TestWrongPairingCodesDoNotLockOut(t *testing.T) {
	l := serveLimited(t, server.Limits{MaxUnauthenticated: 64, MaxTotal: 64})
	code, _, _ := l.pairing.NewCode()
	// post sends a proof of code c as the extension does (extension/auth.js).
	post := func(c string) int {
		n := randomHex(32)
		body := `{"nonce":"` + n + `","proof":"` + extauth.ExtensionProof(extauth.PairKey(c, n), n) + `"}`
		req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/pair", l.port), strings.NewReader(body))
		req.Header.Set("Origin", "chrome-extension://"+server.DefaultExtensionID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	var last int
	for range 50 {
		last = post("ZZZZ-ZZZZ")
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("after 50 wrong codes: got %d, want 429", last)
	}
	if got := post(code); got != 200 {
		t.Errorf("the right code after 50 wrong ones: got %d, want 200", got)
	}
	if n := strings.Count(l.log.String(), "pairing attempt with a wrong code"); n < 5 || n > 10 {
		t.Errorf("logged %d wrong-code lines for 50 attempts, want the first 5 and few more", n)
	}
}
