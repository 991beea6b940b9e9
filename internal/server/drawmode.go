package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/labstack/echo/v4"
)

// MaxDrawBody bounds a POST /draw-mode/complete body: the annotations'
// cropped screenshots (annotate.MaxCropsBytes, 13.4 MB as base64) and
// their text, which annotate's caps keep small. It matches the extension's
// own cap on a body (extension/daemon.js MAX_BODY_BYTES).
const MaxDrawBody = "16M"

// drawModeAnswer is the answer to a draw-mode post.
type drawModeAnswer struct {
	CorrelationID string `json:"correlation_id"`
	State         string `json:"state"`
	Count         int    `json:"count"`
}

// drawModeComplete finishes a draw-mode session with the annotations the
// user made, or cancels it: every agent waiting on it wakes at once.
func (s *Server) drawModeComplete(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return readError(err)
	}
	var p annotate.Post
	if err := json.Unmarshal(body, &p); err != nil {
		return apiError(http.StatusBadRequest, "invalid_json", "invalid draw-mode post: "+err.Error(),
			`send {"correlation_id", "url", "viewport", "annotations":[{"note", "rect":{"x","y","width","height"}, "element"?}]} or {"correlation_id", "cancelled":true, "reason"}`)
	}
	if err := p.Check(); err != nil {
		return apiError(http.StatusBadRequest, "invalid_annotations", err.Error(), "fix the post; nothing was recorded")
	}
	var kept []string // crop handles stored
	cmd, err := s.cfg.Tracker.Get(p.CorrelationID)
	if err == nil && !cmd.External {
		err = tracker.ErrUnknownCommand
	}
	if err == nil {
		if p.Cancelled {
			reason := p.Reason
			if reason == "" {
				reason = "no reason given"
			}
			cmd, err = s.cfg.Tracker.CancelExternal(p.CorrelationID, "the user cancelled draw mode: "+reason)
		} else {
			kept = s.keepCrops(cmd, &p)
			sess := annotate.Session{CorrelationID: p.CorrelationID, URL: p.URL, Title: p.Title, Viewport: p.Viewport,
				Count: len(p.Annotations), Annotations: p.Annotations, FinishedAt: time.Now().UTC()}
			enc, _ := json.Marshal(sess)
			if cmd, err = s.cfg.Tracker.Complete(p.CorrelationID, enc); err == nil {
				s.cfg.Annotations.Add(cmd.Client, sess)
			} else {
				for _, h := range kept { // refused: its crops must not outlive the post
					s.cfg.Results.Store().Delete(h)
				}
				kept = nil
			}
		}
	}
	switch {
	case errors.Is(err, tracker.ErrClosed):
		return apiError(http.StatusServiceUnavailable, "shutting_down", "the daemon is shutting down", "the session is lost; the agent must start a new one")
	case errors.Is(err, tracker.ErrUnknownCommand):
		return apiError(http.StatusNotFound, "unknown_session", err.Error(), "the agent's draw-mode session no longer exists; drop these annotations")
	case errors.Is(err, tracker.ErrFinal):
		return apiError(http.StatusConflict, "session_final", err.Error(), "the session already ended (done, cancelled or expired after 10 minutes); drop these annotations")
	case err != nil:
		return err
	}
	s.cfg.Log.Info().Str("correlation_id", cmd.ID).Str("state", string(cmd.State)).Int("annotations", len(p.Annotations)).Int("crops", len(kept)).Msg("draw mode finished")
	return c.JSON(http.StatusOK, drawModeAnswer{CorrelationID: cmd.ID, State: string(cmd.State), Count: len(p.Annotations)})
}

// keepCrops stores the cropped screenshots of p, a post for the pending
// session cmd, in the large-output store, leaving handles in p's
// annotations, and returns the handles stored. A session already ended
// stores nothing (Complete refuses it next).
func (s *Server) keepCrops(cmd tracker.Command, p *annotate.Post) []string {
	store := s.cfg.Results.Store()
	put := func(h, data string) error {
		if store == nil {
			return errors.New("this daemon keeps no output store")
		}
		_, err := store.Add(h, data)
		return err
	}
	if cmd.State.Terminal() {
		put = func(string, string) error { return tracker.ErrFinal }
	}
	return p.KeepCrops(put)
}
