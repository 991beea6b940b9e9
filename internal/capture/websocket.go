package capture

import (
	"fmt"
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// WebSockets: the page script records each connection's life (connect, open,
// close, error) and its frames as "websocket" events. Each is an entry of
// the websocket ring, read one connection at a time (Filter.Conn), and the
// connection table below sums each connection up for a list
// (Store.WebSockets).

// Bounds of the WebSocket capture in the daemon; the page script has its own
// (500 frames a connection), which a hostile page may ignore.
const (
	// MaxWSFrames is the most frames one connection keeps; later frames
	// are counted in its Dropped.
	MaxWSFrames = 1000
	// maxWSConns bounds the connection table; the oldest connection is
	// forgotten first (its entries stay until the ring evicts them).
	maxWSConns = 512
)

// wsRec is one WebSocket event of the connection conn.
type wsRec struct {
	conn      uint64 // the connection's id (wsConn.id), set when stored
	connID    string // the page's name of the connection, unique in its tab
	typ       string // connect, open, message, close or error
	url       text   // connect
	direction string // message: sent or received
	size      int64  // message: bytes
	text      text   // message: the text, cut at the body cap
	binary    bool
	truncated bool
	code      int64 // close
	reason    string
	// framesDropped is what the page left out past its bounds (close).
	framesDropped int64
}

func (r *wsRec) bytes() int64 {
	return recordOverhead + int64(len(r.connID)+len(r.typ)+len(r.direction)+len(r.reason)) + r.url.size() + r.text.size()
}

// validateWebSocket checks a "websocket" event; its text is cut at the body
// cap like a request body.
func validateWebSocket(ev *apitype.Event, cfg settings) (record, rejection) {
	if len(ev.ConnID) > keepWebsocketConnID {
		return nil, reject("conn_id is the connection's name, at most %d bytes", keepWebsocketConnID)
	}
	w := &wsRec{connID: ev.ConnID, typ: ev.Type, binary: ev.Binary, truncated: ev.BodyTruncated}
	switch ev.Type {
	case "connect": // which needs url, and a message direction (fieldRules)
		w.url = capText(ev.URL, keepWebsocketURL)
	case "message":
		if ev.Size < 0 {
			return nil, reject("size must be the frame's size in bytes")
		}
		w.direction = ev.Direction
		w.text, w.size = capBody(ev.Text, ev.Size, cfg.bodyCap, &w.truncated)
	case "close":
		if ev.Code < 0 || ev.Code > 4999 || ev.FramesDropped < 0 {
			return nil, reject("code must be a close code (0 to 4999) and frames_dropped a count")
		}
		w.code, w.reason, w.framesDropped = ev.Code, capText(ev.Reason, keepWebsocketReason).s, min(ev.FramesDropped, maxReportedDrop)
	}
	return w, ""
}

// wsKey names a connection: the page's name for it within its tab.
type wsKey struct {
	tab int64
	id  string
}

// wsConn sums up one connection.
type wsConn struct {
	id             uint64 // the sequence number of its first entry
	key            wsKey
	url            string
	state          string // connecting, open, closed or error
	sent, received int64  // frames stored
	dropped        int64  // frames left out: past the page's bounds or MaxWSFrames
	code           int64
	reason         string
	first, last    int64 // ms since the epoch
}

// wsTable is the connection table, oldest connection first.
type wsTable struct {
	byKey map[wsKey]*wsConn
	order []*wsConn
}

// storeWSLocked buffers e, a websocket event, and updates its connection;
// a frame past MaxWSFrames is only counted. s.mu must be held.
func (s *Store) storeWSLocked(e *entry, w *wsRec, evicted *[numKinds]int64) {
	t := &s.ws
	k := wsKey{e.tab, w.connID}
	c := t.byKey[k]
	if c == nil {
		c = &wsConn{id: s.seq + 1, key: k, state: "connecting", first: e.ts}
		t.byKey[k] = c
		t.order = append(t.order, c)
		if len(t.order) > maxWSConns {
			delete(t.byKey, t.order[0].key)
			t.order = slices.Delete(t.order, 0, 1)
		}
	}
	c.last = max(c.last, e.ts)
	switch w.typ {
	case "connect":
		c.url = w.url.s
	case "open":
		c.state = "open"
	case "error":
		c.state = "error"
	case "close":
		c.state, c.code, c.reason = "closed", w.code, w.reason
		c.dropped += w.framesDropped
	case "message":
		if c.sent+c.received >= MaxWSFrames {
			c.dropped++
			return
		}
		if w.direction == "sent" {
			c.sent++
		} else {
			c.received++
		}
	}
	w.conn = c.id // not stored yet: still ours to change
	s.seq++
	e.seq = s.seq
	i := KindWebSocket.index()
	evicted[i] += s.rings[i].push(e, func(*entry) {})
}

// forgetWSLocked drops the connections of tab (nil: every tab) from the
// table. s.mu must be held.
func (s *Store) forgetWSLocked(tab *int64) {
	t := &s.ws
	t.order = slices.DeleteFunc(t.order, func(c *wsConn) bool {
		if tab != nil && c.key.tab != *tab {
			return false
		}
		delete(t.byKey, c.key)
		return true
	})
}

// WebSocketView is one WebSocket event: the connection's connect (URL),
// open, close (code, reason) or error, or a frame (direction, size, text or
// binary).
type WebSocketView struct {
	Head
	Type      string `json:"type"`
	URL       string `json:"url,omitempty"`
	Direction string `json:"direction,omitempty"`
	Size      int64  `json:"size,omitempty"`
	Text      string `json:"text,omitempty"`
	Binary    bool   `json:"binary,omitempty"`
	// Truncated says Text is only the first body-cap bytes of the frame.
	Truncated bool   `json:"truncated,omitempty"`
	Code      int64  `json:"code,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

func (*WebSocketView) Kind() Kind { return KindWebSocket }

func renderWS(h Head, r *wsRec, lv clipLevel) *WebSocketView {
	return &WebSocketView{Head: h, Type: r.typ, URL: clip(r.url, lv.url), Direction: r.direction, Size: r.size,
		Text: clip(r.text, lv.msg), Binary: r.binary, Truncated: r.truncated, Code: r.code, Reason: r.reason}
}

// WSConn is one WebSocket connection as a list shows it.
type WSConn struct {
	// ID is the id of the connection's first entry: Filter.Conn reads its
	// events.
	ID       uint64 `json:"id"`
	TabID    int64  `json:"tab_id"`
	URL      string `json:"url"`
	State    string `json:"state"` // connecting, open, closed or error
	Sent     int64  `json:"sent"`  // frames kept
	Received int64  `json:"received"`
	// Dropped counts frames left out past the bounds (per connection and
	// page in the page, MaxWSFrames here).
	Dropped int64  `json:"dropped,omitempty"`
	Code    int64  `json:"code,omitempty"`
	Reason  string `json:"reason,omitempty"`
	TS      int64  `json:"ts"`      // first event, ms since the epoch
	LastTS  int64  `json:"last_ts"` // last event
}

// WSConnPage is a list of connections, oldest first.
type WSConnPage struct {
	Connections []WSConn `json:"connections"`
	// Earlier says older connections match too than the list shows.
	Earlier bool `json:"earlier,omitempty"`
	// Lean names the tabs the list covers whose page was loaded while no
	// agent was at work, so its WebSocket traffic is not captured (lean.go).
	Lean string `json:"lean,omitempty"`
}

// WebSockets lists the newest f.Limit connections f's tab fields select
// whose URL contains f.URL and f.Text (ignoring ASCII case), oldest first,
// as many as fit the page budget.
// It fails with ErrBadFilter.
func (s *Store) WebSockets(f Filter) (WSConnPage, error) {
	f.Kind = KindWebSocket
	m, err := f.compile()
	if err != nil {
		return WSConnPage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := WSConnPage{Connections: []WSConn{}}
	left := s.budget()
	for i := len(s.ws.order) - 1; i >= 0; i-- {
		c := s.ws.order[i]
		if !m.readsTab(c.key.tab) || !containsFold(c.url, m.url) || !containsFold(c.url, m.text) {
			continue
		}
		left -= 200 + min(len(c.url), 400) + len(c.reason) // about its JSON
		if len(p.Connections) == m.limit || left < 0 && len(p.Connections) > 0 {
			p.Earlier = true
			break
		}
		p.Connections = append(p.Connections, WSConn{ID: c.id, TabID: c.key.tab, URL: clipStr(c.url, 400), State: c.state,
			Sent: c.sent, Received: c.received, Dropped: c.dropped, Code: c.code, Reason: c.reason, TS: c.first, LastTS: c.last})
	}
	slices.Reverse(p.Connections)
	p.Lean = leanWebSocketNote(s.leanTabsLocked(m.tabScope()))
	return p, nil
}

// WebSocket returns the connection with this id, or ErrUnknownEntry.
func (s *Store) WebSocket(id uint64) (WSConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.ws.order {
		if c.id == id {
			return WSConn{ID: c.id, TabID: c.key.tab, URL: c.url, State: c.state, Sent: c.sent, Received: c.received,
				Dropped: c.dropped, Code: c.code, Reason: c.reason, TS: c.first, LastTS: c.last}, nil
		}
	}
	return WSConn{}, fmt.Errorf("%w: no WebSocket connection has id %d", ErrUnknownEntry, id)
}
