//go:build unix

package main_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// pairAsExtension pairs as the extension does with the daemon of c and
// returns the token.
func pairAsExtension(t *testing.T, c *harness.Env) string {
	t.Helper()
	_, out := c.Gasoline("pair")
	m := regexp.MustCompile(`Pairing code: ([A-Z2-9]{4}-[A-Z2-9]{4})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("pair printed no code: %q", out)
	}
	b := make([]byte, 32)
	rand.Read(b)
	n := hex.EncodeToString(b)
	body := `{"nonce":"` + n + `","proof":"` + extauth.ExtensionProof(extauth.PairKey(m[1], n), n) + `"}`
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(c.Port)+"/pair", strings.NewReader(body))
	req.Header.Set("Origin", "chrome-extension://ipimnlogmeffgddjpdmodnligphcpfag")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var pr struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&pr)
	if resp.StatusCode != 200 || pr.Token == "" {
		t.Fatalf("pairing: HTTP %d, token %q", resp.StatusCode, pr.Token)
	}
	return pr.Token
}

// poll sends a signed GET /pending-queries with tok to the daemon of c and
// returns the status.
func poll(t *testing.T, c *harness.Env, tok string) int {
	t.Helper()
	b := make([]byte, 16)
	rand.Read(b)
	host := "127.0.0.1:" + strconv.Itoa(c.Port)
	r := extauth.Request{Method: "GET", Host: host, URI: "/pending-queries?wait_ms=0", TS: time.Now().UnixMilli(), Nonce: hex.EncodeToString(b)}
	req, _ := http.NewRequest("GET", "http://"+host+r.URI, nil)
	req.Header.Set("Authorization", r.Authorization(extauth.TokenKey(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestUnpair: 'gasoline unpair' revokes every extension token at the
// running daemon, and in the state dir when no daemon runs.
func TestUnpair(t *testing.T) {
	c := harness.NewEnv(t, bins)
	if code, out := c.Gasoline("daemon", "start"); code != 0 {
		t.Fatalf("start: %d %q", code, out)
	}
	first, second := pairAsExtension(t, c), pairAsExtension(t, c)
	if got := poll(t, c, first); got != 200 {
		t.Fatalf("signed poll before unpair: HTTP %d, want 200", got)
	}
	code, out := c.Gasoline("unpair")
	if code != 0 || !strings.Contains(out, "Revoked 2 extension pairing(s) at the daemon") {
		t.Fatalf("unpair: got %d %q", code, out)
	}
	for _, tok := range []string{first, second} {
		if got := poll(t, c, tok); got != 401 {
			t.Errorf("signed poll after unpair: HTTP %d, want 401", got)
		}
	}

	// With the daemon stopped, the tokens are revoked on disk.
	third := pairAsExtension(t, c)
	if code, out := c.Gasoline("daemon", "stop"); code != 0 {
		t.Fatalf("stop: %d %q", code, out)
	}
	code, out = c.Gasoline("unpair")
	if code != 0 || !strings.Contains(out, "Revoked 1 extension pairing(s) in ") || !strings.Contains(out, "no daemon is running") {
		t.Fatalf("unpair without a daemon: got %d %q", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(c.Dir, "extension_tokens.json")); err != nil || strings.TrimSpace(string(b)) != "null" {
		t.Errorf("token file after unpair: %q, %v; want no tokens", b, err)
	}
	if code, out := c.Gasoline("daemon", "start"); code != 0 {
		t.Fatalf("restart: %d %q", code, out)
	}
	if got := poll(t, c, third); got != 401 {
		t.Errorf("signed poll with a token revoked on disk: HTTP %d, want 401", got)
	}
}
