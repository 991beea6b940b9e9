package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/labstack/echo/v4"
)

func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, s.cfg.Health())
}

// mcp relays one JSON-RPC message to the MCP server.
func (s *Server) mcp(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return readError(err)
	}
	client := c.Request().Header.Get(apitype.HeaderClient)
	if client == "" {
		client = "direct"
	}
	resp := s.cfg.MCP.Handle(c.Request().Context(), client, body)
	if resp == nil {
		return c.NoContent(http.StatusAccepted)
	}
	return c.JSONBlob(http.StatusOK, resp)
}

func readError(err error) error {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return he
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return echo.ErrStatusRequestEntityTooLarge
	}
	return apiError(http.StatusBadRequest, "bad_body", "reading request body: "+err.Error(), "")
}

func instanceOf(c echo.Context) string {
	if v := c.Request().Header.Get(apitype.HeaderExtensionInstance); v != "" {
		return v
	}
	if v := c.QueryParam("instance"); v != "" {
		return v
	}
	return "default"
}

// pendingQueries is the extension's long-poll: it answers at once with any
// queued commands, else holds up to wait_ms (≤ 25 s) and answers the moment
// one is queued.
func (s *Server) pendingQueries(c echo.Context) error {
	wait := time.Duration(0)
	if v := c.QueryParam("wait_ms"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return apiError(http.StatusBadRequest, "invalid_wait", "wait_ms must be a non-negative integer",
				fmt.Sprintf("use 0 to %d", apitype.MaxPollWait.Milliseconds()))
		}
		wait = min(time.Duration(n)*time.Millisecond, apitype.MaxPollWait)
	}
	if err := c.Request().Context().Err(); err != nil {
		return err // the extension hung up; deliver nothing to it
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), wait)
	defer cancel()
	cmds, err := s.cfg.Tracker.Poll(ctx, instanceOf(c), 0)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		if errors.Is(err, tracker.ErrClosed) {
			return apiError(http.StatusServiceUnavailable, "shutting_down", "the daemon is shutting down", "reconnect in a moment")
		}
		return err
	}
	out := apitype.PendingQueries{Queries: make([]apitype.PendingQuery, 0, len(cmds))}
	for _, cmd := range cmds {
		out.Queries = append(out.Queries, apitype.PendingQuery{
			CorrelationID: cmd.ID,
			Type:          "browser_action",
			Action:        cmd.Action,
			Params:        cmd.Params,
			TimeoutMS:     cmd.Timeout.Milliseconds(),
			CreatedAt:     cmd.CreatedAt,
		})
	}
	return c.JSON(http.StatusOK, out)
}

// queryResult applies an extension's report on a command.
func (s *Server) queryResult(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return readError(err)
	}
	var qr apitype.QueryResult
	if err := json.Unmarshal(body, &qr); err != nil {
		return apiError(http.StatusBadRequest, "invalid_json", "invalid query result: "+err.Error(),
			`send {"correlation_id", "status": "pending|complete|error|timeout", "result"?, "error"?}`)
	}
	if qr.CorrelationID == "" {
		return apiError(http.StatusBadRequest, "invalid_result", "correlation_id is required", "")
	}
	var undo func()
	switch {
	case qr.Status == string(tracker.StateComplete) && s.cfg.IngestResult != nil && len(qr.Result) > 0:
		// Only for a command still waiting for its result, so a late or
		// unknown report stores nothing.
		if cur, err := s.cfg.Tracker.Get(qr.CorrelationID); err == nil && cur.State == tracker.StatePending {
			qr.Result, undo = s.cfg.IngestResult(qr.CorrelationID, qr.Result)
		}
	case len(qr.Result) > MaxFailedResult:
		qr.Result, _ = json.Marshal(map[string]any{
			"dropped": true, "bytes": len(qr.Result),
			"note": fmt.Sprintf("the result posted with status %q was %d bytes; only complete results above %d bytes are kept", qr.Status, len(qr.Result), MaxFailedResult),
		})
	}
	cmd, err := s.cfg.Tracker.Report(instanceOf(c), qr.CorrelationID, tracker.State(qr.Status), qr.Result, qr.Error)
	if err != nil && undo != nil {
		undo() // refused: the stored output must not outlive this report
	}
	switch {
	case errors.Is(err, tracker.ErrClosed):
		return apiError(http.StatusServiceUnavailable, "shutting_down", "the daemon is shutting down", "post the result again once it is back")
	case errors.Is(err, tracker.ErrBadStatus):
		return apiError(http.StatusBadRequest, "invalid_status", err.Error(), "status is one of pending, complete, error, timeout")
	case errors.Is(err, tracker.ErrUnknownCommand):
		return apiError(http.StatusNotFound, "unknown_command", err.Error(), "drop this result; the command no longer exists")
	case errors.Is(err, tracker.ErrFinal):
		return apiError(http.StatusConflict, "command_final", err.Error(), "drop this result; the command already finished")
	case errors.Is(err, tracker.ErrNotDelivered):
		return apiError(http.StatusConflict, "not_delivered", err.Error(), "only commands received from /pending-queries can be reported")
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, apitype.QueryResultAck{CorrelationID: cmd.ID, State: string(cmd.State)})
}

func (s *Server) commands(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{
		"commands": s.cfg.Tracker.All(),
		"stats":    s.cfg.Tracker.Stats(),
	})
}

func (s *Server) shutdown(c echo.Context) error {
	if s.cfg.Shutdown == nil {
		return apiError(http.StatusNotImplemented, "not_supported", "this server cannot be shut down over HTTP", "")
	}
	go s.cfg.Shutdown()
	return c.JSON(http.StatusAccepted, map[string]string{"status": "shutting_down"})
}

func (s *Server) pairCode(c echo.Context) error {
	code, exp, err := s.cfg.Pairing.NewCode()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"code": code, "expires_at": exp})
}

// pair exchanges a one-time code for an extension token; only the pinned
// extension may ask.
func (s *Server) pair(c echo.Context) error {
	if c.Request().Header.Get("Origin") != s.extOrigin {
		return apiError(http.StatusForbidden, "forbidden_origin", "pairing is only possible from the gasoline extension",
			"type the code into the gasoline extension's popup")
	}
	var req struct {
		Code     string `json:"code"`
		Instance string `json:"instance"`
	}
	if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
		if rerr := readError(err); errors.Is(rerr, echo.ErrStatusRequestEntityTooLarge) {
			return rerr
		}
		return apiError(http.StatusBadRequest, "invalid_json", "invalid pairing request: "+err.Error(), `send {"code": "ABCD-2345"}`)
	}
	tok, err := s.cfg.Pairing.Redeem(req.Code, req.Instance)
	switch {
	case errors.Is(err, pairing.ErrRateLimited):
		return apiError(http.StatusTooManyRequests, "rate_limited", err.Error(), "wait a minute, then run 'gasoline pair' for a new code")
	case errors.Is(err, pairing.ErrInvalidCode):
		return apiError(http.StatusUnauthorized, "invalid_code", err.Error(), "run 'gasoline pair' and type the new code within 2 minutes")
	case err != nil:
		return err
	}
	s.cfg.Log.Info().Str("instance", req.Instance).Msg("extension paired")
	return c.JSON(http.StatusOK, map[string]string{"token": tok, "extension_id": s.cfg.ExtensionID})
}
