// Package pairing issues one-time pairing codes and exchanges them for
// extension tokens, which it keeps only as SHA-256 hashes (the tokens'
// request-signing keys, see internal/extauth), persisted in the state
// directory so that a daemon restart does not unpair the browser.
package pairing

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Defaults.
const (
	CodeTTL       = 2 * time.Minute
	maxCodes      = 4  // outstanding codes; older ones are dropped
	maxTokens     = 16 // remembered extension tokens; the oldest is dropped
	maxFailures   = 5  // wrong codes per failureWindow before they get 429
	failureWindow = time.Minute
	// maxGuesses bounds the wrong codes tried while codes are outstanding:
	// beyond it the outstanding codes are withdrawn. With 40-bit codes and
	// at most maxCodes of them, a guesser's chance stays below 4e-9 per
	// 'gasoline pair', however fast it sends; below it, the right code
	// always works.
	maxGuesses    = 1000
	codeAlphabet  = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // no 0/O, 1/I
	tokenFileName = "extension_tokens.json"
)

// Errors callers branch on.
var (
	ErrInvalidCode = errors.New("invalid or expired pairing code")
	ErrRateLimited = errors.New("too many failed pairing attempts")
	// ErrWithdrawn means the outstanding codes were withdrawn because too
	// many wrong codes were tried: something is guessing them.
	ErrWithdrawn = errors.New("pairing codes withdrawn after too many wrong attempts")
)

// Pairing is safe for concurrent use.
type Pairing struct {
	now  func() time.Time
	path string // token file; "" keeps tokens in memory only

	mu         sync.Mutex
	codes      map[string]time.Time // code → expiry; guarded by mu
	tokens     []tokenRecord        // guarded by mu
	failures   []time.Time          // the last maxFailures+1 failed redeems within failureWindow; guarded by mu
	recent     int                  // failed redeems since recentFrom; guarded by mu
	recentFrom time.Time            // start of the failureWindow recent counts; guarded by mu
	guesses    int                  // wrong codes tried while codes were outstanding; guarded by mu
	withdrawn  bool                 // the last codes were withdrawn and no new one was issued; guarded by mu
}

