package extauth

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The vectors below are shared with extension/test/auth.test.js: both
// implementations must produce them.
const (
	vecCode        = "ABCD-2345"
	vecPairNonce   = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	vecToken       = "f00d"
	vecExtensionID = "ipimnlogmeffgddjpdmodnligphcpfag"
	vecExtProof    = "12c3ef8b5da4fc0b7b39a7dfe3900895c4609d74d6ea3c0b251cc93bef520dc7"
	vecDaemonProof = "b4b246e392090aba3aed52e958e1d1dc45ac723fb41dbb5191c5872ab6e1262e"
	vecAuth        = "Gasoline-HMAC ts=1700000000000, nonce=0123456789abcdef0123456789abcdef, sig=225190483942d94a406c7f39c5533f6f4384df68655aa962580ad776ab67bca1"
	vecAnswerSig   = "e0c5a3944b07e7d9054c00025c4bcd671b165bc55eca2976fe7113409a644328"
	// vecRequest's body {"a":1} sealed with vecSealIV, its hash and the
	// signature over it.
	vecSealKey    = "cb6c800ba7eb0c1994412a4d4b7bd5ada00db5a73218b10a4e55f6218967b5f3"
	vecSealIV     = "000102030405060708090a0b"
	vecSealed     = "000102030405060708090a0b1dfb883dd7d9ce6328f06eae5ee6000cdf07d28fcad57c"
	vecSealedHash = "2ad2eab15972190903bd92ccd292f915d2e8758cc1838fee4cbae75ad5c62cc7"
	vecSealedAuth = "Gasoline-HMAC ts=1700000000000, nonce=0123456789abcdef0123456789abcdef, sig=1529d530c18eaef02624e2fac53410d705c687474f298d0a827b3d9118847828"
)

var vecRequest = Request{Method: "POST", Host: "127.0.0.1:7890", URI: "/query-result", Instance: "i-1",
	TS: 1700000000000, Nonce: "0123456789abcdef0123456789abcdef", Body: []byte(`{"a":1}`)}

func TestVectors(t *testing.T) {
	k := PairKey(vecCode, vecPairNonce)
	if got := ExtensionProof(k, vecPairNonce); got != vecExtProof {
		t.Errorf("ExtensionProof: got %s, want %s", got, vecExtProof)
	}
	if !CheckExtensionProof(k, vecPairNonce, vecExtProof) {
		t.Errorf("CheckExtensionProof refused the vector")
	}
	if got := DaemonProof(k, vecPairNonce, vecToken, vecExtensionID); got != vecDaemonProof {
		t.Errorf("DaemonProof: got %s, want %s", got, vecDaemonProof)
	}
	key := TokenKey(vecToken)
	if got := vecRequest.Authorization(key); got != vecAuth {
		t.Errorf("Authorization: got %s, want %s", got, vecAuth)
	}
	if got := Sign(key, ResponseMessage(vecRequest.Nonce, 200, []byte(`{"queries":[]}`))); got != vecAnswerSig {
		t.Errorf("answer signature: got %s, want %s", got, vecAnswerSig)
	}
}

func TestSealVectors(t *testing.T) {
	sk := SealKey(TokenKey(vecToken))
	if got := hex.EncodeToString(sk); got != vecSealKey {
		t.Errorf("SealKey: got %s, want %s", got, vecSealKey)
	}
	iv, _ := hex.DecodeString(vecSealIV)
	sealed := vecRequest.Seal(sk, iv, vecRequest.Body)
	if got := hex.EncodeToString(sealed); got != vecSealed {
		t.Errorf("Seal: got %s, want %s", got, vecSealed)
	}
	if got := BodyHash(sealed); got != vecSealedHash {
		t.Errorf("BodyHash: got %s, want %s", got, vecSealedHash)
	}
	r := vecRequest
	r.Body = sealed
	if got := r.Authorization(TokenKey(vecToken)); got != vecSealedAuth {
		t.Errorf("Authorization of the sealed body: got %s, want %s", got, vecSealedAuth)
	}
	r.Body, r.BodySHA256 = nil, vecSealedHash // as the daemon checks it, before reading the body
	if got := r.Authorization(TokenKey(vecToken)); got != vecSealedAuth {
		t.Errorf("Authorization over the claimed hash: got %s, want %s", got, vecSealedAuth)
	}
	plain, err := vecRequest.Open(sk, sealed)
	if err != nil || string(plain) != `{"a":1}` {
		t.Errorf("Open: got %q, %v; want the plaintext", plain, err)
	}
}

