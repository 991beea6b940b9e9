package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantCode int64 // 0: decodes
		wantReq  bool
		wantID   ID
	}{
		{"request int id", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, true, Int64ID(1)},
		{"request string id", `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`, 0, true, StringID("a")},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, true, ID{}},
		{"response", `{"jsonrpc":"2.0","id":3,"result":{}}`, 0, false, Int64ID(3)},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}`, 0, false, Int64ID(3)},
		{"empty", ``, CodeParseError, false, ID{}},
		{"garbage", `{"jsonrpc":`, CodeParseError, false, ID{}},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, CodeParseError, false, ID{}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, CodeInvalidRequest, false, ID{}},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, CodeInvalidRequest, false, Int64ID(7)},
		{"no method no id", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, false, ID{}},
		{"float id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, CodeInvalidRequest, false, ID{}},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, CodeInvalidRequest, false, ID{}},
		{"method not string", `{"jsonrpc":"2.0","id":1,"method":5}`, CodeInvalidRequest, false, ID{}},
		{"scalar params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":5}`, CodeInvalidRequest, false, Int64ID(2)},
		{"response with both", `{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":1,"message":"x"}}`, CodeInvalidRequest, false, Int64ID(2)},
		{"request with result", `{"jsonrpc":"2.0","id":2,"method":"ping","result":{}}`, CodeInvalidRequest, false, Int64ID(2)},
		{"not an object", `"hello"`, CodeInvalidRequest, false, ID{}},
		{"null id request", `{"jsonrpc":"2.0","id":null,"method":"tools/call"}`, CodeInvalidRequest, false, ID{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := DecodeMessage([]byte(tt.in))
			if tt.wantCode != 0 {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("got err %v, want DecodeError code %d", err, tt.wantCode)
				}
				if de.Code != tt.wantCode {
					t.Errorf("got code %d (%s), want %d", de.Code, de.Msg, tt.wantCode)
				}
				if de.ID != tt.wantID {
					t.Errorf("got id %v, want %v", de.ID, tt.wantID)
				}
				return
			}
			if err != nil {
				t.Fatalf("got err %v, want none", err)
			}
			switch m := msg.(type) {
			case *Request:
				if !tt.wantReq {
					t.Fatalf("got request, want response")
				}
				if m.ID != tt.wantID {
					t.Errorf("got id %v, want %v", m.ID, tt.wantID)
				}
			case *Response:
				if tt.wantReq {
					t.Fatalf("got response, want request")
				}
				if m.ID != tt.wantID {
					t.Errorf("got id %v, want %v", m.ID, tt.wantID)
				}
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	msgs := []Message{
		&Request{ID: Int64ID(42), Method: "tools/call", Params: json.RawMessage(`{"name":"observe"}`)},
		&Request{Method: "notifications/initialized"},
		&Response{ID: StringID("x"), Result: json.RawMessage(`{"ok":true}`)},
		&Response{Error: Errorf(CodeParseError, "bad")}, // null id
	}
	for _, m := range msgs {
		b, err := EncodeMessage(m)
		if err != nil {
			t.Fatalf("encoding %#v: %v", m, err)
		}
		back, err := DecodeMessage(b)
		if err != nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		b2, _ := EncodeMessage(back)
		if string(b) != string(b2) {
			t.Errorf("got %s, want %s", b2, b)
		}
	}
}

func TestNegotiateVersion(t *testing.T) {
	for _, v := range SupportedVersions {
		if got := NegotiateVersion(v); got != v {
			t.Errorf("NegotiateVersion(%q): got %q, want %q", v, got, v)
		}
	}
	for _, v := range []string{"", "2023-01-01", "2099-01-01"} {
		if got := NegotiateVersion(v); got != LatestVersion {
			t.Errorf("NegotiateVersion(%q): got %q, want %q", v, got, LatestVersion)
		}
	}
}

// FuzzDecodeMessage checks that no input panics the decoder and that every
// accepted message re-encodes to something that decodes the same way.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"a"}`,
		`{"jsonrpc":"2.0","id":null,"method":"a","params":null}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := DecodeMessage(data)
		if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] != '[' {
			// The fast path (Unmarshal) decides as the Decoder does.
			if smsg, serr := decodeStream(trimmed); !reflect.DeepEqual(msg, smsg) || !reflect.DeepEqual(err, serr) {
				t.Fatalf("DecodeMessage(%q) = %#v, %v; with a Decoder %#v, %v", data, msg, err, smsg, serr)
			}
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a DecodeError", err)
			}
			return
		}
		b, err := EncodeMessage(msg)
		if err != nil {
			t.Fatalf("re-encoding accepted message: %v", err)
		}
		if _, err := DecodeMessage(b); err != nil {
			t.Fatalf("re-encoded message %s does not decode: %v", b, err)
		}
	})
}
