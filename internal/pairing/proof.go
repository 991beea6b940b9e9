package pairing

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/gasoline-mcp/gasoline/internal/extauth"
)

// ErrBadRequest means a pairing request is not of the expected shape.
var ErrBadRequest = errors.New("malformed pairing request")

var (
	pairNonceRE = regexp.MustCompile(`^[0-9a-f]{` + strconv.Itoa(extauth.PairNonceHexLen) + `}$`)
	proofRE     = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// proofSlot lets one pairing proof be checked at a time: each costs a
// PBKDF2 per outstanding code, and a flood of /pair requests must not take
// more than one core from the daemon.
var proofSlot = make(chan struct{}, 1)

// RedeemProof exchanges an extension's proof of a code (extauth) for a new
// extension token: it resolves the proof to the outstanding code it was made
// with and redeems that code with Redeem, so one-time use, expiry and the
// throttling of failures are Redeem's. A proof that matches no code is
// redeemed as a wrong code (ErrInvalidCode, counted as a failed attempt).
// It returns the token and the daemon's proof for the answer, which binds the
// token and extensionID. Concurrent calls are safe; proofs are checked one
// at a time.
func (p *Pairing) RedeemProof(nonce, proof, instance, extensionID string) (token, answer string, err error) {
	if !pairNonceRE.MatchString(nonce) || !proofRE.MatchString(proof) {
		return "", "", fmt.Errorf("%w: want a nonce of %d and a proof of 64 lower-case hex characters", ErrBadRequest, extauth.PairNonceHexLen)
	}
	proofSlot <- struct{}{}
	code, key := p.matchProof(nonce, proof)
	<-proofSlot
	tok, err := p.Redeem(code, instance) // "" when nothing matched: a failed attempt
	if err != nil {
		return "", "", err
	}
	return tok, extauth.DaemonProof(key, nonce, tok, extensionID), nil
}

// matchProof returns the outstanding code whose key made proof, with that
// key; "" and nil when none did. The key derivations run outside mu.
func (p *Pairing) matchProof(nonce, proof string) (string, []byte) {
	p.mu.Lock()
	now := p.now()
	codes := make([]string, 0, len(p.codes))
	for c, exp := range p.codes {
		if now.Before(exp) {
			codes = append(codes, c)
		}
	}
	p.mu.Unlock()
	var found string
	var foundKey []byte
	for _, c := range codes { // every code is tried: the time taken does not say which matched
		k := extauth.PairKey(c, nonce)
		if extauth.CheckExtensionProof(k, nonce, proof) && found == "" {
			found, foundKey = c, k
		}
	}
	return found, foundKey
}

// Key is the request-signing key of one paired extension token.
type Key struct {
	// ID names the token in logs and for Revoke; it reveals nothing of the key.
	ID     string
	Secret []byte // extauth.TokenKey of the token
}

// Keys returns the signing keys of the current extension tokens. The daemon
// keeps each token only as its key (extauth.TokenKey), so the token file is
// as secret as the state-dir token and has the same 0600 mode.
func (p *Pairing) Keys() []Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := make([]Key, 0, len(p.tokens))
	for _, r := range p.tokens {
		secret, err := hex.DecodeString(r.Hash)
		if err != nil || len(secret) != sha256.Size {
			continue // not written by this package; it signs nothing
		}
		keys = append(keys, Key{ID: keyID(secret), Secret: secret})
	}
	return keys
}

// Revoke forgets the extension token whose key has id, so its signatures are
// refused from now on. It reports whether there was one.
func (p *Pairing) Revoke(id string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, r := range p.tokens {
		if secret, err := hex.DecodeString(r.Hash); err == nil && keyID(secret) == id {
			kept := append(append([]tokenRecord(nil), p.tokens[:i]...), p.tokens[i+1:]...)
			return true, p.replaceTokensLocked(kept)
		}
	}
	return false, nil
}

// RevokeAll forgets every extension token and returns how many there were:
// every browser must pair again.
func (p *Pairing) RevokeAll() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.tokens)
	if n == 0 {
		return 0, nil
	}
	return n, p.replaceTokensLocked(nil)
}

// replaceTokensLocked stores tokens, or leaves the old list in place when it
// cannot be saved.
func (p *Pairing) replaceTokensLocked(tokens []tokenRecord) error {
	old := p.tokens
	p.tokens = tokens
	if err := p.saveLocked(); err != nil {
		p.tokens = old
		return fmt.Errorf("revoking extension tokens: %w", err)
	}
	return nil
}

func keyID(secret []byte) string {
	h := sha256.Sum256(append([]byte("gasoline-key-id "), secret...))
	return hex.EncodeToString(h[:8])
}
