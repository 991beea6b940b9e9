package result

import (
	"encoding/json"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Draw is a draw-mode post as FinishDraw applied it.
type Draw struct {
	// Command is the session's command, terminal.
	Command tracker.Command
	// Session is what the user finished, with the crops' handles; nil
	// when the post cancelled the session.
	Session *annotate.Session
	// Crops is how many crops were stored.
	Crops int
}

// FinishDraw applies the user's draw-mode post p, already checked
// (annotate.Post.Check), to its session, finished at now. A cancelled post
// cancels the session. Otherwise p's crops are stored, each owned by the
// session's client, their handles left in p's annotations, and the session
// completes with them; every agent waiting on it wakes at once. When the
// tracker refuses, the crops stored are deleted again, so nothing outlives
// a refused post. Errors are the tracker's: tracker.ErrUnknownCommand (also
// for a command that is no draw-mode session), tracker.ErrFinal,
// tracker.ErrClosed.
func (k *Keeper) FinishDraw(p *annotate.Post, now time.Time) (Draw, error) {
	cmd, err := k.trk.Get(p.CorrelationID)
	if err == nil && !cmd.External {
		err = tracker.ErrUnknownCommand
	}
	if err != nil {
		return Draw{}, err
	}
	if p.Cancelled {
		reason := p.Reason
		if reason == "" {
			reason = "no reason given"
		}
		cmd, err = k.trk.CancelExternal(p.CorrelationID, "the user cancelled draw mode: "+reason)
		return Draw{Command: cmd}, err
	}
	kept := k.keepCrops(cmd, p)
	sess := annotate.Session{CorrelationID: p.CorrelationID, URL: p.URL, Title: p.Title, Viewport: p.Viewport,
		Count: len(p.Annotations), Annotations: p.Annotations, FinishedAt: now.UTC()}
	enc, _ := json.Marshal(sess)
	if cmd, err = k.trk.Complete(p.CorrelationID, enc); err != nil {
		for _, h := range kept { // refused: its crops must not outlive the post
			k.store.Delete(h)
		}
		return Draw{}, err
	}
	return Draw{Command: cmd, Session: &sess, Crops: len(kept)}, nil
}

// keepCrops stores the crops of p, a post for the session cmd, owned by
// cmd's client, and returns the handles stored. A session already ended
// stores nothing (Complete refuses it next).
func (k *Keeper) keepCrops(cmd tracker.Command, p *annotate.Post) []string {
	return p.KeepCrops(func(h, data string) error {
		switch {
		case cmd.State.Terminal():
			return tracker.ErrFinal
		case k.store == nil:
			return ErrNoStore
		}
		if _, err := k.store.Add(h, data); err != nil {
			return err
		}
		k.own(h, cmd.Client)
		return nil
	})
}
