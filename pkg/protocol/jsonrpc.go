// Package protocol holds the JSON-RPC 2.0 and MCP wire types shared by the
// bridge and the daemon, shaped like the official MCP go-sdk.
package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Version is the JSON-RPC version every message carries.
const Version = "2.0"

// JSON-RPC error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeRequestCancelled answers, over HTTP, a request the client
	// cancelled when the client takes no event stream (LSP's code for it).
	CodeRequestCancelled = -32800
	// CodeRequestTimeout is returned by the bridge when the daemon did not
	// answer within the call's timeout.
	CodeRequestTimeout = -32001
	// CodeDaemonUnavailable is returned by the bridge when no daemon answers
	// and none could be started.
	CodeDaemonUnavailable = -32002
	// CodeDaemonRestarted is returned by the bridge when the daemon went away
	// while a call that is not safe to repeat was in flight; it may or may
	// not have run.
	CodeDaemonRestarted = -32003
	// CodeDaemonRejected is returned by the bridge when the daemon refused the
	// request over HTTP (bad token, forbidden host, body too large).
	CodeDaemonRejected = -32004
)

// ID is a JSON-RPC request id: a string, an integer, or (its zero value) no
// id at all. IDs are comparable and can be used as map keys.
type ID struct {
	value any // nil, string or int64
}

// StringID returns a string id.
func StringID(s string) ID { return ID{value: s} }

// Int64ID returns an integer id.
func Int64ID(i int64) ID { return ID{value: i} }

// IsValid reports whether the id is set; a request without one is a notification.
func (id ID) IsValid() bool { return id.value != nil }

// Raw returns the id's value: nil, a string or an int64.
func (id ID) Raw() any { return id.value }

func (id ID) String() string {
	switch v := id.value.(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return "null"
}

// MarshalJSON encodes the id; the zero ID encodes as null.
func (id ID) MarshalJSON() ([]byte, error) {
	return json.Marshal(id.value)
}

// UnmarshalJSON accepts a string, an integral number or null.
func (id *ID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*id = ID{}
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*id = StringID(s)
		return nil
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("id must be a string or an integer, got %s", truncate(data, 40))
	}
	*id = Int64ID(n)
	return nil
}

// Message is a Request or a Response.
type Message interface{ isMessage() }

// Request is a JSON-RPC request, or a notification when ID is not valid.
type Request struct {
	ID     ID
	Method string
	Params json.RawMessage
}

// IsCall reports whether the request expects a response.
func (r *Request) IsCall() bool { return r.ID.IsValid() }

// Response is a JSON-RPC response: exactly one of Result and Error is set.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *WireError
}

func (*Request) isMessage()  {}
func (*Response) isMessage() {}

// WireError is a JSON-RPC error object. It implements error.
type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *WireError) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf returns a WireError with code and a formatted message.
func Errorf(code int64, format string, args ...any) *WireError {
	return &WireError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// wireMessage is the union of every field a message may carry.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"` // raw, to tell null from absent
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *WireError      `json:"error,omitempty"`
}

// DecodeError is returned by DecodeMessage. Code is CodeParseError for
// malformed JSON and CodeInvalidRequest for well-formed JSON that is not a
// valid JSON-RPC 2.0 message; ID is set when it could be read.
type DecodeError struct {
	Code int64
	ID   ID
	Msg  string
}

func (e *DecodeError) Error() string { return e.Msg }

// WireError converts the decode error to the error a server sends back.
func (e *DecodeError) WireError() *WireError { return &WireError{Code: e.Code, Message: e.Msg} }

// DecodeMessage decodes one JSON-RPC 2.0 message. Errors are *DecodeError.
// Batches (JSON arrays) are rejected: MCP removed them in 2025-06-18 and no
// client of this server sends them.
func DecodeMessage(data []byte) (Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, &DecodeError{Code: CodeParseError, Msg: "parse error: empty message; send one JSON-RPC 2.0 object"}
	}
	if data[0] == '[' {
		if !json.Valid(data) {
			return nil, &DecodeError{Code: CodeParseError, Msg: "parse error: malformed JSON batch"}
		}
		return nil, &DecodeError{Code: CodeInvalidRequest, Msg: "invalid request: JSON-RPC batches are not supported; send one message per request"}
	}
	// Unmarshal takes exactly one JSON value, which is every valid message,
	// at a good deal less than a Decoder costs; what it refuses is read
	// again by decodeStream, which tells the errors apart (FuzzDecodeMessage
	// checks that both agree).
	var w wireMessage
	if json.Unmarshal(data, &w) == nil {
		return messageOf(&w)
	}
	return decodeStream(data)
}

