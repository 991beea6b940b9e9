package pairing

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/extauth"
)

const extID = "ipimnlogmeffgddjpdmodnligphcpfag"

func nonce(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// prove is the extension's half of pairing: a proof of code for a fresh
// nonce, and the key that checks the daemon's answer.
func prove(t *testing.T, code string) (n, proof string, k []byte) {
	t.Helper()
	n = nonce(t)
	k = extauth.PairKey(code, n)
	return n, extauth.ExtensionProof(k, n), k
}

func TestRedeemProof(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	dir := t.TempDir()
	p, err := New(dir, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	p.NewCode() // another outstanding code must not get in the way
	code, _, err := p.NewCode()
	if err != nil {
		t.Fatal(err)
	}
	n, proof, k := prove(t, code)
	tok, answer, err := p.RedeemProof(n, proof, "i1", extID)
	if err != nil {
		t.Fatalf("RedeemProof: %v", err)
	}
	if answer != extauth.DaemonProof(k, n, tok, extID) {
		t.Errorf("the answer's proof does not check with the code's key")
	}
	keys := p.Keys()
	if len(keys) != 1 || string(keys[0].Secret) != string(extauth.TokenKey(tok)) || keys[0].ID == "" {
		t.Fatalf("Keys() = %+v, want the issued token's key", keys)
	}
	if strings.Contains(keys[0].ID, hex.EncodeToString(keys[0].Secret)[:16]) {
		t.Errorf("key id %s shows part of the key", keys[0].ID)
	}

	// The code is one-time, whoever proves it.
	n2, proof2, _ := prove(t, code)
	if _, _, err := p.RedeemProof(n2, proof2, "i2", extID); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("second use of the code: got %v, want ErrInvalidCode", err)
	}
	// A proof replayed with its own nonce is the same used code.
	if _, _, err := p.RedeemProof(n, proof, "i3", extID); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("replayed proof: got %v, want ErrInvalidCode", err)
	}

	// Keys survive a restart.
	p2, err := New(dir, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if got := p2.Keys(); len(got) != 1 || got[0].ID != keys[0].ID {
		t.Errorf("after restart: Keys() = %+v, want %s", got, keys[0].ID)
	}
}

func TestRedeemProofRefusals(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	p, _ := New("", clk.now)
	code, _, _ := p.NewCode()
	n, proof, _ := prove(t, code)
	_, wrongProof, _ := prove(t, "ZZZZ-2222")
	for _, tc := range []struct {
		name         string
		nonce, proof string
		want         error
	}{
		{"proof of another code", n, extauth.ExtensionProof(extauth.PairKey("ZZZZ-2222", n), n), ErrInvalidCode},
		{"proof for another nonce", n, wrongProof, ErrInvalidCode},
		{"short nonce", n[:32], proof, ErrBadRequest},
		{"upper-case nonce", strings.ToUpper(n), proof, ErrBadRequest},
		{"proof not hex", n, "zz" + proof[2:], ErrBadRequest},
		{"code sent as the proof", n, code, ErrBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := p.RedeemProof(tc.nonce, tc.proof, "", extID); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	// Refused proofs count as failed attempts, as wrong codes do.
	p.mu.Lock()
	failures := len(p.failures)
	p.mu.Unlock()
	if failures != 2 {
		t.Errorf("got %d failed attempts recorded, want 2 (malformed requests are not attempts)", failures)
	}
	// The code still works.
	if _, _, err := p.RedeemProof(n, proof, "", extID); err != nil {
		t.Errorf("the real proof after refusals: %v", err)
	}

	clk.t = clk.t.Add(CodeTTL)
	code2, _, _ := p.NewCode()
	clk.t = clk.t.Add(CodeTTL)
	n3, proof3, _ := prove(t, code2)
	if _, _, err := p.RedeemProof(n3, proof3, "", extID); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("proof of an expired code: got %v, want ErrInvalidCode", err)
	}
}

// TestRedeemProofConcurrently: two extensions proving the same code at once
// get one token between them.
func TestRedeemProofConcurrently(t *testing.T) {
	p, _ := New("", nil)
	code, _, _ := p.NewCode()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 4 {
		n, proof, _ := prove(t, code)
		wg.Go(func() {
			if _, _, err := p.RedeemProof(n, proof, "", extID); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d redeems of one code succeeded, want 1", won)
	}
}

func TestRevoke(t *testing.T) {
	dir := t.TempDir()
	p, _ := New(dir, nil)
	var toks []string
	for range 3 {
		code, _, _ := p.NewCode()
		tok, err := p.Redeem(code, "")
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	id := func(tok string) string { return keyID(extauth.TokenKey(tok)) }
	if ok, err := p.Revoke(id(toks[1])); !ok || err != nil {
		t.Fatalf("Revoke: %v, %v; want true", ok, err)
	}
	if ok, _ := p.Revoke(id(toks[1])); ok {
		t.Errorf("second Revoke of the same token: true, want false")
	}
	if p.Valid(toks[1]) || !p.Valid(toks[0]) || !p.Valid(toks[2]) {
		t.Errorf("after Revoke: want only the revoked token invalid")
	}
	p2, _ := New(dir, nil)
	if p2.Valid(toks[1]) || len(p2.Keys()) != 2 {
		t.Errorf("after restart the revoked token is back (keys %d)", len(p2.Keys()))
	}
	if n, err := p2.RevokeAll(); n != 2 || err != nil {
		t.Errorf("RevokeAll: %d, %v; want 2", n, err)
	}
	if p3, _ := New(dir, nil); p3.Paired() {
		t.Errorf("after RevokeAll and a restart some token is still paired")
	}
}
