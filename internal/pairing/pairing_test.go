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

// TestGuessesDoNotLockOutTheRightCode is finding 3 of issue 7: wrong codes
// from anyone are throttled, and the right code keeps working meanwhile.
func TestGuessesDoNotLockOutTheRightCode(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	p, _ := New("", clk.now)
	code, _, _ := p.NewCode()
	for i := range maxFailures {
		if _, err := p.Redeem("ZZZZ-ZZZZ", ""); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("failure %d: got %v, want ErrInvalidCode", i, err)
		}
	}
	for range 50 {
		if _, err := p.Redeem("ZZZZ-ZZZZ", ""); !errors.Is(err, ErrRateLimited) {
			t.Fatalf("after %d failures a wrong code: got %v, want ErrRateLimited", maxFailures, err)
		}
	}
	if n := p.RecentFailures(); n != maxFailures+50 {
		t.Errorf("RecentFailures: got %d, want %d", n, maxFailures+50)
	}
	if tok, err := p.Redeem(code, ""); err != nil || !p.Valid(tok) {
		t.Fatalf("the right code while guesses are throttled: got %q, %v; want a valid token", tok, err)
	}
	clk.t = clk.t.Add(failureWindow)
	if _, err := p.Redeem("ZZZZ-ZZZZ", ""); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("a minute later: got %v, want ErrInvalidCode again", err)
	}
}

// TestGuessingWithdrawsCodes bounds a fast guesser: after maxGuesses wrong
// codes, the outstanding codes stop working and say why; a new code works.
func TestGuessingWithdrawsCodes(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	p, _ := New("", clk.now)
	code, _, _ := p.NewCode()
	for range maxGuesses - 1 {
		p.Redeem("ZZZZ-ZZZZ", "")
	}
	other, _, _ := p.NewCode()
	if _, err := p.Redeem(other, ""); err != nil {
		t.Fatalf("a right code %d wrong ones in: got %v", maxGuesses-1, err)
	}
	p.Redeem("ZZZZ-ZZZZ", "")
	if _, err := p.Redeem(code, ""); !errors.Is(err, ErrWithdrawn) || !strings.Contains(err.Error(), "gasoline pair") {
		t.Fatalf("after %d wrong codes: got %v, want ErrWithdrawn saying what to do", maxGuesses, err)
	}
	fresh, _, _ := p.NewCode()
	if _, err := p.Redeem(fresh, ""); err != nil {
		t.Errorf("a new code after the withdrawal: got %v, want success", err)
	}
}

// TestGuessesWithoutCodesDoNotCount: wrong codes while none is outstanding
// cannot guess anything and do not withdraw the next one.
func TestGuessesWithoutCodesDoNotCount(t *testing.T) {
	p, _ := New("", nil)
	for range maxGuesses + 10 {
		p.Redeem("ZZZZ-ZZZZ", "")
	}
	code, _, _ := p.NewCode()
	if _, err := p.Redeem(code, ""); err != nil {
		t.Errorf("got %v, want success", err)
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

// TestThrottleSlides: wrong codes are throttled by how many came within the
// last minute, however long the guessing has gone on.
func TestThrottleSlides(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	p, _ := New("", clk.now)
	for range 200 {
		p.Redeem("ZZZZ-ZZZZ", "")
		clk.t = clk.t.Add(time.Second)
	}
	// 200 wrong codes, one a second: the last minute holds 60 of them.
	if _, err := p.Redeem("ZZZZ-ZZZZ", ""); !errors.Is(err, ErrRateLimited) {
		t.Errorf("a steady guesser: got %v, want ErrRateLimited", err)
	}
	clk.t = clk.t.Add(failureWindow)
	if _, err := p.Redeem("ZZZZ-ZZZZ", ""); !errors.Is(err, ErrInvalidCode) {
		t.Errorf("a minute after it stopped: got %v, want ErrInvalidCode", err)
	}
	if n := p.RecentFailures(); n != 1 {
		t.Errorf("RecentFailures: got %d, want 1", n)
	}
}
