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
	d, err := s.cfg.Results.FinishDraw(&p, time.Now())
	if err == nil && d.Session != nil {
		s.cfg.Annotations.Add(d.Command.Client, *d.Session)
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
	cmd := d.Command
	s.cfg.Log.Info().Str("correlation_id", cmd.ID).Str("state", string(cmd.State)).Int("annotations", len(p.Annotations)).Int("crops", d.Crops).Msg("draw mode finished")
	return c.JSON(http.StatusOK, drawModeAnswer{CorrelationID: cmd.ID, State: string(cmd.State), Count: len(p.Annotations)})
}
