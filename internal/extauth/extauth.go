// Package extauth is the wire contract by which the browser extension and the
// daemon authenticate each other (extension/auth.js is the other half): the
// pairing proofs, the request signature and the answer signature. It holds
// pure functions only; the daemon's state (codes, keys, seen nonces) lives in
// internal/pairing and internal/server.
//
// Pairing never sends the code. Both sides derive a key from it,
//
//	K = PBKDF2-HMAC-SHA256(code, "gasoline-pair-v1 " + nonce, PairIterations, 32)
//
// the extension proves it knows the code with ExtensionProof, and the daemon
// answers with a token and DaemonProof, which binds the nonce, the token and
// the extension id. The token's key, SHA-256(token), then signs every
// extension request (RequestMessage, in an Authorization header of scheme
// Scheme) and the daemon signs its answers with it (ResponseMessage, in
// SignatureHeader), so the token itself never travels again and an answer
// is good for one request only.
//
// A request signature covers the SHA-256 of the body, which the extension
// also sends in BodyHashHeader, so the daemon checks the signature before it
// reads a byte of the body. The body itself is sealed: AES-256-GCM under
//
//	S = HKDF-SHA256(SHA-256(token), salt "", info "gasoline-body-v1", 32)
//
// with a fresh 12-byte IV per request (sent first) and the request's method,
// host, URI, instance, timestamp and nonce as additional data (SealedType,
// Request.Seal), so a program that holds the port while the daemon is down
// receives nothing it can read, and a sealed body cannot be moved to
// another request.
package extauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Wire constants.
const (
	// PairIterations is the PBKDF2 iteration count of the pairing key. It
	// makes searching a captured proof for the code (40 bits) take far longer
	// than the code's two minutes, at about 6 ms per attempt for the daemon.
	PairIterations = 20000
	// Scheme is the Authorization scheme of a signed extension request.
	Scheme = "Gasoline-HMAC"
	// SignatureHeader carries the daemon's signature of an answer.
	SignatureHeader = "X-Gasoline-Signature"
	// NonceHexLen is the length of a request nonce (16 random bytes, hex).
	NonceHexLen = 32
	// PairNonceHexLen is the length of a pairing nonce (32 random bytes, hex).
	PairNonceHexLen = 64
	// BodyHashHeader carries hex(SHA-256(body)) of a signed request, which
	// the signature covers: the daemon checks the signature before reading
	// the body. Absent, the body is hashed as read.
	BodyHashHeader = "X-Gasoline-Body-SHA256"
	// SealedType is the Content-Type of a sealed body: IV (12 bytes), then
	// the AES-256-GCM ciphertext and tag of the JSON it carries.
	SealedType = "application/vnd.gasoline.sealed-v1"
	// SealOverhead is how many bytes sealing adds to a body (IV and tag).
	SealOverhead = ivLen + tagLen

	ivLen  = 12
	tagLen = 16
)

// ErrMalformed means an Authorization header of scheme Scheme could not be
// parsed.
var ErrMalformed = errors.New("malformed " + Scheme + " authorization")

// ErrUnsealable means a sealed body could not be opened: too short, sealed
// under another key, for another request, or altered.
var ErrUnsealable = errors.New("the sealed body does not open with this pairing's key for this request")

// PairKey derives the pairing key K from a normalised code ("ABCD-2345")
// and the extension's pairing nonce.
func PairKey(code, nonce string) []byte {
	k, err := pbkdf2.Key(sha256.New, code, []byte("gasoline-pair-v1 "+nonce), PairIterations, 32)
	if err != nil {
		panic("extauth: pbkdf2 refused fixed parameters: " + err.Error()) // cannot happen: the parameters are constants
	}
	return k
}

// ExtensionProof is the extension's proof, under pairing key k, that it
// knows the code, as hex.
func ExtensionProof(k []byte, nonce string) string {
	return Sign(k, "gasoline-pair-v1 extension\n"+nonce)
}

// CheckExtensionProof reports, in constant time, whether proof is
// ExtensionProof(k, nonce).
func CheckExtensionProof(k []byte, nonce, proof string) bool {
	return Verify(k, "gasoline-pair-v1 extension\n"+nonce, proof)
}

// DaemonProof is the daemon's proof, under pairing key k, that it knows the
// code, binding the issued token and extension id, as hex.
func DaemonProof(k []byte, nonce, token, extensionID string) string {
	return Sign(k, "gasoline-pair-v1 daemon\n"+nonce+"\n"+token+"\n"+extensionID)
}