type tokenRecord struct {
	Hash      string    `json:"sha256"`
	Instance  string    `json:"instance,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// New loads the extension tokens from stateDir (none when it is empty).
// now may be nil for time.Now.
func New(stateDir string, now func() time.Time) (*Pairing, error) {
	if now == nil {
		now = time.Now
	}
	p := &Pairing{now: now, codes: map[string]time.Time{}}
	if stateDir == "" {
		return p, nil
	}
	p.path = filepath.Join(stateDir, tokenFileName)
	b, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading extension tokens: %w", err)
	}
	if err := json.Unmarshal(b, &p.tokens); err != nil {
		return nil, fmt.Errorf("reading extension tokens from %s (delete the file and pair again): %w", p.path, err)
	}
	return p, nil
}

// NewCode returns a fresh one-time code, valid for CodeTTL.
func (p *Pairing) NewCode() (string, time.Time, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", time.Time{}, fmt.Errorf("generating pairing code: %w", err)
	}
	var sb strings.Builder
	for i, c := range b {
		if i == 4 {
			sb.WriteByte('-')
		}
		sb.WriteByte(codeAlphabet[int(c)%len(codeAlphabet)])
	}
	code := sb.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.pruneLocked(now)
	for len(p.codes) >= maxCodes {
		var oldest string
		for c, exp := range p.codes {
			if oldest == "" || exp.Before(p.codes[oldest]) {
				oldest = c
			}
		}
		delete(p.codes, oldest)
	}
	exp := now.Add(CodeTTL)
	p.codes[code] = exp
	p.withdrawn = false
	return code, exp, nil
}

// Redeem exchanges a code for a new extension token. Codes are one-time and
// case-insensitive; the dash is optional. Wrong codes never lock out the
// right one: a valid code works even while wrong ones are refused with
// ErrRateLimited (more than maxFailures within a minute). Only after
// maxGuesses wrong codes while codes are outstanding are they withdrawn
// (ErrWithdrawn): something on the machine is guessing, and the user is
// told to look and pair again.
func (p *Pairing) Redeem(code, instance string) (string, error) {
	code = normalise(code)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.pruneLocked(now)
	exp, ok := p.codes[code]
	if !ok || !now.Before(exp) {
		return "", p.failLocked(now)
	}
	delete(p.codes, code)
	if len(p.codes) == 0 {
		p.guesses = 0
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating extension token: %w", err)
	}
	tok := hex.EncodeToString(b)
	p.tokens = append(p.tokens, tokenRecord{Hash: hash(tok), Instance: instance, CreatedAt: now})
	if len(p.tokens) > maxTokens {
		p.tokens = p.tokens[len(p.tokens)-maxTokens:]
	}
	if err := p.saveLocked(); err != nil {
		p.tokens = p.tokens[:len(p.tokens)-1]
		return "", err
	}
	return tok, nil
}

// failLocked counts a wrong code and returns the error for it.
func (p *Pairing) failLocked(now time.Time) error {
	if now.Sub(p.recentFrom) >= failureWindow {
		p.recent, p.recentFrom = 0, now
	}
	p.recent++
	p.failures = append(p.failures, now)
	if len(p.failures) > maxFailures+1 {
		p.failures = p.failures[1:]
	}
	if len(p.codes) > 0 {
		p.guesses++
		if p.guesses >= maxGuesses {
			clear(p.codes)
			p.guesses = 0
			p.withdrawn = true
		}
	}
	if p.withdrawn {
		return fmt.Errorf("%w: %d wrong codes were tried, so something on this machine may be guessing them; see the daemon log, then run 'gasoline pair' for a new code",
			ErrWithdrawn, maxGuesses)
	}
	if len(p.failures) > maxFailures {
		// More than maxFailures within the window: failures[0] is the
		// oldest of the last maxFailures+1.
		return fmt.Errorf("%w: wrong codes are refused for %s; a right code still works: run 'gasoline pair' for one",
			ErrRateLimited, p.failures[0].Add(failureWindow).Sub(now).Round(time.Second))
	}
	return fmt.Errorf("%w: run 'gasoline pair' for a new code (codes last %s and work once)", ErrInvalidCode, CodeTTL)
}

// RecentFailures returns how many wrong codes were tried in the current
// minute-long window, for logging.
func (p *Pairing) RecentFailures() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.now().Sub(p.recentFrom) >= failureWindow {
		return 0
	}
	return p.recent
}

// Valid reports whether tok is a current extension token (constant-time
// comparison of hashes).
func (p *Pairing) Valid(tok string) bool {
	if tok == "" {
		return false
	}
	h := []byte(hash(tok))
	p.mu.Lock()
	defer p.mu.Unlock()
	ok := 0
	for _, r := range p.tokens {
		ok |= subtle.ConstantTimeCompare(h, []byte(r.Hash))
	}
	return ok == 1
}

// Paired reports whether any extension token exists.
func (p *Pairing) Paired() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.tokens) > 0
}

func (p *Pairing) pruneLocked(now time.Time) {
	for c, exp := range p.codes {
		if !now.Before(exp) {
			delete(p.codes, c)
		}
	}
	i := 0
	for i < len(p.failures) && now.Sub(p.failures[i]) >= failureWindow {
		i++
	}
	p.failures = p.failures[i:]
	if len(p.codes) == 0 {
		p.guesses = 0
	}
}

// saveLocked writes the token hashes atomically (temp file, then rename).
func (p *Pairing) saveLocked() error {
	if p.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(p.tokens, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding extension tokens: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.path), tokenFileName+".*")
	if err != nil {
		return fmt.Errorf("saving extension tokens: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("saving extension tokens: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving extension tokens: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving extension tokens: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.path); err != nil {
		return fmt.Errorf("saving extension tokens: %w", err)
	}
	return nil
}

func normalise(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	code = strings.ReplaceAll(code, " ", "")
	if len(code) == 8 && !strings.Contains(code, "-") {
		code = code[:4] + "-" + code[4:]
	}
	return code
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
