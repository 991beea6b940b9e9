package result_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/imaging/imagingtest"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// drawPost is a checked Done post for session id with one crop.
func drawPost(t *testing.T, id string) *annotate.Post {
	t.Helper()
	p := &annotate.Post{CorrelationID: id, URL: "http://localhost/", Viewport: annotate.Viewport{Width: 800, Height: 600},
		Annotations: []annotate.Annotation{{Note: "this", Rect: annotate.Rect{Width: 20, Height: 10},
			Crop: &annotate.Crop{Data: imagingtest.PNG(t, 20, 10), MIMEType: "image/png"}}}}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFinishDraw: a Done post completes its session with its crops stored
// under handles its agent, and only it, reads; a post the tracker refuses
// leaves no crop behind, whether the session had ended before (nothing is
// stored) or the tracker refuses the completion itself (what was stored is
// deleted again).
func TestFinishDraw(t *testing.T) {
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	store := output.New(output.Options{})
	k := result.NewKeeper(trk, store, zerolog.New(zerolog.NewTestWriter(t)))
	session := func() string {
		t.Helper()
		c, err := trk.Submit(tracker.Spec{Client: "alice", Prefix: "ann", Action: "draw_mode", External: true})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}

	id := session()
	p := drawPost(t, id)
	d, err := k.FinishDraw(p, time.Now())
	if err != nil || d.Crops != 1 || d.Session == nil || d.Command.State != tracker.StateComplete {
		t.Fatalf("Done: got %+v, %v; want the session complete with one crop", d, err)
	}
	h := p.Annotations[0].Screenshot.Handle
	if _, err := k.Content("alice", h); err != nil {
		t.Errorf("alice reading her crop: %v", err)
	}
	if _, err := k.Content("bob", h); !errors.Is(err, result.ErrUnknown) {
		t.Errorf("bob reading alice's crop: got %v, want ErrUnknown", err)
	}
	if _, err := k.FinishDraw(drawPost(t, id), time.Now()); !errors.Is(err, tracker.ErrFinal) {
		t.Errorf("a second Done: got %v, want ErrFinal", err)
	}

	ended := session()
	if _, err := k.FinishDraw(&annotate.Post{CorrelationID: ended, Cancelled: true}, time.Now()); err != nil {
		t.Fatal(err)
	}
	late := drawPost(t, ended)
	if _, err := k.FinishDraw(late, time.Now()); !errors.Is(err, tracker.ErrFinal) {
		t.Errorf("Done after Esc: got %v, want ErrFinal", err)
	}
	if _, err := store.Handle(annotate.CropHandle(ended, 0)); !errors.Is(err, output.ErrNotFound) {
		t.Errorf("the crop of a post for an ended session: got %v, want it never stored", err)
	}

	refused := session()
	trk.Close() // Get still answers; Complete refuses with ErrClosed
	if _, err := k.FinishDraw(drawPost(t, refused), time.Now()); !errors.Is(err, tracker.ErrClosed) {
		t.Errorf("Done while shutting down: got %v, want ErrClosed", err)
	}
	if _, err := store.Handle(annotate.CropHandle(refused, 0)); !errors.Is(err, output.ErrNotFound) {
		t.Errorf("the crop of a refused post: got %v, want it deleted again", err)
	}
}

// TestOpen: Open applies one rule to every id: a client's own command
// (its inline result stored on first read), nothing of another client's,
// and a command with no output says so.
func TestOpen(t *testing.T) {
	k, trk, _, c := keeper(t)
	if _, err := k.Open("agent", c.ID); !errors.As(err, new(*result.NotCompleteError)) {
		t.Errorf("a pending command: got %v, want NotCompleteError", err)
	}
	if _, err := k.Report("ext", post(c.ID, "complete", `{"value":"small"}`)); err != nil {
		t.Fatal(err)
	}
	if text, err := k.Content("agent", c.ID); err != nil || text != "small" {
		t.Errorf("the owner reading an inline result: got %q, %v", text, err)
	}
	if got, _ := trk.Get(c.ID); !got.Read {
		t.Error("reading the output did not mark the result read")
	}
	for _, id := range []string{c.ID, "exec_nope"} {
		if _, err := k.Content("other", id); !errors.Is(err, result.ErrUnknown) {
			t.Errorf("another client reading %s: got %v, want ErrUnknown", id, err)
		}
	}
}
