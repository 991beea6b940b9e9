package tools

import (
	"context"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// wsListView is observe network's answer with type:"websocket": the
// connections in the caller's tabs.
type wsListView struct {
	capture.WSConnPage
	Hint string `json:"hint,omitempty"`
}

// wsFramesView is the answer with an id: the connection and a page of its
// events (connect, open, frames, close), oldest first.
type wsFramesView struct {
	Connection capture.WSConn `json:"connection"`
	*entriesView
}

// websockets serves observe({what:"network", type:"websocket"}): without id
// the connections of the caller's tabs (id, url, state, frame counts), with
// id one connection's events, paginated with since and limit like any read.
func (t *Tools) websockets(ctx context.Context, client string, a networkArgs) (any, error) {
	if a.Body != "" || a.Method != "" || a.Status != "" {
		return nil, mcp.Errorf("invalid_arguments", `list connections with {what:"network", type:"websocket"}, then read one with its id`,
			"body, method and status filter requests, not WebSocket connections")
	}
	if a.ID != nil {
		c, err := t.d.Capture.WebSocket(*a.ID)
		if err != nil {
			return nil, mcp.Errorf("unknown_entry", `observe({what:"network", type:"websocket"}) lists the connections and their ids`, "%v", err)
		}
		ea := a.entryArgs
		ea.ID, ea.TabID = nil, &c.TabID // the connection names its tab
		ea.Force = true                 // read by its id, as any entry is
		f := ea.filter(capture.KindWebSocket)
		f.Conn = c.ID
		v, err := t.entries(ctx, client, ea, f, a.WaitMS)
		if err != nil {
			return nil, err
		}
		ev, ok := v.(*entriesView)
		if !ok { // the browser holds more of its tab: the user is asked (observe_held.go)
			return v, nil
		}
		return &wsFramesView{Connection: c, entriesView: ev}, nil
	}
	sc, err := t.scope(client, a.entryArgs)
	if err != nil {
		return nil, err
	}
	if v, err := t.releaseHeld(ctx, client, t.heldTabs(a.TabID, sc)); v != nil || err != nil {
		return v, err
	}
	f := a.filter(capture.KindWebSocket)
	sc.apply(&f)
	p, err := t.d.Capture.WebSockets(f)
	if err != nil {
		return nil, captureError(err)
	}
	v := &wsListView{WSConnPage: p}
	if len(p.Connections) == 0 {
		v.Hint = "no WebSocket connection captured"
		if h := sc.hint(); h != "" {
			v.Hint = fmt.Sprintf("%s; %s", v.Hint, h)
		}
	}
	return v, nil
}
