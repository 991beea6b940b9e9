package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extcontract"
)

// Extension speaks the extension's side of the daemon's HTTP API, as curl
// would, under one instance name.
type Extension struct {
	d        *Daemon
	instance string
	contract string // the contract version its polls send
}

// Extension returns a scripted extension instance of d, built with the
// daemon's contract.
func (d *Daemon) Extension(instance string) *Extension {
	return &Extension{d: d, instance: instance, contract: extcontract.Version}
}

// Built returns x as an extension built with contract version v ("": one
// older than the contract check, which sends none).
func (x *Extension) Built(v string) *Extension {
	c := *x
	c.contract = v
	return &c
}

// pollURL is the URL of a long-poll of waitMS.
func (x *Extension) pollURL(waitMS int) string {
	u := fmt.Sprintf("%s/pending-queries?wait_ms=%d", x.d.URL, waitMS)
	if x.contract != "" {
		u += "&contract=" + x.contract
	}
	return u
}

// Poll long-polls GET /pending-queries for up to waitMS.
func (x *Extension) Poll(t testing.TB, waitMS int) []apitype.PendingQuery {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, x.pollURL(waitMS), nil)
	req.Header.Set("Authorization", "Bearer "+x.d.Token)
	req.Header.Set(apitype.HeaderExtensionInstance, x.instance)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	defer resp.Body.Close()
	var pq apitype.PendingQueries
	if err := json.NewDecoder(resp.Body).Decode(&pq); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("poll: HTTP %d, %v", resp.StatusCode, err)
	}
	return pq.Queries
}

// PollUntil polls until it has received n commands, for up to 10 s.
func (x *Extension) PollUntil(t testing.TB, n int) []apitype.PendingQuery {
	t.Helper()
	var got []apitype.PendingQuery
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		got = append(got, x.Poll(t, 2000)...)
	}
	if len(got) != n {
		t.Fatalf("got %d commands, want %d", len(got), n)
	}
	return got
}

// Report posts a status for command id to POST /query-result, with result
// (JSON-encoded) and errMsg when set, and returns the HTTP status.
func (x *Extension) Report(t testing.TB, id, status string, result any, errMsg string) int {
	t.Helper()
	body := map[string]any{"correlation_id": id, "status": status}
	if result != nil {
		body["result"] = result
	}
	if errMsg != "" {
		body["error"] = errMsg
	}
	code, _ := x.d.Post(t, "/query-result", map[string]string{apitype.HeaderExtensionInstance: x.instance}, body)
	return code
}

// Hold keeps a long-poll open in the background, as the real extension does
// while it runs commands, so the daemon sees it present. Errors are ignored:
// the daemon may shut down under it.
func (x *Extension) Hold(waitMS int) {
	go func() {
		req, _ := http.NewRequest(http.MethodGet, x.pollURL(waitMS), nil)
		req.Header.Set("Authorization", "Bearer "+x.d.Token)
		req.Header.Set(apitype.HeaderExtensionInstance, x.instance)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
}

// Running takes command id as the real extension does with a slow command:
// receive it, acknowledge it with "pending", and keep a long-poll open so it
// stays present while the test builds its result.
func (x *Extension) Running(t testing.TB, id string) {
	t.Helper()
	if q := x.PollUntil(t, 1); q[0].CorrelationID != id {
		t.Fatalf("polled %s, want %s", q[0].CorrelationID, id)
	}
	if got := x.Report(t, id, "pending", nil, ""); got != http.StatusOK {
		t.Fatalf("pending: got %d, want 200", got)
	}
	x.Hold(20000)
}
