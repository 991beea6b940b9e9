package daemon

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
)

// BenchCycle runs one full async cycle of scripts/bench's cycle row through
// do, which sends one request (method, path, the agent's client id or "",
// body) and returns its 200 answer's body: submit (POST /mcp interact
// execute_js), poll (GET /pending-queries, which answers at once), result
// (POST /query-result), retrieve (POST /mcp observe command_result). It
// returns each request's time, in that order, and fails b when an answer
// is not what the cycle expects. BenchmarkCycle (over loopback HTTP) and
// BenchmarkCycleHandlers (the handler alone) share it.
func BenchCycle(b testing.TB, do func(method, path, client string, body []byte) []byte) [4]time.Duration {
	submit := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"document.title"}}}`)
	t0 := time.Now()
	var sub struct {
		Result struct {
			StructuredContent struct {
				CorrelationID string `json:"correlation_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(do("POST", "/mcp", "bench-cycle", submit), &sub); err != nil || sub.Result.StructuredContent.CorrelationID == "" {
		b.Fatalf("submit: no correlation id (%v)", err)
	}
	id := sub.Result.StructuredContent.CorrelationID
	t1 := time.Now()
	var pq apitype.PendingQueries
	if err := json.Unmarshal(do("GET", "/pending-queries?wait_ms=5000&contract="+extcontract.Version, "", nil), &pq); err != nil ||
		len(pq.Queries) != 1 || pq.Queries[0].CorrelationID != id {
		b.Fatalf("poll: got %+v (%v), want %s", pq, err, id)
	}
	t2 := time.Now()
	do("POST", "/query-result", "", []byte(`{"correlation_id":"`+id+`","status":"complete","result":{"value":"Home Page"}}`))
	t3 := time.Now()
	out := do("POST", "/mcp", "bench-cycle", []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"`+id+`"}}}`))
	t4 := time.Now()
	if !bytes.Contains(out, []byte(`"status":"complete"`)) {
		b.Fatalf("retrieve: %.300s", out)
	}
	return [4]time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3)}
}
