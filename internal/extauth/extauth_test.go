package extauth

import (
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