// decodeStream is DecodeMessage with a Decoder, for data that is not
// exactly one JSON object: it names what is wrong, or takes the message
// before a stray closing bracket.
func decodeStream(data []byte) (Message, error) {
	var w wireMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&w); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return nil, &DecodeError{Code: CodeInvalidRequest, Msg: fmt.Sprintf("invalid request: field %q has the wrong type (%s)", te.Field, te.Value)}
		case errors.As(err, &se), !json.Valid(data):
			return nil, &DecodeError{Code: CodeParseError, Msg: fmt.Sprintf("parse error: %v", err)}
		default:
			// The id failed its own validation.
			return nil, &DecodeError{Code: CodeInvalidRequest, Msg: fmt.Sprintf("invalid request: %v", err)}
		}
	}
	if dec.More() {
		return nil, &DecodeError{Code: CodeParseError, Msg: "parse error: trailing data after the JSON-RPC message; send one message per line"}
	}
	return messageOf(&w)
}

// messageOf checks w, a decoded message, and returns it as a Request or a
// Response.
func messageOf(w *wireMessage) (Message, error) {
	var id ID
	if w.ID != nil {
		if err := id.UnmarshalJSON(w.ID); err != nil {
			return nil, &DecodeError{Code: CodeInvalidRequest, Msg: fmt.Sprintf("invalid request: %v", err)}
		}
	}
	if w.JSONRPC != Version {
		return nil, &DecodeError{Code: CodeInvalidRequest, ID: id, Msg: fmt.Sprintf("invalid request: \"jsonrpc\" must be \"2.0\", got %q", w.JSONRPC)}
	}
	if w.Method != "" {
		if w.ID != nil && bytes.Equal(bytes.TrimSpace(w.ID), []byte("null")) {
			// JSON-RPC allows it but discourages it, and it is ambiguous to
			// relays (answer it or not?): refuse it rather than guess.
			return nil, &DecodeError{Code: CodeInvalidRequest, Msg: "invalid request: a null \"id\" is not supported; use a string or an integer, or omit \"id\" for a notification"}
		}
		if w.Result != nil || w.Error != nil {
			return nil, &DecodeError{Code: CodeInvalidRequest, ID: id, Msg: "invalid request: a request must not carry \"result\" or \"error\""}
		}
		if len(w.Params) > 0 && w.Params[0] != '{' && w.Params[0] != '[' && !bytes.Equal(w.Params, []byte("null")) {
			return nil, &DecodeError{Code: CodeInvalidRequest, ID: id, Msg: "invalid request: \"params\" must be an object or an array"}
		}
		return &Request{ID: id, Method: w.Method, Params: w.Params}, nil
	}
	if w.ID == nil {
		return nil, &DecodeError{Code: CodeInvalidRequest, Msg: "invalid request: message has neither \"method\" nor \"id\""}
	}
	if (w.Result == nil) == (w.Error == nil) {
		return nil, &DecodeError{Code: CodeInvalidRequest, ID: id, Msg: "invalid request: a response must carry exactly one of \"result\" and \"error\""}
	}
	return &Response{ID: id, Result: w.Result, Error: w.Error}, nil
}

// EncodeMessage encodes a Request or Response as one JSON object with no
// trailing newline.
func EncodeMessage(m Message) ([]byte, error) {
	w := wireMessage{JSONRPC: Version}
	switch m := m.(type) {
	case *Request:
		if m.Method == "" {
			return nil, errors.New("encoding request: empty method")
		}
		if m.ID.IsValid() {
			w.ID, _ = m.ID.MarshalJSON()
		}
		w.Method, w.Params = m.Method, m.Params
	case *Response:
		w.ID, _ = m.ID.MarshalJSON()
		w.Result, w.Error = m.Result, m.Error
		if m.Error == nil && m.Result == nil {
			w.Result = json.RawMessage("{}")
		}
	default:
		return nil, fmt.Errorf("encoding message: unsupported type %T", m)
	}
	return json.Marshal(w)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// EncodeResult encodes a successful response to id. result must be valid
// JSON (it is copied verbatim, not re-validated); it is the fast path for
// servers that produced result themselves.
func EncodeResult(id ID, result json.RawMessage) []byte {
	idJSON, _ := id.MarshalJSON()
	b := make([]byte, 0, len(result)+len(idJSON)+36)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, idJSON...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}
