package server_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// captureEnv is the real echo handler with a capture store, served on
// 127.0.0.1, and a paired extension's token.
type captureEnv struct {
	*env
	store    *capture.Store
	handler  http.Handler
	extToken string
}

func newCaptureEnv(t testing.TB, opts capture.Options) *captureEnv {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	trk := tracker.New(tracker.Options{})
	pair, err := pairing.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := pair.NewCode()
	if err != nil {
		t.Fatal(err)
	}
	extToken, err := pair.Redeem(code, "capture-test")
	if err != nil {
		t.Fatal(err)
	}
	store := capture.New(opts)
	m := mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "test"}, "", zerolog.Nop())
	health := func() apitype.Health { return apitype.Health{Service: apitype.ServiceName, Port: port} }
	srv := server.New(server.Config{Port: port, Token: token, Tracker: trk, MCP: m, Pairing: pair, Health: health,
		Capture: store, Log: zerolog.Nop()})
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() { store.Close(); trk.Close(); ts.Close() })
	return &captureEnv{env: &env{url: ts.URL, port: port, tracker: trk, pairing: pair}, store: store,
		handler: srv.Handler(), extToken: extToken}
}

// ext returns the headers the extension's worker sends; do signs the
// request with the extension's token (signAs).
func (e *captureEnv) ext() map[string]string {
	return map[string]string{
		signAs:                          e.extToken,
		"Origin":                        "chrome-extension://" + server.DefaultExtensionID,
		"Content-Type":                  "application/json",
		apitype.HeaderExtensionInstance: "capture-test",
	}
}

func decodeAck(t *testing.T, body []byte) apitype.EventsAck {
	t.Helper()
	var ack apitype.EventsAck
	if err := json.Unmarshal(body, &ack); err != nil {
		t.Fatalf("answer %s is not an EventsAck: %v", body, err)
	}
	return ack
}

func TestEventsHTTP(t *testing.T) {
	e := newCaptureEnv(t, capture.Options{})
	batch := `{"dropped": {"log": 3, "network": 1, "nonsense": 5}, "events": [
		{"kind":"log","ts":1700000000000,"tab_id":7,"frame_id":0,"page_url":"http://localhost:3000/cart","level":"warn","message":"low stock"},
		{"kind":"log","ts":1700000000001,"tab_id":7,"frame_id":0,"page_url":"http://localhost:3000/cart","level":"shout","message":"x"},
		{"kind":"network","ts":1700000000002,"tab_id":7,"frame_id":0,"page_url":"http://localhost:3000/cart","request_id":"r1","source":"page",
		 "method":"post","url":"http://localhost:3000/api/cart","status":500,"resource_type":"fetch",
		 "request_headers":{"Authorization":"Bearer secret","X-Trace":"abc"},"response_body":"{\"error\":\"boom\"}","response_body_size":16},
		{"kind":"tab","ts":1700000000003,"tab_id":7,"frame_id":0,"page_url":"http://localhost:3000/cart","type":"updated","title":"Cart","status":"complete","active":true},
		{"kind":"error","ts":"yesterday","tab_id":7,"frame_id":0,"page_url":"x","type":"uncaught","message":"m"},
		{"kind":"nav","ts":1700000000004,"tab_id":7,"frame_id":0,"page_url":"http://localhost:3000/cart","type":"pushState","to":"http://localhost:3000/cart?step=2"}
	]}`
	code, body := e.do(t, req{"POST", "/events", e.ext(), batch})
	if code != http.StatusOK {
		t.Fatalf("POST /events: got %d %s, want 200", code, body)
	}
	ack := decodeAck(t, body)
	if ack.Accepted != 4 {
		t.Errorf("got accepted %d, want 4 (%s)", ack.Accepted, body)
	}
	var idx []int
	for _, r := range ack.Rejected {
		idx = append(idx, r.Index)
		if r.Reason == "" {
			t.Errorf("rejection %d has no reason", r.Index)
		}
	}
	if fmt.Sprint(idx) != "[1 4]" {
		t.Errorf("got rejected indexes %v, want [1 4] (%s)", idx, body)
	}
	if ack.ConfigVersion != 1 {
		t.Errorf("got config_version %d, want 1", ack.ConfigVersion)
	}

	logs, err := e.store.Query(capture.Filter{Kind: capture.KindLog})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs.Entries) != 1 || logs.Entries[0].(*capture.LogView).Message != "low stock" || logs.Dropped != 3 {
		t.Errorf("got logs %+v, want the one warning and 3 dropped", logs)
	}
	net, err := e.store.Query(capture.Filter{Kind: capture.KindNetwork, Status: ">=400"})
	if err != nil {
		t.Fatal(err)
	}
	if len(net.Entries) != 1 {
		t.Fatalf("got %d failing requests, want 1", len(net.Entries))
	}
	nv := net.Entries[0].(*capture.NetworkView)
	if nv.Method != "POST" || nv.Status != 500 || nv.ResponseBody != 16 {
		t.Errorf("got request %+v, want POST 500 with a 16-char response body", nv)
	}
	full, err := e.store.Entry(nv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := full.(*capture.NetworkView).RequestHeaders["Authorization"]; got != capture.Redacted {
		t.Errorf("got Authorization %q stored, want it redacted", got)
	}
	if p, err := e.store.PageInfo(nil); err != nil || p.Title != "Cart" || p.Status != "complete" {
		t.Errorf("got page %+v, %v, want tab 7 titled Cart", p, err)
	}
}

