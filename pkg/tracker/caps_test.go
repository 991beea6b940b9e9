package tracker_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestGlobalActiveCap is finding 9 of issue 7: fresh client names cannot
// queue commands without bound.
func TestGlobalActiveCap(t *testing.T) {
	tr, _ := newTracker(t, tracker.Options{MaxActiveTotal: 10})
	var first tracker.Command
	for i := range 10 {
		c := submit(t, tr, tracker.Spec{Client: fmt.Sprintf("client-%d", i), External: i%3 == 0})
		if i == 0 {
			first = c
		}
	}
	_, err := tr.Submit(tracker.Spec{Client: "client-new"})
	if !errors.Is(err, tracker.ErrQueueFull) {
		t.Fatalf("11th across clients: got %v, want %v", err, tracker.ErrQueueFull)
	}
	for _, want := range []string{"10 unfinished commands across all clients", "--max-active-total", "wait"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := tr.Cancel(first.Client, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Submit(tracker.Spec{Client: "client-new"}); err != nil {
		t.Errorf("after one finished: got %v, want room", err)
	}
}

// TestGlobalParamBytesCap: the parameters unfinished commands hold are
// bounded across clients (80 scripts of 8 MB took a daemon to 720 MB), the
// error names the limit, and finishing a command frees its share.
func TestGlobalParamBytesCap(t *testing.T) {
	const mb = 1 << 20
	tr, _ := newTracker(t, tracker.Options{})
	script, _ := json.Marshal(map[string]string{"script": strings.Repeat("x", 8*mb)})
	var accepted []tracker.Command
	var err error
	for i := range 80 {
		var c tracker.Command
		c, err = tr.Submit(tracker.Spec{Client: fmt.Sprintf("c%d", i), Params: script})
		if err != nil {
			break
		}
		accepted = append(accepted, c)
	}
	if len(accepted) != 7 || !errors.Is(err, tracker.ErrQueueFull) {
		t.Fatalf("got %d accepted then %v, want 7 (56 MB of 64) then ErrQueueFull", len(accepted), err)
	}
	for _, want := range []string{"across all clients", "64.0 MB", "--max-queued-mb"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got := tr.Stats().ParamBytes; got != int64(7*len(script)) {
		t.Errorf("Stats.ParamBytes: got %d, want %d", got, 7*len(script))
	}

	// Finishing frees the share and drops the parameters.
	d := accepted[0]
	if cs := poll(t, tr, "ext", 1); len(cs) != 1 || cs[0].ID != d.ID {
		t.Fatalf("poll: got %v", ids(cs))
	}
	if _, err := tr.Report("ext", d.ID, tracker.StateComplete, json.RawMessage(`{"value":1}`), ""); err != nil {
		t.Fatal(err)
	}
	if c, err := tr.Get(d.ID); err != nil || c.Params != nil {
		t.Errorf("finished command: got params of %d bytes, %v; want them dropped", len(c.Params), err)
	}
	if _, err := tr.Submit(tracker.Spec{Client: "late", Params: script}); err != nil {
		t.Errorf("after one finished: got %v, want room", err)
	}
	for _, c := range accepted[1:] {
		tr.Cancel(c.Client, c.ID)
	}
	if got := tr.Stats().ParamBytes; got != int64(len(script)) {
		t.Errorf("after cancelling: ParamBytes %d, want %d (the one still queued)", got, len(script))
	}

	_, err = tr.Submit(tracker.Spec{Params: json.RawMessage(`"` + strings.Repeat("y", 65*mb) + `"`)})
	if !errors.Is(err, tracker.ErrQueueFull) || !strings.Contains(err.Error(), "send less") {
		t.Errorf("one command over the whole cap: got %v, want ErrQueueFull saying to send less", err)
	}
}
