package server_test

import (
	"testing"
)

// BenchmarkQueryResult times what the daemon does for the extension's
// POST /query-result of a small complete result (issue 33: the last hop
// of every command), over loopback HTTP as the extension sends it: sealed,
// signed, opened, applied to the tracker, the answer signed. Each command
// is queued and delivered outside the timer.
//
//	go test ./internal/server -run '^$' -bench QueryResult -cpuprofile /tmp/qr.prof
func BenchmarkQueryResult(b *testing.B) {
	e := newEnv(b)
	ext := e.signer(e.pairExtension(b), "i1")
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		id := e.deliver(b, ext)
		b.StartTimer()
		x := ext.sendSealed(b, "POST", "/query-result", `{"correlation_id":"`+id+`","status":"complete","result":{"value":"Bench","type":"string"}}`, nil)
		if x.status != 200 {
			b.Fatalf("POST /query-result: got %d %s, want 200", x.status, x.body)
		}
	}
}
