package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/client"
)

// codeUnknownCorrelation is the tool error code the daemon gives for a
// correlation id it does not know.
const codeUnknownCorrelation = "unknown_correlation_id"

// CodeDaemonRestartedTool is the tool error code the bridge gives instead,
// when the id was issued before the answering daemon started.
const CodeDaemonRestartedTool = "daemon_restarted"

// restartNotice returns reply's body, except when the daemon answered a
// tool call naming a correlation id with unknown_correlation_id and the id
// was issued before that daemon started: the daemon restarted since (the
// call may even have been retried across the restart), and the agent is
// told so instead of being told the result expired.
func (b *Bridge) restartNotice(m *message, reply client.Reply) []byte {
	id := m.Params.Arguments.CorrelationID
	if reply.Body == nil || reply.DaemonStarted.IsZero() || m.Method != "tools/call" || id == "" ||
		!bytes.Contains(reply.Body, []byte(codeUnknownCorrelation)) {
		return reply.Body
	}
	issued, ok := ulidTime(id)
	if !ok || !issued.Before(reply.DaemonStarted) {
		return reply.Body
	}
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  struct {
			StructuredContent map[string]json.RawMessage `json:"structuredContent"`
			IsError           bool                       `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(reply.Body, &resp) != nil || !resp.Result.IsError {
		return reply.Body
	}
	var te struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(resp.Result.StructuredContent["error"], &te) != nil || te.Code != codeUnknownCorrelation {
		return reply.Body
	}
	notice := map[string]any{
		"code": CodeDaemonRestartedTool,
		"message": fmt.Sprintf("the gasoline daemon restarted at %s, after %s was queued (%s); commands queued before a restart are gone, and their results with them",
			reply.DaemonStarted.Local().Format(time.TimeOnly), id, issued.Local().Format(time.TimeOnly)),
		"hint": "check the page to see whether the command ran, then submit it again if it is still needed",
	}
	structured := make(map[string]any, len(resp.Result.StructuredContent))
	for k, v := range resp.Result.StructuredContent {
		structured[k] = v // the daemon's "async" status stays
	}
	structured["error"] = notice
	structured["correlation_id"] = id
	body, err := marshalCompact(structured)
	if err != nil {
		return reply.Body
	}
	text, _ := json.Marshal(string(body))
	var out bytes.Buffer
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(resp.ID)
	out.WriteString(`,"result":{"content":[{"type":"text","text":`)
	out.Write(text)
	out.WriteString(`}],"structuredContent":`)
	out.Write(body)
	out.WriteString(`,"isError":true}}`)
	b.log.Info().Str("correlation_id", id).Time("daemon_started", reply.DaemonStarted).Msg("command predates a daemon restart")
	return out.Bytes()
}

func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ulidTime returns the creation time of a correlation id, <prefix>_<ULID>:
// the ULID's first 10 characters are its milliseconds since the epoch in
// Crockford base32.
func ulidTime(id string) (time.Time, bool) {
	i := strings.LastIndexByte(id, '_')
	u := id[i+1:]
	if len(u) != 26 {
		return time.Time{}, false
	}
	var ms uint64
	for _, c := range u[:10] {
		d := strings.IndexRune("0123456789ABCDEFGHJKMNPQRSTVWXYZ", c)
		if d < 0 {
			return time.Time{}, false
		}
		ms = ms<<5 | uint64(d)
	}
	if ms >= 1<<48 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(ms)), true
}
