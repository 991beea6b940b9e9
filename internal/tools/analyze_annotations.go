package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Draw mode (seed 004): the agent asks the user to mark up the page. The
// session is an External ann_ command that POST /draw-mode/complete
// finishes; a draw_mode_show command asks the extension for the overlay.

// annotationModes is analyze's annotations mode.
func annotationModes() []action {
	a := handler("analyze", "annotations", "the user's marks; wait:true: draw mode", (*Tools).annotations)
	a.Prefix, a.UserDriven = "ann", true
	a.present, a.command = (*Tools).presentSession, "draw_mode"
	return []action{a}
}

// drawActions is interact's draw_mode_start: analyze annotations with wait.
func drawActions() []action {
	a := handler("interact", "draw_mode_start", "starts draw mode", func(t *Tools, ctx context.Context, client string, a startArgs) (*annotationsView, error) {
		return t.annotations(ctx, client, annArgs{Wait: true, drawArgs: drawArgs{startArgs: a}})
	})
	a.Prefix, a.UserDriven = "ann", true
	return []action{a}
}

// startArgs are what draw_mode_start takes: the instruction line the user
// reads, and whether the user draws rectangles or picks elements.
type startArgs struct {
	Instructions string `json:"instructions,omitempty"`
	Mode         string `json:"mode,omitempty" enum:"draw,pick"`
	pageArgs
	forceArg
}

func (a startArgs) check() error { return drawArgs{startArgs: a}.check() }

// drawArgs are what the overlay is told.
type drawArgs struct {
	startArgs
	MaxItems int `json:"max_items,omitempty" min:"0" max:"20"`
}

type annArgs struct {
	Wait bool `json:"wait,omitempty"`
	drawArgs
}

// maxInstructions bounds the instruction line the overlay shows.
const maxInstructions = 300

func (a drawArgs) check() error {
	if len(a.Instructions) > maxInstructions {
		return mcp.Errorf("invalid_arguments", fmt.Sprintf("keep instructions under %d characters: one line the user reads", maxInstructions),
			"instructions are %d characters long", len(a.Instructions))
	}
	return nil
}

func (a annArgs) check() error { return a.drawArgs.check() }

// showParams are the params of the draw_mode_show command the extension gets.
type showParams struct {
	CorrelationID string `json:"correlation_id"`
	Instructions  string `json:"instructions"`
	Mode          string `json:"mode"`
	MaxItems      int    `json:"max_items"`
	TabID         *int64 `json:"tab_id,omitempty"`
	Force         bool   `json:"force,omitempty"` // on another agent's tab
}

// annotationsView is the answer of analyze annotations and draw_mode_start.
type annotationsView struct {
	CorrelationID string            `json:"correlation_id,omitempty"`
	Message       string            `json:"message"`
	Result        *annotate.Session `json:"result,omitempty"`
	Status        string            `json:"status"`
}

func (v *annotationsView) command() string { return v.CorrelationID }

// annotations serves analyze annotations: without wait, the client's
// latest finished session; with wait, an unread finished session of the client at
// once, or a new session waiting for the user.
func (t *Tools) annotations(_ context.Context, client string, a annArgs) (*annotationsView, error) {
	if !a.Wait {
		s, ok := t.d.Annotations.Latest(tracker.ClientName(client))
		if !ok {
			return &annotationsView{Status: "none",
				Message: `No finished draw-mode session of yours. Start one with analyze({what:"annotations", wait:true}): the user marks the page and presses Done.`}, nil
		}
		return &annotationsView{Status: "complete", CorrelationID: s.CorrelationID, Result: &s,
			Message: sessionMessage(s, "Your latest finished draw-mode session.")}, nil
	}
	if s, ok := t.d.Annotations.TakeUnread(client); ok {
		return &annotationsView{Status: "complete", CorrelationID: s.CorrelationID, Result: &s,
			Message: sessionMessage(s, `A session the user finished that you had not read; call again with wait:true for a new one.`)}, nil
	}
	if a.Mode == "" {
		a.Mode = "draw"
	}
	if a.MaxItems == 0 {
		a.MaxItems = annotate.MaxItems
	}
	ann, err := t.d.Tracker.Submit(tracker.Spec{Client: client, Prefix: "ann", Action: "draw_mode", External: true})
	if err != nil {
		return nil, submitError(err)
	}
	p, _ := json.Marshal(showParams{CorrelationID: ann.ID, Instructions: a.Instructions, Mode: a.Mode, MaxItems: a.MaxItems, TabID: a.TabID, Force: a.Force})
	show, err := t.d.Tracker.Submit(tracker.Spec{Client: client, Prefix: "draw", Action: "draw_mode_show", Params: p})
	if err != nil {
		t.d.Tracker.CancelExternal(ann.ID, "the overlay could not be asked for: "+err.Error())
		return nil, submitError(err)
	}
	go t.watchShow(client, ann.ID, show.ID)
	return &annotationsView{Status: "waiting_for_user", CorrelationID: ann.ID,
		Message: fmt.Sprintf(`The user now sees the draw-mode overlay. Call observe({what:"command_result", correlation_id:%q}): it waits up to 55 s; `+
			`on "pending" call it again. The user has 10 minutes.`, ann.ID)}, nil
}

// watchShow ends the session ann as cancelled when its overlay could not be
// shown (no extension, a tab that cannot be scripted), so the agent does
// not wait 10 minutes for a user who sees nothing. The tracker's timers
// bound the wait.
func (t *Tools) watchShow(client, ann, show string) {
	c, err := t.d.Tracker.Wait(context.Background(), client, show)
	if err != nil || c.State == tracker.StateComplete {
		return
	}
	msg := "the draw-mode overlay could not be shown: " + c.Error
	if h := hints[c.Reason]; h != "" && c.Reason != tracker.ReasonCommandError {
		msg += " " + h
	}
	if _, err := t.d.Tracker.CancelExternal(ann, msg); err == nil {
		t.d.Log.Info().Str("correlation_id", ann).Str("reason", c.Reason).Msg("draw mode cancelled: overlay not shown")
	}
}

// submitError is the agent's error for a refused Submit.
func submitError(err error) error {
	if errors.Is(err, tracker.ErrQueueFull) {
		return mcp.Errorf("queue_full",
			"wait for running commands with observe({what:\"completed_commands\", wait_ms:10000}) or cancel some with interact({action:\"cancel\", correlation_id}), then retry",
			"%v", err)
	}
	return err
}

// cropHint tells the agent how to see the annotations' cropped screenshots.
const cropHint = `Each annotation's screenshot.handle is a crop of what it marks: see it with observe({what:"command_result", correlation_id:<handle>}).`

// presentSession tells the agent reading a finished session how to see its
// crops.
func (t *Tools) presentSession(c tracker.Command, v *commandView) {
	if bytes.Contains(c.Result, []byte(`"screenshot":{`)) {
		v.Message = cropHint
	}
}

// sessionMessage is msg, with cropHint when session s has crops.
func sessionMessage(s annotate.Session, msg string) string {
	for _, a := range s.Annotations {
		if a.Screenshot != nil {
			return msg + " " + cropHint
		}
	}
	return msg
}
