package tracker_test

import (
	"context"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestOnlyTheOwnerMarksRead checks that a client reading another client's
// result, by Result or Wait, leaves it unread for its owner: the owner is
// still reminded of it and it still expires as unread.
func TestOnlyTheOwnerMarksRead(t *testing.T) {
	reads := []struct {
		name string
		read func(tr *tracker.Tracker, client, id string) (tracker.Command, error)
	}{
		{"Result", func(tr *tracker.Tracker, client, id string) (tracker.Command, error) { return tr.Result(client, id) }},
		{"Wait", func(tr *tracker.Tracker, client, id string) (tracker.Command, error) {
			return tr.Wait(context.Background(), client, id)
		}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			tr, clk := newTracker(t, tracker.Options{})
			c := deliver(t, tr, tracker.Spec{Client: "owner"})
			report(t, tr, c.ID, tracker.StateComplete, `1`)

			got, err := r.read(tr, "other", c.ID)
			if err != nil || got.State != tracker.StateComplete || got.Read {
				t.Fatalf("read by another client: got %v read=%v, %v; want complete, unread", got.State, got.Read, err)
			}
			if _, ready := tr.Unread("owner"); len(ready) != 1 {
				t.Errorf("owner's unread after another client read: got %v, want [%s]", ids(ready), c.ID)
			}
			if got, _ := r.read(tr, "owner", c.ID); !got.Read {
				t.Errorf("read by the owner: got read=false, want true")
			}
			if _, ready := tr.Unread("owner"); len(ready) != 0 {
				t.Errorf("owner's unread after reading: got %v, want none", ids(ready))
			}
			clk.Advance(tracker.DefaultResultTTL)
			if f := tr.List("owner").Failed; len(f) != 0 {
				t.Errorf("a read result expired into the ring: %+v", f)
			}
		})
	}

	t.Run("failed ring", func(t *testing.T) {
		tr, _ := newTracker(t, tracker.Options{})
		c := deliver(t, tr, tracker.Spec{Client: "owner"})
		if _, err := tr.Report("ext", c.ID, tracker.StateError, nil, "thrown"); err != nil {
			t.Fatal(err)
		}
		tr.Result("other", c.ID)
		if f := tr.List("owner").Failed; len(f) != 1 || f[0].Read {
			t.Errorf("ring entry after another client read: got %+v, want unread", f)
		}
	})
}

// TestAttachmentAndExternal checks the fields the daemon routes on: the
// attachment of a report stays with the command (not in the failed ring),
// a refused report attaches nothing, and External is part of the command.
func TestAttachmentAndExternal(t *testing.T) {
	type handle struct{ id string }
	tr, clk := newTracker(t, tracker.Options{ResultTTL: time.Second})

	c := deliver(t, tr, tracker.Spec{})
	got, err := tr.ReportWith("ext", c.ID, tracker.StateComplete, nil, handle{"h1"}, "")
	if err != nil || got.Attachment != (handle{"h1"}) {
		t.Fatalf("ReportWith: got attachment %v, %v; want %v", got.Attachment, err, handle{"h1"})
	}
	if again, err := tr.ReportWith("ext", c.ID, tracker.StateComplete, nil, handle{"h2"}, ""); err == nil || again.Attachment != (handle{"h1"}) {
		t.Errorf("a second report: got attachment %v, %v; want it refused and %v kept", again.Attachment, err, handle{"h1"})
	}
	clk.Advance(time.Second) // unread: it moves to the ring as expired
	if x := get(t, tr, c.ID); x.State != tracker.StateExpired || x.Attachment != nil {
		t.Errorf("ring entry: got %v with attachment %v, want expired with none", x.State, x.Attachment)
	}

	u := submit(t, tr, tracker.Spec{External: true})
	q := submit(t, tr, tracker.Spec{})
	if !u.External || q.External || !get(t, tr, u.ID).External {
		t.Errorf("External: got %v and %v, want true for the External spec only", u.External, q.External)
	}
}
