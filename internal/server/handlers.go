package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/labstack/echo/v4"
)

func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, s.cfg.Health())
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
// one is queued. Its frames parameter is the extension's iframe capture
// (ms since the epoch it began capturing every frame; 0: top documents
// only; frames_at: when the extension read it, the latest reading wins),
// which capture reads note; its held parameter is what the extension
// holds of origins the user has not allowed (apitype.HeldCapture, as of
// frames_at too); its answer says when an agent last
// called a tool, while that is less than apitype.AgentActiveFor ago.
func (s *Server) pendingQueries(c echo.Context) error {
	if v := c.QueryParam("frames"); v != "" && s.cfg.Capture != nil {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
			since := time.Time{}
			if ms > 0 {
				since = time.UnixMilli(ms)
			}
			var at time.Time
			if n, err := strconv.ParseInt(c.QueryParam("frames_at"), 10, 64); err == nil && n > 0 {
				at = time.UnixMilli(n)
			}
			s.cfg.Capture.SetFrames(since, at)
		}
	}
	if v := c.QueryParam("held"); v != "" && s.cfg.Capture != nil {
		var held []apitype.HeldCapture
		if err := json.Unmarshal([]byte(v), &held); err == nil {
			var at time.Time
			if n, err := strconv.ParseInt(c.QueryParam("frames_at"), 10, 64); err == nil && n > 0 {
				at = time.UnixMilli(n)
			}
			s.cfg.Capture.SetHeld(held, at)
		}
	}
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
	inst := instanceOf(c)
	if s.cfg.Contracts != nil {
		browser := c.QueryParam("browser")
		if browser != apitype.BrowserChrome && browser != apitype.BrowserFirefox {
			browser = "" // an older extension says nothing; anything else is not reported
		}
		s.cfg.Contracts.Note(inst, c.QueryParam("contract"), browser)
	}
	// Commands queued already are answered at once, as are polls that do
	// not wait, without arming the wake-ups below: a Poll whose ctx has
	// ended looks at the queue once and delivers what is there.
	if cmds, err := s.cfg.Tracker.Poll(ended, inst, 0); len(cmds) > 0 || wait == 0 {
		return s.answerPoll(c, inst, cmds, err)
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), wait)
	defer cancel()
	held, allowed := context.WithCancel(ctx) // ended early by the wake-up at an agent's call or the user's allow
	defer allowed()
	go func(ch <-chan struct{}, done <-chan struct{}) {
		select {
		case <-ch:
			allowed()
		case <-done:
		}
	}(s.allows.wait(), held.Done())
	if s.cfg.MCP != nil {
		var wake context.CancelFunc
		held, wake = context.WithCancel(held)
		defer wake()
		s.answerAtNewCall(ctx, inst, wake)
	}
	cmds, err := s.cfg.Tracker.Poll(held, inst, 0)
	if len(cmds) == 0 && held.Err() != nil && ctx.Err() == nil {
		// Woken by a tool call that has returned: what it queued (an
		// interact's command) goes in this answer. A woken Poll may return
		// without it (a Poll whose ctx ended delivers only at its first look).
		cmds, err = s.cfg.Tracker.Poll(held, inst, 0)
	}
	return s.answerPoll(c, inst, cmds, err)
}

// ended is a context that has ended: a Poll with it never blocks.
var ended = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// answerPoll answers a poll of the extension instance inst with cmds, what
// Tracker.Poll returned with err (a context's end is no error: the poll
// timed out or was woken), the origins the user allowed meanwhile and when
// an agent last called a tool.
func (s *Server) answerPoll(c echo.Context, inst string, cmds []tracker.Command, err error) error {
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		if errors.Is(err, tracker.ErrClosed) {
			return apiError(http.StatusServiceUnavailable, "shutting_down", "the daemon is shutting down", "reconnect in a moment")
		}
		return err
	}
	out := apitype.PendingQueries{Queries: make([]apitype.PendingQuery, 0, len(cmds)), AllowOrigins: s.allows.take()}
	if s.cfg.MCP != nil {
		if at := s.cfg.MCP.CalledWithin(apitype.AgentActiveFor); !at.IsZero() {
			out.AgentAt = at.UnixMilli()
			s.told.set(inst, out.AgentAt)
		}
	}
	for _, cmd := range cmds {
		name := ""
		if s.cfg.MCP != nil && cmd.Client != "" {
			name = s.cfg.MCP.ClientName(cmd.Client)
		}
		out.Queries = append(out.Queries, apitype.PendingQuery{
			CorrelationID: cmd.ID,
			Type:          "browser_action",
			Action:        cmd.Action,
			Params:        cmd.Params,
			TimeoutMS:     cmd.Timeout.Milliseconds(),
			CreatedAt:     cmd.CreatedAt,
			Client:        cmd.Client,
			ClientName:    name,
		})
	}
	return c.JSON(http.StatusOK, out)
}

// agentRetell is how much newer than the agent_at the extension was last
// told a tool call must be to answer a held poll at once: the extension
// moves its idle deadline at most once a minute (RENEW_MS), so a newer call
// changes nothing for it sooner.
const agentRetell = time.Minute

