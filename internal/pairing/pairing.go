// Package pairing issues one-time pairing codes and exchanges them for
// extension tokens, which it keeps only as SHA-256 hashes, persisted in the
// state directory so that a daemon restart does not unpair the browser.
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
	maxFailures   = 5  // failed redeems per failureWindow before 429
	failureWindow = time.Minute
	codeAlphabet  = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // no 0/O, 1/I
	tokenFileName = "extension_tokens.json"
)

// Errors callers branch on.
var (
	ErrInvalidCode = errors.New("invalid or expired pairing code")
	ErrRateLimited = errors.New("too many failed pairing attempts")
)

// Pairing is safe for concurrent use.
type Pairing struct {
	now  func() time.Time
	path string // token file; "" keeps tokens in memory only

	mu       sync.Mutex
	codes    map[string]time.Time // code → expiry; guarded by mu
	tokens   []tokenRecord        // guarded by mu
	failures []time.Time          // recent failed redeems; guarded by mu
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
	return code, exp, nil
}

// Redeem exchanges a code for a new extension token. Codes are one-time and
// case-insensitive; the dash is optional. After maxFailures failures within
// a minute every attempt gets ErrRateLimited until the window passes.
func (p *Pairing) Redeem(code, instance string) (string, error) {
	code = normalise(code)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.pruneLocked(now)
	if len(p.failures) >= maxFailures {
		return "", fmt.Errorf("%w: wait %s and try again", ErrRateLimited, p.failures[0].Add(failureWindow).Sub(now).Round(time.Second))
	}
	exp, ok := p.codes[code]
	if !ok || !now.Before(exp) {
		p.failures = append(p.failures, now)
		return "", fmt.Errorf("%w: run 'gasoline pair' for a new code (codes last %s and work once)", ErrInvalidCode, CodeTTL)
	}
	delete(p.codes, code)
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