// TestOpenRefuses: a sealed body opens only under its key, for its request,
// unaltered.
func TestOpenRefuses(t *testing.T) {
	sk := SealKey(TokenKey(vecToken))
	sealed := vecRequest.Seal(sk, nil, []byte("secret text the page typed"))
	if bytes.Contains(sealed, []byte("secret")) {
		t.Fatalf("the sealed body holds the plaintext")
	}
	if again := vecRequest.Seal(sk, nil, []byte("secret text the page typed")); bytes.Equal(again, sealed) {
		t.Errorf("two seals of the same body are equal: the IV is not fresh")
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)/2] ^= 1
	for _, tc := range []struct {
		name   string
		key    []byte
		change func(*Request)
		body   []byte
	}{
		{"another token", SealKey(TokenKey("other")), nil, sealed},
		{"altered", sk, nil, flipped},
		{"too short", sk, nil, sealed[:SealOverhead-1]},
		{"empty", sk, nil, nil},
		{"another nonce", sk, func(r *Request) { r.Nonce = strings.Repeat("f", 32) }, sealed},
		{"another URI", sk, func(r *Request) { r.URI = "/events" }, sealed},
		{"another time", sk, func(r *Request) { r.TS++ }, sealed},
		{"another instance", sk, func(r *Request) { r.Instance = "i-2" }, sealed},
		{"another method", sk, func(r *Request) { r.Method = "PUT" }, sealed},
		{"another host", sk, func(r *Request) { r.Host = "127.0.0.1:1" }, sealed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := vecRequest
			if tc.change != nil {
				tc.change(&r)
			}
			if _, err := r.Open(tc.key, tc.body); !errors.Is(err, ErrUnsealable) {
				t.Errorf("got %v, want ErrUnsealable", err)
			}
		})
	}
}

// TestSignSealed: what SignSealed sends verifies against the claimed hash
// and opens to the plaintext.
func TestSignSealed(t *testing.T) {
	key := TokenKey(vecToken)
	r := vecRequest
	body, h := r.SignSealed(key, []byte(`{"x":"y"}`))
	if h[BodyHashHeader] != BodyHash(body) || h["Content-Type"] != SealedType {
		t.Fatalf("headers %v do not describe the body", h)
	}
	p, err := ParseAuthorization(h["Authorization"])
	if err != nil {
		t.Fatal(err)
	}
	r.Body, r.BodySHA256 = nil, h[BodyHashHeader]
	if !Verify(key, r.Message(), p.Sig) {
		t.Errorf("the signature does not verify over the claimed hash")
	}
	if plain, err := r.Open(SealKey(key), body); err != nil || string(plain) != `{"x":"y"}` {
		t.Errorf("Open: got %q, %v", plain, err)
	}
}

// FuzzOpen: no body crashes Open, and nothing opens that Seal did not make.
func FuzzOpen(f *testing.F) {
	sk := SealKey(TokenKey(vecToken))
	good, _ := hex.DecodeString(vecSealed)
	f.Add(good)
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0}, SealOverhead))
	f.Fuzz(func(t *testing.T, body []byte) {
		plain, err := vecRequest.Open(sk, body)
		if err != nil {
			return
		}
		if !bytes.Equal(body, good) || string(plain) != `{"a":1}` {
			t.Errorf("opened a body Seal did not make: %x -> %q", body, plain)
		}
	})
}

