package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// The stateless revision (2026-07-28) beside the legacy ones: a request
// whose params carry _meta["io.modelcontextprotocol/protocolVersion"] is
// served statelessly, whatever came before it on the same connection or
// session; every other request is served as the legacy revision its
// client negotiated in initialize.

// Cache hints of the cacheable results of the stateless revision. The tool
// list changes only when the daemon is upgraded (and restarted), so anyone
// may keep it for a while; the resource list and contents are the client's
// own stored outputs, which come and go. The discovery result's
// instructions carry the fence key of this run, so it is private and not
// kept: after a restart a client must not fence-check with an old key.
const (
	staticTTLMS  = 300_000
	dynamicTTLMS = 0
)

// era is what a request says about the protocol it speaks.
type era struct {
	modern  bool   // the request carries the stateless revision's _meta
	version string // its protocol version (modern only)
	tasks   bool   // it declares the Tasks extension (modern only)
	name    string // clientInfo.name (modern only)
}

type eraKey struct{}

// metaPrefix is how every key of the stateless _meta begins: a request
// without it is legacy, and is not decoded any further.
var metaPrefix = []byte(`"io.modelcontextprotocol/protocolVersion"`)

// eraOf reads the stateless _meta of req, if any. A modern request with an
// unsupported version is refused with UnsupportedProtocolVersion.
func eraOf(req *protocol.Request) (era, *protocol.WireError) {
	meta, ok := RequestMetaOf(req.Params)
	if !ok {
		return era{}, nil
	}
	if !protocol.IsModern(meta.ProtocolVersion) {
		return era{}, UnsupportedVersion(meta.ProtocolVersion)
	}
	if len(meta.ClientCapabilities) == 0 {
		return era{}, protocol.Errorf(protocol.CodeInvalidParams,
			"invalid params: params._meta has no %q (send {} for none)", protocol.MetaClientCapabilities)
	}
	e := era{modern: true, version: meta.ProtocolVersion}
	if meta.ClientInfo != nil {
		e.name = meta.ClientInfo.Name
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if len(meta.ClientCapabilities) > 0 && json.Unmarshal(meta.ClientCapabilities, &caps) == nil {
		_, e.tasks = caps.Extensions[protocol.ExtensionTasks]
	}
	return e, nil
}

// RequestMetaOf reads the stateless revision's _meta from a request's
// params; false when the request carries none (a legacy request). Only
// params that mention the protocol-version key are decoded.
func RequestMetaOf(params json.RawMessage) (protocol.RequestMeta, bool) {
	if !bytes.Contains(params, metaPrefix) {
		return protocol.RequestMeta{}, false
	}
	var p struct {
		Meta *protocol.RequestMeta `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta == nil || p.Meta.ProtocolVersion == "" {
		return protocol.RequestMeta{}, false
	}
	return *p.Meta, true
}

// UnsupportedVersion is the error for a request in protocol version v,
// which this server does not speak.
func UnsupportedVersion(v string) *protocol.WireError {
	data, _ := json.Marshal(protocol.UnsupportedVersionData{Supported: protocol.AllVersions, Requested: v})
	return &protocol.WireError{Code: protocol.CodeUnsupportedProtocolVersion,
		Message: "Unsupported protocol version " + quote(v) + "; this server speaks " + strings.Join(protocol.AllVersions, ", "),
		Data:    data}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// IsModernRequest reports whether msg is a request of the stateless
// revision (it carries the per-request _meta), so that a transport can
// serve it without a session.
func IsModernRequest(msg protocol.Message) bool {
	req, ok := msg.(*protocol.Request)
	if !ok {
		return false
	}
	_, modern := RequestMetaOf(req.Params)
	return modern
}

// discover answers server/discover. It is answered in every era: a dual-era
// client probes with it before it falls back to initialize.
func (s *Server) discover() json.RawMessage {
	caps := s.capabilities()
	if s.tasks != nil {
		caps.Extensions = map[string]struct{}{protocol.ExtensionTasks: {}}
	}
	b, _ := json.Marshal(protocol.DiscoverResult{
		ResultType:        protocol.ResultComplete,
		SupportedVersions: protocol.AllVersions,
		Capabilities:      caps,
		Instructions:      s.instructions,
		Meta:              map[string]any{protocol.MetaServerInfo: s.info},
		TTLMS:             dynamicTTLMS,
		CacheScope:        "private",
	})
	return b
}

// modernResult adds to a result of the stateless revision what that
// revision requires: resultType (unless the result begins with one, as the
// task results do), and the cache
// hints of the results it makes cacheable.
func modernResult(method string, result json.RawMessage) json.RawMessage {
	switch method {
	case protocol.MethodToolsList, protocol.MethodResourcesTemplatesList:
		result = AppendField(result, "ttlMs", []byte(itoa(staticTTLMS)))
		result = AppendField(result, "cacheScope", []byte(`"public"`))
	case protocol.MethodResourcesList, protocol.MethodResourcesRead:
		result = AppendField(result, "ttlMs", []byte(itoa(dynamicTTLMS)))
		result = AppendField(result, "cacheScope", []byte(`"private"`))
	}
	if !bytes.HasPrefix(result, []byte(`{"resultType":`)) {
		result = withResultType(result, protocol.ResultComplete)
	}
	return result
}

// withResultType puts "resultType" first in the encoded object result, so
// that it is found at once and never confused with a nested one.
func withResultType(result json.RawMessage, t string) json.RawMessage {
	i := bytes.IndexByte(result, '{')
	if i < 0 {
		return result
	}
	out := make([]byte, 0, len(result)+len(t)+18)
	out = append(out, result[:i+1]...)
	out = append(out, `"resultType":"`...)
	out = append(out, t...)
	out = append(out, '"')
	if len(bytes.TrimSpace(result[i+1:])) > 1 {
		out = append(out, ',')
	}
	return append(out, result[i+1:]...)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// isModern reports whether the request ctx belongs to is of the stateless
// revision.
func isModern(ctx context.Context) bool {
	e, _ := ctx.Value(eraKey{}).(era)
	return e.modern
}

// removedMethods are the methods the stateless revision no longer has: a
// request of that revision for one of them is an unknown method.
var removedMethods = map[string]bool{protocol.MethodInitialize: true, protocol.MethodPing: true, protocol.MethodTasksResult: true, protocol.MethodTasksList: true}

// missingTasksCapability is the error for a Tasks method from a client
// that did not declare the extension on that request.
func missingTasksCapability(method string) *protocol.WireError {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{protocol.ExtensionTasks: struct{}{}}}})
	return &protocol.WireError{Code: protocol.CodeMissingRequiredClientCapability,
		Message: "Missing required client capability: " + method + " needs the " + protocol.ExtensionTasks +
			" extension in this request's clientCapabilities.extensions",
		Data: data}
}
