package pairing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestRedeem(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	dir := t.TempDir()
	p, err := New(dir, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	code, exp, err := p.NewCode()
	if err != nil {
		t.Fatal(err)
	}
	if got := exp.Sub(clk.t); got != CodeTTL {
		t.Errorf("got validity %s, want %s", got, CodeTTL)
	}
	tok, err := p.Redeem(strings.ToLower(strings.ReplaceAll(code, "-", "")), "i1")
	if err != nil {
		t.Fatalf("redeeming %s loosely typed: %v", code, err)
	}
	if !p.Valid(tok) || p.Valid(tok+"x") || p.Valid("") {
		t.Errorf("Valid: want true only for the issued token")
	}
	if _, err := p.Redeem(code, "i2"); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("second use: got %v, want ErrInvalidCode", err)
	}
	// Tokens survive a restart, stored only as hashes.
	b, err := os.ReadFile(filepath.Join(dir, tokenFileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), tok) {
		t.Errorf("token file holds the token itself")
	}
	if fi, _ := os.Stat(filepath.Join(dir, tokenFileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %o, want 600", fi.Mode().Perm())
	}
	p2, err := New(dir, clk.now)
	if err != nil || !p2.Valid(tok) {
		t.Errorf("after restart: Valid = false (%v), want true", err)
	}
}

func TestCodeExpires(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	p, _ := New("", clk.now)
	code, _, _ := p.NewCode()
	clk.t = clk.t.Add(CodeTTL)
	if _, err := p.Redeem(code, ""); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("expired code: got %v, want ErrInvalidCode", err)
	}
}

func TestRateLimit(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	p, _ := New("", clk.now)
	code, _, _ := p.NewCode()
	for i := range maxFailures {
		if _, err := p.Redeem("ZZZZ-ZZZZ", ""); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("failure %d: got %v", i, err)
		}
	}
	if _, err := p.Redeem(code, ""); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("after %d failures even a good code: got %v, want ErrRateLimited", maxFailures, err)
	}
	clk.t = clk.t.Add(failureWindow)
	if _, err := p.Redeem(code, ""); err != nil {
		t.Fatalf("after the window: got %v, want success", err)
	}
}

func TestOutstandingCodesAreBounded(t *testing.T) {
	p, _ := New("", nil)
	first, _, _ := p.NewCode()
	for range maxCodes {
		p.NewCode()
	}
	if _, err := p.Redeem(first, ""); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("oldest code beyond the bound: got %v, want ErrInvalidCode", err)
	}
}