// answerAtNewCall calls answer (ending the held poll of ctx, for the
// extension instance inst) at a tool call that instance has not been told
// of (agent_at), so an agent's first call, an observe, reaches it at once
// and not up to a poll later. It answers once that call has returned, or
// after callQueueWait if it has not (an observe that waits for events): a
// command the call queues meanwhile (an interact) wakes the poll itself and
// goes out in that answer, not a poll round trip later.
func (s *Server) answerAtNewCall(ctx context.Context, inst string, answer func()) {
	told := s.told.get(inst)
	untold := func() bool {
		at := s.cfg.MCP.CalledWithin(apitype.AgentActiveFor)
		return !at.IsZero() && at.UnixMilli()-told >= agentRetell.Milliseconds()
	}
	called := s.cfg.MCP.NextCall() // before the look, so a call in between is not missed
	go func() {
		for !untold() {
			select {
			case <-called:
			case <-ctx.Done():
				return
			}
			called = s.cfg.MCP.NextCall()
		}
		wait := time.NewTimer(callQueueWait)
		defer wait.Stop()
		select {
		case <-s.cfg.MCP.LastCallDone():
			answer()
		case <-wait.C:
			answer()
		case <-ctx.Done():
		}
	}()
}

// callQueueWait bounds how long a woken poll waits for the waking call to
// return: long enough for an interact to queue its command, short next to
// an observe that waits for the very events the extension must capture.
const callQueueWait = 200 * time.Millisecond

// maxTold bounds the extension instances toldAt remembers (each worker
// start is a new one); forgetting them all costs each a poll answered early.
const maxTold = 64

// toldAt holds, per extension instance, the agent_at its last poll answer carried (ms).
type toldAt struct {
	mu sync.Mutex
	at map[string]int64
}

func (t *toldAt) get(inst string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.at[inst]
}

func (t *toldAt) set(inst string, at int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.at == nil || len(t.at) >= maxTold {
		t.at = map[string]int64{}
	}
	t.at[inst] = at
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
	cmd, err := s.cfg.Results.Report(instanceOf(c), qr)
	switch {
	case errors.Is(err, tracker.ErrClosed):
		return apiError(http.StatusServiceUnavailable, "shutting_down", "the daemon is shutting down", "post the result again once it is back")
	case errors.Is(err, tracker.ErrBadStatus):
		return apiError(http.StatusBadRequest, "invalid_status", err.Error(), "status is one of pending, complete, error, timeout; reason is absent or \"navigated\" (with status error)")
	case errors.Is(err, tracker.ErrUnknownCommand):
		return apiError(http.StatusNotFound, "unknown_command", err.Error(), "drop this result; the command no longer exists")
	case errors.Is(err, tracker.ErrFinal):
		return apiError(http.StatusConflict, "command_final", err.Error(), "drop this result; the command already finished")
	case errors.Is(err, tracker.ErrNotDelivered):
		return apiError(http.StatusConflict, "not_delivered", err.Error(), "only commands received from /pending-queries can be reported")
	case err != nil:
		return err
	}
	if cmd.Action == apitype.ActionReleaseCapture && cmd.State == tracker.StateComplete && s.cfg.Capture != nil {
		// Whoever reads next: the release's origin is not held any more,
		// and a report read before it is stale.
		s.cfg.Capture.Released(cmd.Result)
	}
	return c.JSON(http.StatusOK, apitype.QueryResultAck{CorrelationID: cmd.ID, State: string(cmd.State)})
}

func (s *Server) commands(c echo.Context) error {
	all, st := s.cfg.Tracker.All(), s.cfg.Tracker.Stats()
	return c.JSON(http.StatusOK, apitype.Commands{
		Commands: apitype.CommandLists{Pending: commandList(all.Pending), Completed: commandList(all.Completed), Failed: commandList(all.Failed)},
		Stats:    apitype.CommandStats{Queued: st.Queued, Pending: st.Pending, External: st.External, Completed: st.Completed, Failed: st.Failed},
	})
}

func commandList(cs []tracker.Command) []apitype.Command {
	out := make([]apitype.Command, 0, len(cs))
	for _, c := range cs {
		v := apitype.Command{
			CorrelationID: c.ID, Client: c.Client, Action: c.Action, State: string(c.State),
			Delivered: c.Delivered, Acked: c.Acked, Extension: c.Extension, External: c.External,
			Result: c.Result, Error: c.Error, Reason: c.Reason, Read: c.Read,
			CreatedAt: c.CreatedAt, DeliveredAt: c.DeliveredAt, FinishedAt: c.FinishedAt,
		}
		if st, ok := result.StoredOf(c); ok {
			h := st.Handle
			v.Stored = &apitype.StoredOutput{Chars: h.Chars, Bytes: h.Bytes, SHA256: h.SHA256, Truncated: h.Truncated}
		}
		out = append(out, v)
	}
	return out
}

func (s *Server) shutdown(c echo.Context) error {
	if s.cfg.Shutdown == nil {
		return apiError(http.StatusNotImplemented, "not_supported", "this server cannot be shut down over HTTP", "")
	}
	go s.cfg.Shutdown()
	return c.JSON(http.StatusAccepted, apitype.ShutdownAck{Status: "shutting_down"})
}

func (s *Server) pairCode(c echo.Context) error {
	code, exp, err := s.cfg.Pairing.NewCode()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apitype.PairCode{Code: code, ExpiresAt: exp})
}
