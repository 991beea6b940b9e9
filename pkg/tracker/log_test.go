package tracker_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	tr, clk := newTracker(t, tracker.Options{Logger: zerolog.New(&buf)})
	c := submit(t, tr, tracker.Spec{Client: "s", Action: "navigate"})
	clk.Advance(30 * time.Second)

	var line struct {
		ID     string `json:"correlation_id"`
		Client string `json:"client"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	want := struct{ ID, Client, Reason string }{c.ID, "s", tracker.ReasonExtensionNoResponse}
	if got := (struct{ ID, Client, Reason string }{line.ID, line.Client, line.Reason}); got != want {
		t.Errorf("logged %+v, want %+v", got, want)
	}
}
