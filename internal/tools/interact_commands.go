package tools

import (
	"context"
	"errors"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// commandActions manage the agent's queued commands.
func commandActions() []action {
	return []action{handler("interact", "cancel", "", (*Tools).cancel)}
}

type cancelArgs struct {
	CorrelationID string `json:"correlation_id" required:"true"`
}

// cancelView is cancel's answer.
type cancelView struct {
	CorrelationID string `json:"correlation_id"`
	Message       string `json:"message"`
	Status        string `json:"status"`
}

func (v *cancelView) command() string { return v.CorrelationID }

func (t *Tools) cancel(_ context.Context, client string, a cancelArgs) (*cancelView, error) {
	c, err := t.d.Tracker.Cancel(client, a.CorrelationID)
	switch {
	case errors.Is(err, tracker.ErrFinal):
		return nil, mcp.Errorf("already_finished", "read its result with observe({what:\"command_result\", correlation_id})", "%v", err)
	case errors.Is(err, tracker.ErrUnknownCommand):
		return nil, mcp.Errorf("unknown_correlation_id", "list your commands with observe({what:\"pending_commands\"})", "%v", err)
	case err != nil:
		return nil, err
	}
	v := &cancelView{Status: "cancelled", CorrelationID: c.ID,
		Message: "Cancelled before any extension received it; it will not run."}
	if c.Delivered {
		v.Message = "Cancelled. The extension had already received it, so the browser may still finish running it; its result will be ignored."
	}
	return v, nil
}
