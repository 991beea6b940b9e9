package daemon_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
)

// TestCaptureWired posts a batch to a real daemon and reads the capture
// settings back: the daemon serves POST /events and GET /capture/config.
func TestCaptureWired(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	batch := apitype.EventBatch{Events: []apitype.Event{
		{Kind: "log", TS: 1_700_000_000_000, TabID: 1, PageURL: "http://localhost:3000/", Level: "warn", Message: "low stock"},
		{Kind: "log", TS: 1_700_000_000_000, TabID: 1, PageURL: "http://localhost:3000/", Level: "loud"},
	}}
	code, body := d.Post(t, "/events", nil, batch)
	var ack apitype.EventsAck
	if err := json.Unmarshal(body, &ack); code != 200 || err != nil {
		t.Fatalf("POST /events: got %d %s", code, body)
	}
	if ack.Accepted != 1 || len(ack.Rejected) != 1 || ack.Rejected[0].Index != 1 || ack.ConfigVersion != 1 {
		t.Errorf("got %+v, want the warning accepted and the bad level rejected under config version 1", ack)
	}
	req, _ := http.NewRequest(http.MethodGet, d.URL+"/capture/config", nil)
	req.Header.Set("Authorization", "Bearer "+d.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var cfg apitype.CaptureConfig
	if err := json.Unmarshal(b, &cfg); resp.StatusCode != 200 || err != nil || cfg.Version != 1 || !cfg.RedactHeaders {
		t.Errorf("GET /capture/config: got %d %s, want version 1 with redaction on", resp.StatusCode, b)
	}
}
