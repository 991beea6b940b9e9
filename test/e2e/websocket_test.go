//go:build unix

package e2e

// WebSocket capture (issue 20): a chat page talks to a WebSocket server on
// 127.0.0.1; the real extension records the frames in the page's MAIN world
// and an agent reads them through observe network type:"websocket".

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// chatPage connects to /ws and offers run(), which sends a conversation
// waiting for each answer, asks for a flood of 600 frames and a 300 000
// character one, and resolves when the server has closed the connection.
const chatPage = `<!doctype html><title>chat</title><ul id="log"></ul><script>
const ws = new WebSocket('ws://' + location.host + '/ws');
let waiter = null;
const got = [];
ws.onmessage = (e) => { got.push(e.data); if (waiter) waiter(); };
const until = (n) => new Promise((r) => { const check = () => { if (got.length >= n) r(); else waiter = check; }; check(); });
window.fixtureDone = new Promise((r) => ws.addEventListener('open', () => r(true)));
window.run = async () => {
  ws.send('hello'); await until(1);
  ws.send('how are you'); await until(2);
  ws.send('big'); await until(3);
  ws.send('flood 600'); await until(603);
  const closed = new Promise((r) => ws.addEventListener('close', (e) => r(e.code + ' ' + e.reason)));
  ws.send('bye');
  return await closed;
};
</script>`

// chatServer serves the chat page and a WebSocket that echoes, floods,
// sends one big frame and closes on "bye".
func chatServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /chat.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(chatPage))
	})
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			s := string(msg)
			switch {
			case s == "bye":
				c.Close(websocket.StatusNormalClosure, "bye")
				return
			case s == "big":
				err = c.Write(ctx, websocket.MessageText, []byte(strings.Repeat("x", 300_000)))
			case strings.HasPrefix(s, "flood "):
				n, _ := strconv.Atoi(strings.TrimPrefix(s, "flood "))
				for i := 0; i < n && err == nil; i++ {
					err = c.Write(ctx, websocket.MessageText, []byte("f"+strconv.Itoa(i)))
				}
			default:
				err = c.Write(ctx, websocket.MessageText, []byte("echo: "+s))
			}
			if err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

// wsConn is one connection as observe lists it.
type wsConn struct {
	ID       uint64 `json:"id"`
	URL      string `json:"url"`
	State    string `json:"state"`
	Sent     int64  `json:"sent"`
	Received int64  `json:"received"`
	Dropped  int64  `json:"dropped"`
	Code     int64  `json:"code"`
	Reason   string `json:"reason"`
}

func TestWebSocketMessages(t *testing.T) {
	c := captureReady(t)
	srv := chatServer(t)
	c.agentAtWork() // WebSocket frames are captured in pages loaded at work
	p := c.openPage(srv.URL + "/chat.html")
	var closed string
	p.eval(`run()`, &closed)
	if closed != "1000 bye" {
		t.Fatalf("the chat ended with %q, want the server's close 1000 bye", closed)
	}

	wsURL := "ws://" + strings.TrimPrefix(srv.URL, "http://") + "/ws"
	var conn wsConn
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := c.call("observe", map[string]any{"what": "network", "type": "websocket", "tabs": "all"})
		var list struct {
			Connections []wsConn `json:"connections"`
		}
		if err := json.Unmarshal(r.Raw, &list); err != nil {
			t.Fatalf("decoding %s: %v", r.Raw, err)
		}
		if len(list.Connections) == 1 && list.Connections[0].State == "closed" {
			conn = list.Connections[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no closed connection listed after 20 s: %s", r.Raw)
		}
	}
	// 500 frames a connection: 4 sent and 496 received are kept, the other
	// 104 floods and the "bye" are counted.
	want := wsConn{ID: conn.ID, URL: wsURL, State: "closed", Sent: 4, Received: 496, Dropped: 108, Code: 1000, Reason: "bye"}
	if conn != want {
		t.Errorf("connection: got %+v, want %+v", conn, want)
	}

	// The connection's events in order, page after page.
	var got []string
	var big map[string]any
	since := uint64(0)
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("more than 100 pages")
		}
		r := c.call("observe", map[string]any{"what": "network", "type": "websocket", "id": conn.ID, "since": since, "limit": 200})
		var pg struct {
			Connection wsConn           `json:"connection"`
			Entries    []map[string]any `json:"entries"`
			NextCursor uint64           `json:"next_cursor"`
			HasMore    bool             `json:"has_more"`
		}
		if err := json.Unmarshal(r.Raw, &pg); err != nil {
			t.Fatalf("decoding %s: %v", r.Raw, err)
		}
		if pg.Connection.ID != conn.ID {
			t.Fatalf("page names connection %+v, want %d", pg.Connection, conn.ID)
		}
		for _, e := range pg.Entries {
			s := fmt.Sprint(e["type"])
			if d, ok := e["direction"]; ok {
				s += " " + fmt.Sprint(d)
			}
			if e["truncated"] == true {
				big = e
				s += " [big]"
			} else if txt, ok := e["text"]; ok {
				s += " " + fmt.Sprint(txt)
			}
			got = append(got, s)
		}
		since = pg.NextCursor
		if !pg.HasMore {
			break
		}
	}
	wantEvents := []string{"connect", "open", "message sent hello", "message received echo: hello", "message sent how are you",
		"message received echo: how are you", "message sent big", "message received [big]", "message sent flood 600"}
	for i := range 493 {
		wantEvents = append(wantEvents, "message received f"+strconv.Itoa(i))
	}
	wantEvents = append(wantEvents, "close")
	if strings.Join(got, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("events: got %d\n%s\nwant %d\n%s", len(got), head(got), len(wantEvents), head(wantEvents))
	}
	if big == nil || big["size"] != float64(300_000) {
		t.Errorf("the big frame: got %v, want size 300000 and truncated", big)
	}
}

// head is the first and last lines of a long list.
func head(l []string) string {
	if len(l) <= 14 {
		return strings.Join(l, "\n")
	}
	return strings.Join(l[:10], "\n") + "\n…\n" + strings.Join(l[len(l)-4:], "\n")
}