// TestProofNeedsTheCode: a proof made with another code, or for another
// nonce, does not check.
func TestProofNeedsTheCode(t *testing.T) {
	k := PairKey(vecCode, vecPairNonce)
	other := PairKey("ABCD-2346", vecPairNonce)
	if CheckExtensionProof(other, vecPairNonce, vecExtProof) {
		t.Errorf("a proof checked under the key of another code")
	}
	if CheckExtensionProof(k, strings.Repeat("0", 64), vecExtProof) {
		t.Errorf("a proof checked for another nonce")
	}
	if DaemonProof(k, vecPairNonce, "another token", vecExtensionID) == vecDaemonProof {
		t.Errorf("the daemon's proof does not bind the token")
	}
}

func TestVerify(t *testing.T) {
	key := TokenKey(vecToken)
	msg := vecRequest.Message()
	sig := Sign(key, msg)
	for _, tc := range []struct {
		name string
		key  []byte
		msg  string
		sig  string
		want bool
	}{
		{"good", key, msg, sig, true},
		{"upper-case hex", key, msg, strings.ToUpper(sig), true},
		{"other key", TokenKey("other"), msg, sig, false},
		{"other message", key, msg + "x", sig, false},
		{"short", key, msg, sig[:62], false},
		{"not hex", key, msg, "zz" + sig[2:], false},
		{"empty", key, msg, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Verify(tc.key, tc.msg, tc.sig); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMessageCoversEveryField: changing any field of a request changes what
// is signed, so a signature cannot be moved to another request.
func TestMessageCoversEveryField(t *testing.T) {
	base := vecRequest.Message()
	for name, change := range map[string]func(*Request){
		"method":   func(r *Request) { r.Method = "GET" },
		"host":     func(r *Request) { r.Host = "127.0.0.1:7891" },
		"uri":      func(r *Request) { r.URI = "/query-result?x=1" },
		"instance": func(r *Request) { r.Instance = "i-2" },
		"ts":       func(r *Request) { r.TS++ },
		"nonce":    func(r *Request) { r.Nonce = strings.Repeat("f", 32) },
		"body":     func(r *Request) { r.Body = []byte(`{"a":2}`) },
	} {
		r := vecRequest
		change(&r)
		if r.Message() == base {
			t.Errorf("changing the %s leaves the signed message unchanged", name)
		}
	}
}

func TestParseAuthorization(t *testing.T) {
	p, err := ParseAuthorization(vecAuth)
	if err != nil || p.TS != vecRequest.TS || p.Nonce != vecRequest.Nonce || len(p.Sig) != 64 {
		t.Fatalf("got %+v, %v; want the vector's fields", p, err)
	}
	for _, bad := range []string{
		"",
		"Bearer abc",
		strings.Replace(vecAuth, "ts=", "ts=-", 1),
		strings.Replace(vecAuth, "nonce=0123", "nonce=X123", 1),
		strings.Replace(vecAuth, ", sig=", ",sig=", 1),
		vecAuth + " ",
		vecAuth[:len(vecAuth)-1],
		strings.Replace(vecAuth, "ts=1700000000000", "ts=99999999999999999", 1),
		strings.Replace(vecAuth, "ts=1700000000000", "ts=01700000000000", 1),
		strings.Replace(vecAuth, "ts=1700000000000", "ts=00", 1),
	} {
		if _, err := ParseAuthorization(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseAuthorization(%q): got %v, want ErrMalformed", bad, err)
		}
	}
}

// FuzzParseAuthorization: no header crashes the parser, and whatever it
// accepts it writes back identically.
func FuzzParseAuthorization(f *testing.F) {
	f.Add(vecAuth)
	f.Add("Gasoline-HMAC ts=0, nonce=00000000000000000000000000000000, sig=" + strings.Repeat("a", 64))
	f.Add("Bearer x")
	f.Fuzz(func(t *testing.T, v string) {
		p, err := ParseAuthorization(v)
		if err != nil {
			return
		}
		r := Request{TS: p.TS, Nonce: p.Nonce}
		if got := strings.Replace(r.Authorization(nil), "sig="+Sign(nil, r.Message()), "sig="+p.Sig, 1); got != v {
			t.Errorf("accepted %q but writes it as %q", v, got)
		}
	})
}
