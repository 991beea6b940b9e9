package capture_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func wsEv(tab int64, conn, typ string) apitype.Event {
	return apitype.Event{Kind: "websocket", TS: 1_700_000_000_000, TabID: tab, PageURL: pageURL, ConnID: conn, Type: typ}
}

func wsMsg(tab int64, conn, dir, text string) apitype.Event {
	e := wsEv(tab, conn, "message")
	e.Direction, e.Text, e.Size = dir, text, int64(len(text))
	return e
}

func TestWebSocketConnectionsAndFrames(t *testing.T) {
	s := capture.New(capture.Options{})
	connect := wsEv(1, "w1", "connect")
	connect.URL = "ws://127.0.0.1:9/chat"
	bin := wsMsg(1, "w1", "received", "")
	bin.Binary, bin.Size = true, 512
	closed := wsEv(1, "w1", "close")
	closed.Code, closed.Reason, closed.FramesDropped = 1000, "bye", 3
	other := wsEv(2, "w1", "connect") // the same page name in another tab is another connection
	other.URL = "ws://127.0.0.1:9/feed"
	ack := ingest(t, s, connect, wsEv(1, "w1", "open"), wsMsg(1, "w1", "sent", "hello"), wsMsg(1, "w1", "received", "hi there"), bin, closed, other)
	if ack.Accepted != 7 {
		t.Fatalf("got %+v, want 7 accepted", ack)
	}

	list, err := s.WebSockets(capture.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Connections) != 2 {
		t.Fatalf("got %+v, want 2 connections", list)
	}
	c := list.Connections[0]
	want := capture.WSConn{ID: 1, TabID: 1, URL: "ws://127.0.0.1:9/chat", State: "closed", Sent: 1, Received: 2, Dropped: 3,
		Code: 1000, Reason: "bye", TS: 1_700_000_000_000, LastTS: 1_700_000_000_000}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if got := list.Connections[1]; got.ID != 7 || got.TabID != 2 || got.State != "connecting" {
		t.Errorf("second connection: got %+v", got)
	}
	if l, _ := s.WebSockets(capture.Filter{TabID: ptr[int64](2)}); len(l.Connections) != 1 || l.Connections[0].ID != 7 {
		t.Errorf("tab 2 only: got %+v", l)
	}
	if l, _ := s.WebSockets(capture.Filter{URL: "FEED"}); len(l.Connections) != 1 || l.Connections[0].ID != 7 {
		t.Errorf("url filter: got %+v", l)
	}

	p := query(t, s, capture.Filter{Kind: capture.KindWebSocket, Conn: 1, Since: ptr[uint64](0)})
	var got []string
	for _, v := range p.Entries {
		w := v.(*capture.WebSocketView)
		got = append(got, w.Type+" "+w.Direction+" "+w.Text+" "+strconv.FormatInt(w.Size, 10)+" "+strconv.FormatBool(w.Binary))
	}
	wantFrames := []string{"connect   0 false", "open   0 false", "message sent hello 5 false", "message received hi there 8 false",
		"message received  512 true", "close   0 false"}
	if strings.Join(got, "|") != strings.Join(wantFrames, "|") {
		t.Errorf("frames: got %q, want %q", got, wantFrames)
	}
	// Paginated like every read.
	p = query(t, s, capture.Filter{Kind: capture.KindWebSocket, Conn: 1, Since: ptr[uint64](0), Limit: 2})
	if len(p.Entries) != 2 || !p.HasMore || p.NextCursor != 2 {
		t.Errorf("first page: got %d entries, more %v, next %d; want 2, true, 2", len(p.Entries), p.HasMore, p.NextCursor)
	}
	p = query(t, s, capture.Filter{Kind: capture.KindWebSocket, Conn: 1, Since: &p.NextCursor, Limit: 2})
	if ids := ids(p); len(ids) != 2 || ids[0] != 3 {
		t.Errorf("second page: got %v, want [3 4]", ids)
	}

	if _, err := s.WebSocket(99); !errors.Is(err, capture.ErrUnknownEntry) {
		t.Errorf("unknown connection: got %v, want ErrUnknownEntry", err)
	}
	if _, err := s.Query(capture.Filter{Kind: capture.KindNetwork, Conn: 1}); !errors.Is(err, capture.ErrBadFilter) {
		t.Errorf("conn on network: got %v, want ErrBadFilter", err)
	}
	if _, err := s.Clear(capture.KindWebSocket, ptr[int64](1)); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.WebSockets(capture.Filter{}); len(l.Connections) != 1 {
		t.Errorf("after clearing tab 1: got %+v, want tab 2's connection only", l)
	}
}

func TestWebSocketBounds(t *testing.T) {
	s := capture.New(capture.Options{Limits: map[capture.Kind]capture.Limit{capture.KindWebSocket: {MaxEntries: 1500}}})
	bodyCap := 8
	if _, err := s.Configure(capture.Settings{BodyCap: &bodyCap}); err != nil {
		t.Fatal(err)
	}
	evs := []apitype.Event{wsEv(1, "w", "connect")}
	evs[0].URL = "ws://a/"
	ingest(t, s, evs...)
	for i := 0; i < capture.MaxWSFrames+50; i += 100 {
		var batch []apitype.Event
		for j := i; j < min(i+100, capture.MaxWSFrames+50); j++ {
			batch = append(batch, wsMsg(1, "w", "received", "frame number "+strconv.Itoa(j)))
		}
		ingest(t, s, batch...)
	}
	c, err := s.WebSocket(1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Received != capture.MaxWSFrames || c.Dropped != 50 {
		t.Errorf("got received %d, dropped %d; want %d and 50", c.Received, c.Dropped, capture.MaxWSFrames)
	}
	p := query(t, s, capture.Filter{Kind: capture.KindWebSocket, Conn: 1, Since: ptr[uint64](1), Limit: 1})
	w := p.Entries[0].(*capture.WebSocketView)
	if w.Text != "frame nu" || !w.Truncated || w.Size != int64(len("frame number 0")) {
		t.Errorf("text cut at the body cap: got %+v", w)
	}
	// Network's switch governs WebSockets.
	off := false
	if _, err := s.Configure(capture.Settings{Kinds: map[capture.Kind]bool{capture.KindNetwork: off}}); err != nil {
		t.Fatal(err)
	}
	if ack, err := s.Ingest(apitype.EventBatch{Events: []apitype.Event{wsEv(1, "x", "open")}}); err != nil || ack.Accepted != 0 {
		t.Errorf("with network off: got %+v, want the event refused", ack)
	}
	if _, ok := s.Config().Kinds["websocket"]; ok {
		t.Errorf("config kinds: got %v, want no websocket switch of its own", s.Config().Kinds)
	}
}

func TestWebSocketValidation(t *testing.T) {
	s := capture.New(capture.Options{})
	bad := []apitype.Event{
		wsEv(1, "", "open"),
		wsEv(1, "w", "ping"),
		wsEv(1, "w", "connect"), // no url
		wsMsg(1, "w", "sideways", "x"),
		func() apitype.Event { e := wsEv(1, "w", "close"); e.Code = 70000; return e }(),
	}
	ack, err := s.Ingest(apitype.EventBatch{Events: bad})
	if err != nil || ack.Accepted != 0 || len(ack.Rejected) != len(bad) {
		t.Errorf("got %+v, want every event rejected", ack)
	}
}
