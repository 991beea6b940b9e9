package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

func wsEvent(tab int64, conn, typ string) apitype.Event {
	return apitype.Event{Kind: "websocket", TS: ts0, TabID: tab, PageURL: cart, ConnID: conn, Type: typ}
}

func wsFrame(tab int64, conn, dir, text string) apitype.Event {
	e := wsEvent(tab, conn, "message")
	e.Direction, e.Text, e.Size = dir, text, int64(len(text))
	return e
}

// TestObserveWebSockets reads connections and one connection's frames
// through observe network type:"websocket", and the errors of bad calls.
func TestObserveWebSockets(t *testing.T) {
	e := newCapEnv(t)
	connect := wsEvent(1, "w1", "connect")
	connect.URL = "ws://localhost:3000/chat"
	closed := wsEvent(1, "w1", "close")
	closed.Code, closed.Reason = 1001, "going away"
	e.ingest(t, connect, wsEvent(1, "w1", "open"), wsFrame(1, "w1", "sent", "hi"), wsFrame(1, "w1", "received", "hello"), closed,
		requestEvent("GET", "http://localhost:3000/api/cart", 200))

	list := e.call(t, "agent", "observe", `{"what":"network","type":"websocket","tabs":"all"}`)
	for _, want := range []string{`"id":1`, `"url":"ws://localhost:3000/chat"`, `"state":"closed"`, `"sent":1`, `"received":1`, `"code":1001`} {
		if !strings.Contains(list.Text, want) {
			t.Errorf("list: %s lacks %s", list.Text, want)
		}
	}
	frames := e.call(t, "agent", "observe", `{"what":"network","type":"websocket","id":1,"since":0,"limit":3}`)
	if got := frames.ids(); fmt.Sprint(got) != "[1 2 3]" || !strings.Contains(frames.Text, `"has_more":true`) ||
		!strings.Contains(frames.Text, `"connection":{"id":1`) {
		t.Errorf("first page: ids %v in %s", got, frames.Text)
	}
	next := e.call(t, "agent", "observe", `{"what":"network","type":"websocket","id":1,"since":3}`)
	if got := next.ids(); fmt.Sprint(got) != "[4 5]" || !strings.Contains(next.Text, `"text":"hello"`) {
		t.Errorf("second page: ids %v in %s", got, next.Text)
	}
	// The requests list is unchanged by the sockets.
	if got := e.call(t, "agent", "observe", `{"what":"network","tabs":"all"}`).ids(); fmt.Sprint(got) != "[6]" {
		t.Errorf("requests: got %v, want [6]", got)
	}
	for _, c := range []struct{ args, code string }{
		{`{"what":"network","type":"websocket","id":99}`, "unknown_entry"},
		{`{"what":"network","type":"websocket","status":"5xx"}`, "invalid_arguments"},
		{`{"what":"network","type":"socket"}`, "invalid_arguments"},
	} {
		if r := e.call(t, "agent", "observe", c.args); r.errorCode() != c.code {
			t.Errorf("%s: got %q %s, want %s", c.args, r.errorCode(), r.Text, c.code)
		}
	}
	if r := e.call(t, "agent", "observe", `{"what":"network","type":"websocket","tab_id":5}`); !strings.Contains(r.Text, "no WebSocket") {
		t.Errorf("empty list: got %s, want a hint", r.Text)
	}
}

// TestWebSocketAnswersFitTheBudget fills the store with many connections
// and long frames: every websocket answer stays under 10 000 tokens.
func TestWebSocketAnswersFitTheBudget(t *testing.T) {
	e := newCapEnv(t)
	long := strings.Repeat(`lorem "ipsum" <dolor> `, 2000)
	for i := range 600 {
		conn := fmt.Sprint("w", i)
		c := wsEvent(int64(i%3), conn, "connect")
		c.URL = "ws://localhost:3000/" + strings.Repeat("p", 3000)
		cl := wsEvent(int64(i%3), conn, "close")
		cl.Reason = long[:300]
		e.ingest(t, c, wsFrame(int64(i%3), conn, "received", long), wsFrame(int64(i%3), conn, "sent", long), cl)
	}
	head := e.capt.Head()
	for _, args := range []string{
		`{"what":"network","type":"websocket","tabs":"all","limit":500}`,
		fmt.Sprintf(`{"what":"network","type":"websocket","id":%d,"since":0,"limit":500}`, head-3),
		fmt.Sprintf(`{"what":"network","type":"websocket","id":%d,"limit":500}`, head-3),
	} {
		r := e.call(t, "agent", "observe", args)
		if r.IsError {
			t.Fatalf("%s: %.300s", args, r.Text)
		}
		tokens := (len(r.Text) + 3) / 4
		t.Logf("%.70s: ~%d tokens", args, tokens)
		if tokens > 10000 {
			t.Errorf("%s: ~%d tokens, over 10 000", args, tokens)
		}
	}
}