func TestEventsHTTPErrors(t *testing.T) {
	e := newCaptureEnv(t, capture.Options{})
	admin := map[string]string{"Authorization": "Bearer " + token}
	oneLog := `{"events":[{"kind":"log","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","level":"log","message":"m"}]}`
	tests := []struct {
		name     string
		headers  map[string]string
		body     string
		want     int
		wantCode string
	}{
		{"no token", nil, oneLog, 401, "unauthorized"},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, oneLog, 401, "unauthorized"},
		{"from a web page", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://localhost:3000"}, oneLog, 403, "forbidden_origin"},
		{"not json", e.ext(), `{"events": [`, 400, "not_a_batch"},
		{"an array", e.ext(), `[{"kind":"log"}]`, 400, "not_a_batch"},
		{"no events", e.ext(), `{"dropped":{"log":1}}`, 400, "not_a_batch"},
		{"events not an array", e.ext(), `{"events":{"kind":"log"}}`, 400, "not_a_batch"},
		{"dropped not counts", e.ext(), `{"dropped":"lots","events":[]}`, 400, "not_a_batch"},
		{"over 1 MB", e.ext(), `{"events":[{"kind":"log","message":"` + strings.Repeat("a", apitype.MaxEventsBody) + `"}]}`, 413, "batch_too_large"},
		{"too many events", e.ext(), `{"events":[` + strings.Repeat(`{},`, apitype.MaxEventsPerBatch) + `{}]}`, 413, "batch_too_large"},
		{"admin token", admin, oneLog, 200, ""},
		{"empty batch", e.ext(), `{"events":[]}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body := e.do(t, req{"POST", "/events", tt.headers, tt.body})
			if got != tt.want {
				t.Fatalf("got %d %.300s, want %d", got, body, tt.want)
			}
			if tt.wantCode == "" {
				decodeAck(t, body)
				return
			}
			var eb apitype.ErrorBody
			if err := json.Unmarshal(body, &eb); err != nil {
				t.Fatalf("error body %.300s is not JSON: %v", body, err)
			}
			if eb.Error.Code != tt.wantCode || eb.Error.Message == "" || eb.Error.Hint == "" {
				t.Errorf("got error %+v, want code %q with a message and a hint", eb.Error, tt.wantCode)
			}
		})
	}
	if got := e.store.Stats().Kinds[0].Entries; got != 1 {
		t.Errorf("got %d logs stored, want 1 (only the admin-token batch)", got)
	}
}

func TestCaptureConfigHTTP(t *testing.T) {
	e := newCaptureEnv(t, capture.Options{})
	get := func() apitype.CaptureConfig {
		t.Helper()
		code, body := e.do(t, req{"GET", "/capture/config", e.ext(), ""})
		if code != 200 {
			t.Fatalf("GET /capture/config: got %d %s", code, body)
		}
		var c apitype.CaptureConfig
		if err := json.Unmarshal(body, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := get()
	if c.Version != 1 || !c.RedactHeaders || c.BodyCap != capture.DefaultBodyCap || len(c.Kinds) != 6 || !c.Kinds["network"] {
		t.Fatalf("got default config %+v, want version 1, redaction on, 256 KB bodies, every kind on", c)
	}
	if code, _ := e.do(t, req{"GET", "/capture/config", nil, ""}); code != 401 {
		t.Errorf("config without a token: got %d, want 401", code)
	}
	off, cap := false, 1024
	if _, err := e.store.Configure(capture.Settings{RedactHeaders: &off, BodyCap: &cap, Kinds: map[capture.Kind]bool{capture.KindVital: false}}); err != nil {
		t.Fatal(err)
	}
	c = get()
	if c.Version != 2 || c.RedactHeaders || c.BodyCap != 1024 || c.Kinds["vital"] {
		t.Fatalf("got config %+v after a change, want version 2 with the change", c)
	}
	code, body := e.do(t, req{"POST", "/events", e.ext(), `{"events":[{"kind":"vital","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","name":"LCP","value":1200,"unit":"ms"}]}`})
	ack := decodeAck(t, body)
	if code != 200 || ack.ConfigVersion != 2 || ack.Accepted != 0 || len(ack.Rejected) != 1 || !strings.Contains(ack.Rejected[0].Reason, "switched off") {
		t.Errorf("vital with vitals off: got %d %s, want it rejected as switched off and config_version 2", code, body)
	}
}

func FuzzEvents(f *testing.F) {
	e := newCaptureEnv(f, capture.Options{Limits: map[capture.Kind]capture.Limit{
		capture.KindLog: {MaxEntries: 50}, capture.KindNetwork: {MaxEntries: 50, MaxBytes: 1 << 20},
	}})
	for _, s := range []string{
		`{"dropped":{"log":3},"events":[{"kind":"log","ts":1700000000000,"tab_id":1,"frame_id":0,"page_url":"http://a/","level":"error","message":"x","stack":"at f (a.js:1:2)"}]}`,
		`{"events":[{"kind":"network","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","request_id":"1","source":"page","method":"GET","url":"http://a/x","status":404,"resource_type":"fetch","response_body":"nope"},
		            {"kind":"network","ts":2,"tab_id":1,"frame_id":0,"page_url":"p","request_id":"9","source":"browser","method":"GET","url":"http://a/x","status":404,"resource_type":"xhr","duration_ms":3.5}]}`,
		`{"events":[{"kind":"error","ts":1,"tab_id":1,"frame_id":2,"page_url":"p","type":"resource","message":"","element":"IMG","resource_url":"http://a/x.png"}]}`,
		`{"events":[{"kind":"action","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","type":"keydown","selector":"#q","key":"Enter","modifiers":["Shift"]}]}`,
		`{"events":[{"kind":"tab","ts":1,"tab_id":3,"frame_id":0,"page_url":"p","type":"activated","status":"loading","active":true}]}`,
		`{"events":[{"kind":"vital","ts":1,"tab_id":3,"frame_id":0,"page_url":"p","name":"CLS","value":"0.1","unit":"score"}]}`,
		`{"events":[{"kind":"nav","tab_id":1.5},{"kind":7},null,[],"x"]}`,
		`{"events":[{"kind":"log","level":"log","message":"\ud800\udfff\u0000\xff"}]}`,
		`{"dropped":{"log":-5,"error":9223372036854775807},"events":[]}`,
		`{"batch_id":"mhx0k2a1b2c3.1","dropped":{"log":1},"events":[{"kind":"log","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","level":"log","message":"m"}]}`,
		`{"batch_id":"` + strings.Repeat("x", 65) + `","events":[]}`, `{"batch_id":1,"events":[]}`,
		`{"events":null}`, `{}`, `null`, ``, `[`, `{"events":[` + strings.Repeat("[", 10000) + `]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(body))
		r.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(e.port))
		r.Header.Set("Authorization", "Bearer "+token) // the state-dir token: the decoder is what is fuzzed here
		w := httptest.NewRecorder()
		e.handler.ServeHTTP(w, r)
		switch w.Code {
		case 200:
			var ack apitype.EventsAck
			if err := json.Unmarshal(w.Body.Bytes(), &ack); err != nil {
				t.Fatalf("200 answer %q is not an EventsAck: %v", w.Body.String(), err)
			}
			if ack.Accepted < 0 || len(ack.Rejected) > apitype.MaxRejectionsListed {
				t.Fatalf("got ack %+v", ack)
			}
		case 400, 413:
			var eb apitype.ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error.Code == "" || eb.Error.Hint == "" {
				t.Fatalf("%d answer %q is not an error with a hint: %v", w.Code, w.Body.String(), err)
			}
		default:
			t.Fatalf("got status %d for %q, want 200/400/413", w.Code, body)
		}
		// Every view of what was stored renders, within the page budget.
		for _, k := range capture.Kinds {
			p, err := e.store.Query(capture.Filter{Kind: k, Limit: capture.MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			if b, err := json.Marshal(p); err != nil || len(b) > capture.DefaultPageTokens*4 {
				t.Fatalf("page of %s: %d bytes, %v", k, len(b), err)
			}
		}
		if _, err := e.store.ErrorGroups(capture.Filter{}); err != nil {
			t.Fatal(err)
		}
		e.store.Tabs("")
	})
}

// TestEventsRetryAfterLostAnswer posts a batch twice over HTTP, as the
// worker does when the answer to its first post is lost: the retry is
// answered 200 with duplicate and stores nothing, while a new worker's
// first batch (a new epoch, sequence 1 again) is stored.
func TestEventsRetryAfterLostAnswer(t *testing.T) {
	e := newCaptureEnv(t, capture.Options{})
	batch := func(id string) string {
		return `{"batch_id":"` + id + `","dropped":{"log":1},"events":[{"kind":"log","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","level":"log","message":"once"}]}`
	}
	for i, step := range []struct {
		id       string
		wantDup  bool
		wantLogs int
	}{
		{"w1.1", false, 1},
		{"w1.1", true, 1},
		{"w2.1", false, 2},
		{"w2.1", true, 2},
	} {
		code, body := e.do(t, req{"POST", "/events", e.ext(), batch(step.id)})
		ack := decodeAck(t, body)
		if code != 200 || ack.Duplicate != step.wantDup {
			t.Errorf("post %d (%s): got %d %s, want 200 with duplicate %v", i, step.id, code, body, step.wantDup)
		}
		p, err := e.store.Query(capture.Filter{Kind: capture.KindLog})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != step.wantLogs || p.Dropped != int64(step.wantLogs) {
			t.Errorf("post %d (%s): got %d logs and %d dropped, want %d of each", i, step.id, len(p.Entries), p.Dropped, step.wantLogs)
		}
	}
	code, body := e.do(t, req{"POST", "/events", e.ext(), batch(strings.Repeat("x", apitype.MaxBatchIDLen+1))})
	if code != 400 || !strings.Contains(string(body), "batch_id") {
		t.Errorf("overlong batch_id: got %d %s, want 400 naming batch_id", code, body)
	}
}