// TokenKey is the signing key of an extension token: SHA-256 of its bytes.
func TokenKey(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// SealKey is the AES-256 key that seals request bodies, derived from the
// signing key TokenKey(token).
func SealKey(tokenKey []byte) []byte {
	k, err := hkdf.Key(sha256.New, tokenKey, nil, "gasoline-body-v1", 32)
	if err != nil {
		panic("extauth: hkdf refused fixed parameters: " + err.Error()) // cannot happen: 32 bytes of SHA-256
	}
	return k
}

// Request is what a request signature covers.
type Request struct {
	Method   string
	Host     string // as sent: "127.0.0.1:7890"
	URI      string // path and query as sent
	Instance string // the X-Gasoline-Instance header, "" when absent
	TS       int64  // Unix milliseconds
	Nonce    string
	Body     []byte // as sent (sealed or not)
	// BodySHA256 is hex(SHA-256(Body)) as claimed in BodyHashHeader; ""
	// means Message hashes Body.
	BodySHA256 string
}

// Message is the text a request signature is computed over.
func (r Request) Message() string {
	h := r.BodySHA256
	if h == "" {
		sum := sha256.Sum256(r.Body)
		h = hex.EncodeToString(sum[:])
	}
	return strings.Join([]string{"gasoline-request-v1", r.Method, r.Host, r.URI, r.Instance,
		strconv.FormatInt(r.TS, 10), r.Nonce, h}, "\n")
}

// BodyHash returns hex(SHA-256(body)), the value of BodyHashHeader.
func BodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// sealAD is the additional data a sealed body is bound to: everything the
// signature covers but the body.
func (r Request) sealAD() []byte {
	return []byte(strings.Join([]string{"gasoline-body-v1", r.Method, r.Host, r.URI, r.Instance,
		strconv.FormatInt(r.TS, 10), r.Nonce}, "\n"))
}

// Seal returns plain sealed for r under sealKey (SealKey) with iv, which
// must be 12 bytes never used before with this key; nil iv draws a random
// one. It does not change r.
func (r Request) Seal(sealKey, iv, plain []byte) []byte {
	if iv == nil {
		iv = make([]byte, ivLen)
		rand.Read(iv)
	}
	if len(iv) != ivLen {
		panic("extauth: Seal needs a 12-byte iv")
	}
	out := make([]byte, ivLen, ivLen+len(plain)+tagLen)
	copy(out, iv)
	return gcm(sealKey).Seal(out, iv, plain, r.sealAD())
}

// Open returns the plaintext of a body Seal made for r under sealKey, or
// ErrUnsealable.
func (r Request) Open(sealKey, sealed []byte) ([]byte, error) {
	if len(sealed) < SealOverhead {
		return nil, ErrUnsealable
	}
	plain, err := gcm(sealKey).Open(nil, sealed[:ivLen], sealed[ivLen:], r.sealAD())
	if err != nil {
		return nil, ErrUnsealable
	}
	return plain, nil
}

func gcm(key []byte) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic("extauth: seal key is not an AES key: " + err.Error()) // SealKey makes 32 bytes
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic("extauth: " + err.Error()) // cannot happen: AES has a 16-byte block
	}
	return a
}

// SignSealed seals plain for r (a fresh IV) and signs it with tokenKey, as
// the extension does: it returns the body to send and the headers to set
// (Authorization, BodyHashHeader, Content-Type). r.Body is ignored.
func (r Request) SignSealed(tokenKey, plain []byte) (body []byte, header map[string]string) {
	body = r.Seal(SealKey(tokenKey), nil, plain)
	r.Body, r.BodySHA256 = body, BodyHash(body)
	return body, map[string]string{"Authorization": r.Authorization(tokenKey), BodyHashHeader: r.BodySHA256, "Content-Type": SealedType}
}

// Authorization returns the Authorization header value of r signed with key.
func (r Request) Authorization(key []byte) string {
	return fmt.Sprintf("%s ts=%d, nonce=%s, sig=%s", Scheme, r.TS, r.Nonce, Sign(key, r.Message()))
}

// ResponseMessage is the text an answer signature is computed over.
func ResponseMessage(nonce string, status int, body []byte) string {
	return "gasoline-response-v1\n" + nonce + "\n" + strconv.Itoa(status) + "\n" + string(body)
}

// Sign returns HMAC-SHA256(key, msg) as lower-case hex.
func Sign(key []byte, msg string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports, in constant time, whether sigHex is Sign(key, msg).
func Verify(key []byte, msg, sigHex string) bool {
	sig, err := hex.DecodeString(sigHex)
	if err != nil || len(sig) != sha256.Size {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return hmac.Equal(m.Sum(nil), sig)
}

// Params are the fields of a signed request's Authorization header.
type Params struct {
	TS    int64
	Nonce string
	Sig   string
}

var paramsRE = regexp.MustCompile(`^` + Scheme + ` ts=(0|[1-9][0-9]{0,15}), nonce=([0-9a-f]{` + strconv.Itoa(NonceHexLen) + `}), sig=([0-9a-f]{64})$`)

// ParseAuthorization parses "Gasoline-HMAC ts=…, nonce=…, sig=…" exactly as
// Request.Authorization writes it; anything else is ErrMalformed.
func ParseAuthorization(v string) (Params, error) {
	m := paramsRE.FindStringSubmatch(v)
	if m == nil {
		return Params{}, fmt.Errorf("%w: want %q", ErrMalformed, Scheme+" ts=<unix ms>, nonce=<32 hex>, sig=<64 hex>")
	}
	ts, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return Params{}, fmt.Errorf("%w: ts: %v", ErrMalformed, err)
	}
	return Params{TS: ts, Nonce: m[2], Sig: m[3]}, nil
}
