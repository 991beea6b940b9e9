package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/kv"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// capEnv is env with a real capture store and key-value store, wired as
// the daemon wires them, and an extension that counts as connected.
type capEnv struct {
	*env
	capt *capture.Store
	kv   *kv.Store
}

func newCapEnv(t testing.TB, with ...func(*Deps)) *capEnv {
	t.Helper()
	log := zerolog.New(zerolog.NewTestWriter(t))
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	store := output.New(output.Options{InlineTokens: 1000})
	keep := result.NewKeeper(trk, store, log)
	capt := capture.New(capture.Options{})
	t.Cleanup(capt.Close)
	kvs, err := kv.Open(filepath.Join(t.TempDir(), kv.FileName), kv.Options{MaxValue: MaxStoreValue})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(protocol.Implementation{Name: "gasoline", Version: "test"}, Instructions, log)
	health := func() apitype.Health {
		return apitype.Health{Service: apitype.ServiceName, Extension: apitype.Extension{Connected: true}}
	}
	d := Deps{Tracker: trk, Health: health, Results: keep, Capture: capt, KV: kvs, Log: log}
	for _, f := range with {
		f(&d)
	}
	New(d).Register(s)
	return &capEnv{env: &env{s: s, trk: trk, store: store, keep: keep}, capt: capt, kv: kvs}
}

const (
	ts0  = 1_700_000_000_000
	cart = "http://localhost:3000/cart"
)

// ingest stores evs through the capture store's API and fails the test if
// any is rejected.
func (e *capEnv) ingest(t *testing.T, evs ...apitype.Event) {
	t.Helper()
	ack, err := e.capt.Ingest(apitype.EventBatch{Events: evs})
	if err != nil || len(ack.Rejected) > 0 {
		t.Fatalf("ingest: %+v, %v", ack, err)
	}
}

func logEvent(tab int64, level, msg string) apitype.Event {
	return apitype.Event{Kind: "log", TS: ts0, TabID: tab, PageURL: cart, Level: level, Message: msg}
}

func errorEvent(msg string, ts float64) apitype.Event {
	return apitype.Event{Kind: "error", TS: ts, TabID: 1, PageURL: cart, Type: "uncaught", Message: msg,
		Source: "http://localhost:3000/app.js", Line: 12, Column: 5, Stack: "TypeError: " + msg + "\n    at total (app.js:12:5)"}
}

func requestEvent(method, url string, status int) apitype.Event {
	return apitype.Event{Kind: "network", TS: ts0, TabID: 1, PageURL: cart, RequestID: "r-" + url, Source: "page",
		Method: method, URL: url, Status: apitype.Num(float64(status)), ResourceType: "fetch", MimeType: "application/json",
		RequestHeaders: map[string]string{"Content-Type": "application/json"}}
}

func actionEvent(typ, selector string) apitype.Event {
	return apitype.Event{Kind: "action", TS: ts0, TabID: 1, PageURL: cart, Type: typ, Selector: selector, Role: "button", Name: "Checkout"}
}

func navEvent(to string) apitype.Event {
	return apitype.Event{Kind: "nav", TS: ts0, TabID: 1, PageURL: cart, Type: "pushState", From: cart, To: to}
}

func tabEvent(id int64, typ, url, title string) apitype.Event {
	return apitype.Event{Kind: "tab", TS: ts0, TabID: id, PageURL: url, Type: typ, Title: title, WindowID: 1, Status: apitype.Str("complete")}
}

// fixture stores, in order (ids 1..14):
//
//	1 log debug tab 1    2 log info tab 1    3 log warn tab 2 "low stock"
//	4 log error tab 1 "checkout failed"
//	5 error "x is undefined" (ts0)   6 error "x is undefined" (ts0+500)
//	7 error "y is null"
//	8 GET /api/cart 200   9 POST /api/cart 500, with bodies   10 GET /img.png 404
//	11 click #checkout   12 nav /checkout   13 input #email
//	14 vital LCP
func (e *capEnv) fixture(t *testing.T) {
	t.Helper()
	post := requestEvent("POST", "http://localhost:3000/api/cart", 500)
	post.RequestBody, post.ResponseBody = `{"item":9,"qty":2}`, `{"error":"out of stock"}`
	img := requestEvent("GET", "http://localhost:3000/img.png", 404)
	img.TabID = 2
	input := actionEvent("input", "#email")
	input.Value = apitype.Str("a@example.com")
	e.ingest(t,
		logEvent(1, "debug", "render cart"),
		logEvent(1, "info", "Cart loaded"),
		logEvent(2, "warn", "low stock for SKU-9"),
		logEvent(1, "error", "checkout failed"),
		errorEvent("x is undefined", ts0),
		errorEvent("x is undefined", ts0+500),
		errorEvent("y is null", ts0+100),
		requestEvent("GET", "http://localhost:3000/api/cart", 200),
		post,
		img,
		actionEvent("click", "#checkout"),
		navEvent("http://localhost:3000/checkout"),
		input,
		apitype.Event{Kind: "vital", TS: ts0, TabID: 1, PageURL: cart, Name: "LCP", Value: apitype.Num(1234), Unit: "ms"},
		tabEvent(1, "activated", cart, "Cart"),
		tabEvent(2, "updated", "http://localhost:3000/shop", "Shop"),
	)
}

// ids returns the ids of the entries of r, a page.
func (r callResult) ids() []uint64 {
	var p struct {
		Entries []struct {
			ID uint64 `json:"id"`
		} `json:"entries"`
	}
	json.Unmarshal(r.Body, &p)
	out := []uint64{}
	for _, e := range p.Entries {
		out = append(out, e.ID)
	}
	return out
}

// errorCode returns the code of a failed call ("" when it succeeded).
func (r callResult) errorCode() string {
	if !r.IsError {
		return ""
	}
	c, _ := r.field("error", "code").(string)
	return c
}

// TestCaptureModes runs every capture mode of observe over a real capture
// store: what each returns for its filters, and the error each bad call
// gets.
func TestCaptureModes(t *testing.T) {
	e := newCapEnv(t)
	e.fixture(t)
	tests := []struct {
		name, args string
		wantIDs    []uint64 // for pages
		wantCode   string   // for failures
		want       []string // substrings of the answer
	}{
		{name: "logs, newest", args: `{"what":"logs","tabs":"all"}`, wantIDs: []uint64{1, 2, 3, 4}, want: []string{`"level":"debug"`, `"next_cursor":14`, `"dropped":0`}},
		{name: "logs at warn and above", args: `{"what":"logs","min_level":"warn","tabs":"all"}`, wantIDs: []uint64{3, 4}},
		{name: "logs of a tab", args: `{"what":"logs","tab_id":2}`, wantIDs: []uint64{3}},
		{name: "logs by text, any case", args: `{"what":"logs","text":"CHECKOUT"}`, wantIDs: []uint64{4}},
		{name: "logs after a cursor", args: `{"what":"logs","since":1,"limit":2,"tabs":"all"}`, wantIDs: []uint64{2, 3}, want: []string{`"has_more":true`, `"next_cursor":3`}},
		{name: "logs, newest within a limit", args: `{"what":"logs","limit":1}`, wantIDs: []uint64{4}, want: []string{`"earlier":true`, `since:0 reads from the oldest`}},
		{name: "one log in full", args: `{"what":"logs","id":4}`, want: []string{`"message":"checkout failed"`, `"id":4`}},
		{name: "a request's id in logs", args: `{"what":"logs","id":9}`, wantCode: "wrong_mode", want: []string{`observe({what:\"network\", id:9})`}},
		{name: "an unknown id", args: `{"what":"logs","id":999}`, wantCode: "unknown_entry"},
		{name: "a bad level", args: `{"what":"logs","min_level":"loud"}`, wantCode: "invalid_arguments", want: []string{"debug, info, log, warn, error"}},
		{name: "a limit too large", args: `{"what":"logs","limit":501}`, wantCode: "invalid_arguments", want: []string{"1 to 500"}},
		{name: "a wait too long", args: `{"what":"logs","wait_ms":60000}`, wantCode: "invalid_arguments", want: []string{"0 to 55000"}},
		{name: "a cursor of the wrong type", args: `{"what":"logs","since":"x"}`, wantCode: "invalid_arguments", want: []string{`\"since\"`}},

		{name: "errors, grouped", args: `{"what":"errors"}`,
			want: []string{`"count":2`, `"first_seen":1700000000000`, `"last_seen":1700000000500`, `"last_id":6`, `"count":1`, `"last_id":7`, `"stack":"TypeError: x is undefined`, `last_id`}},
		{name: "errors after a cursor", args: `{"what":"errors","since":6}`, want: []string{`"last_id":7`}},
		{name: "one error in full", args: `{"what":"errors","id":6}`, want: []string{`"line":12`, `"column":5`, `"source":"http://localhost:3000/app.js"`}},

		{name: "requests that failed", args: `{"what":"network","status":">=400","tabs":"all"}`, wantIDs: []uint64{9, 10}},
		{name: "requests by status class", args: `{"what":"network","status":"4xx","tabs":"all"}`, wantIDs: []uint64{10}},
		{name: "requests by a bare status number", args: `{"what":"network","status":500}`, wantIDs: []uint64{9}},
		{name: "requests by method and url", args: `{"what":"network","method":"get","url":"/API/"}`, wantIDs: []uint64{8}},
		{name: "a bad status", args: `{"what":"network","status":"broken"}`, wantCode: "invalid_arguments", want: []string{`\"4xx\"`}},
		{name: "a status filter on logs", args: `{"what":"logs","status":"500","tabs":"all"}`, wantCode: "invalid_arguments",
			want: []string{`unknown argument \"status\" for logs; allowed: what, tab_id`}},
		{name: "one request with headers", args: `{"what":"network","id":9}`, want: []string{`"request_headers":{"Content-Type":"application/json"}`, `"response_body_chars":24`}},
		{name: "a response body", args: `{"what":"network","id":9,"body":"response"}`, want: []string{`"text":"{\"error\":\"out of stock\"}"`, `"part":"response"`, `"http_status":500`}},
		{name: "a request body", args: `{"what":"network","id":9,"body":"request"}`, want: []string{`"text":"{\"item\":9,\"qty\":2}"`}},
		{name: "a body without an id", args: `{"what":"network","body":"response"}`, wantCode: "invalid_arguments", want: []string{"id"}},
		{name: "a body never captured", args: `{"what":"network","id":8,"body":"response"}`, wantCode: "no_body"},
		{name: "a body of a log", args: `{"what":"network","id":1,"body":"response"}`, wantCode: "invalid_arguments"},
		{name: "a body part that is not one", args: `{"what":"network","id":9,"body":"headers"}`, wantCode: "invalid_arguments"},

		{name: "actions with navigations", args: `{"what":"actions"}`, wantIDs: []uint64{11, 12, 13},
			want: []string{`"type":"click"`, `"type":"pushState"`, `"to":"http://localhost:3000/checkout"`, `"value":"a@example.com"`}},
		{name: "actions by url", args: `{"what":"actions","url":"/checkout"}`, wantIDs: []uint64{12}},
		{name: "a navigation in full", args: `{"what":"actions","id":12}`, want: []string{`"type":"pushState"`}},
		{name: "vitals", args: `{"what":"vitals"}`, wantIDs: []uint64{14}, want: []string{`"name":"LCP"`, `"value":1234`, `"unit":"ms"`}},

		{name: "the active tab", args: `{"what":"page"}`, want: []string{`"tab_id":1`, `"title":"Cart"`, `"active":true`, `"status":"complete"`}},
		{name: "a tab by id", args: `{"what":"page","tab_id":2}`, want: []string{`"url":"http://localhost:3000/shop"`}},
		{name: "an unknown tab", args: `{"what":"page","tab_id":77}`, wantCode: "unknown_tab", want: []string{`observe({what:\"tabs\"})`}},
		{name: "tabs", args: `{"what":"tabs"}`, want: []string{`"total":2`, `"title":"Shop"`, `"title":"Cart"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call(t, "agent", "observe", tc.args)
			if got := r.errorCode(); got != tc.wantCode {
				t.Fatalf("got error code %q, want %q: %s", got, tc.wantCode, r.Text)
			}
			if tc.wantIDs != nil && !slices.Equal(r.ids(), tc.wantIDs) {
				t.Errorf("got ids %v, want %v: %s", r.ids(), tc.wantIDs, r.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("answer lacks %s: %s", w, r.Text)
				}
			}
			if r.IsError && r.field("error", "message") == "" {
				t.Errorf("error without a message: %s", r.Text)
			}
			// A tool result's own status is a command's, a string; an
			// HTTP status belongs inside an entry.
			if st, ok := r.field("status").(float64); ok {
				t.Errorf("top-level status %v is a number: %s", st, r.Text)
			}
		})
	}
}

// TestLargeBody reads a body too large to inline: it comes back as a
// stored handle whose hint names a call that reads it, and command_result's
// read modes read it by that id.
func TestLargeBody(t *testing.T) {
	e := newCapEnv(t)
	big := requestEvent("GET", "http://localhost:3000/api/catalog", 200)
	big.ResponseBody = `{"items":[` + strings.Repeat(`{"sku":"SKU-1","name":"Widget","price":12.99},`, 200) + `{"sku":"LAST-ONE"}]}`
	e.ingest(t, big)
	r := e.call(t, "agent", "observe", `{"what":"network","id":1,"body":"response"}`)
	if r.IsError || r.field("stored") != true || r.field("text") != nil {
		t.Fatalf("got %s, want the body stored, not inline", r.Text)
	}
	id, _ := r.field("output", "id").(string)
	hint, _ := r.field("output", "hint").(string)
	if !strings.HasPrefix(id, "body_1_response_") || !strings.Contains(hint, `correlation_id:"`+id+`"`) || r.field("output", "sha256") == "" {
		t.Fatalf("got handle %q with hint %q, want body_1_response_<reader> and a call that reads it", id, hint)
	}
	s := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`","mode":"slice","anchor":"LAST-ONE","window":40}`)
	if s.IsError || !strings.Contains(s.Text, "LAST-ONE") {
		t.Errorf("slice of the stored body: got %s", s.Text)
	}
	x := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`","mode":"extract","query":"LAST-ONE"}`)
	if x.IsError || !strings.Contains(x.Text, "LAST-ONE") {
		t.Errorf("extract from the stored body: got %s", x.Text)
	}
	// A second agent reading the same body gets its own handle; the first
	// agent's handle stays the first agent's, and neither reads the other's.
	o := e.call(t, "other", "observe", `{"what":"network","id":1,"body":"response"}`)
	oid, _ := o.field("output", "id").(string)
	if o.IsError || oid == "" || oid == id {
		t.Fatalf("second reader: got handle %q (first reader's %q): %s", oid, id, o.Text)
	}
	if r := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`","mode":"slice","anchor":"LAST-ONE","window":40}`); r.IsError || !strings.Contains(r.Text, "LAST-ONE") {
		t.Errorf("first reader's handle after a second reader read the body: got %s", r.Text)
	}
	if r := e.call(t, "other", "observe", `{"what":"command_result","correlation_id":"`+oid+`","mode":"slice","anchor":"LAST-ONE","window":40}`); r.IsError || !strings.Contains(r.Text, "LAST-ONE") {
		t.Errorf("second reader's own handle: got %s", r.Text)
	}
	if r := e.call(t, "other", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`); !r.IsError {
		t.Errorf("second reader read the first reader's handle: got %s", r.Text)
	}
	for _, tl := range all {
		for _, a := range tl.actions() {
			if a.Prefix != "" && strings.HasPrefix(bodyHandlePrefix, a.Prefix+"_") {
				t.Errorf("%s.%s queues commands under %q, which body handles use", a.Tool, a.Name, a.Prefix)
			}
			if a.Prefix != "" && strings.HasPrefix(annotate.CropPrefix, a.Prefix+"_") {
				t.Errorf("%s.%s queues commands under %q, which draw-mode crops use", a.Tool, a.Name, a.Prefix)
			}
		}
	}
	// Reading it again stores it again under the same id.
	if again := e.call(t, "agent", "observe", `{"what":"network","id":1,"body":"response"}`); again.field("output", "id") != id {
		t.Errorf("second read: got %s", again.Text)
	}
}

// TestCaptureWait blocks in each waiting mode until a matching entry
// arrives after the cursor; non-matching entries do not end the wait. The
// cursor is the head at the start, so it does not matter when the entries
// arrive relative to the call.
func TestCaptureWait(t *testing.T) {
	tests := []struct {
		name, args string
		noise      apitype.Event
		match      apitype.Event
		want       string
	}{
		{"logs", `"what":"logs","min_level":"warn"`, logEvent(1, "info", "quiet"), logEvent(1, "warn", "disk almost full"), `"message":"disk almost full"`},
		{"errors", `"what":"errors","text":"boom"`, errorEvent("other", ts0), errorEvent("boom", ts0), `"message":"boom"`},
		{"network", `"what":"network","status":"5xx"`, requestEvent("GET", "http://localhost:3000/ok", 200), requestEvent("GET", "http://localhost:3000/bad", 503), `"status":503`},
		{"actions", `"what":"actions","url":"/next"`, actionEvent("click", "#a"), navEvent("http://localhost:3000/next"), `"to":"http://localhost:3000/next"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newCapEnv(t)
			e.ingest(t, logEvent(1, "error", "before"), errorEvent("boom", ts0))
			head := e.capt.Head()
			got := make(chan callResult, 1)
			go func() {
				got <- e.call(t, "agent", "observe", fmt.Sprintf(`{%s,"since":%d,"wait_ms":50000}`, tc.args, head))
			}()
			e.ingest(t, tc.noise)
			e.ingest(t, tc.match)
			r := <-got
			if r.IsError || !strings.Contains(r.Text, tc.want) || strings.Contains(r.Text, "before") {
				t.Fatalf("got %s, want only the entry matching after the cursor (%s)", r.Text, tc.want)
			}
		})
	}
	t.Run("a wait that ends empty", func(t *testing.T) {
		e := newCapEnv(t)
		r := e.call(t, "agent", "observe", `{"what":"logs","wait_ms":1}`)
		if r.IsError || len(r.ids()) != 0 || !strings.Contains(r.Text, "since:next_cursor") {
			t.Errorf("got %s, want an empty page with a hint to wait again from next_cursor", r.Text)
		}
		r = e.call(t, "agent", "observe", `{"what":"errors","wait_ms":1}`)
		if r.IsError || !strings.Contains(r.Text, `"entries":[]`) {
			t.Errorf("errors: got %s, want no entries", r.Text)
		}
	})
	t.Run("a closed store", func(t *testing.T) {
		e := newCapEnv(t)
		e.capt.Close()
		if r := e.call(t, "agent", "observe", `{"what":"logs","wait_ms":50000}`); r.errorCode() != "shutting_down" {
			t.Errorf("got %s, want shutting_down", r.Text)
		}
	})
}

// TestEmptyHints explains empty answers: nothing is connected, capture is
// off, or noise rules hid what there was.
func TestEmptyHints(t *testing.T) {
	e := newCapEnv(t)
	e.ingest(t, logEvent(1, "log", "[HMR] connected"))
	e.call(t, "agent", "configure", `{"action":"noise_rule","message":"^\\[HMR\\]"}`)
	if r := e.call(t, "agent", "observe", `{"what":"logs"}`); !strings.Contains(r.Text, "noise rules hid 1") || r.field("hidden") != float64(1) {
		t.Errorf("got %s, want a hint that a noise rule hid one entry", r.Text)
	}
	e.call(t, "agent", "configure", `{"action":"capture","kind":"network","on":false}`)
	if r := e.call(t, "agent", "observe", `{"what":"network"}`); !strings.Contains(r.Text, `kind:\"network\", on:true`) {
		t.Errorf("got %s, want a hint that network capture is off", r.Text)
	}
	n := newServer(t) // an extension that is not connected
	out := n.Handle(context.Background(), "agent", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs"}}}`))
	if !strings.Contains(string(out), "no browser extension is connected") {
		t.Errorf("got %s, want a hint that no extension is connected", out)
	}
	if !strings.Contains(string(n.Handle(context.Background(), "agent", []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"page"}}}`))), "no_tab") {
		t.Errorf("page without tabs: want no_tab")
	}
}

// TestConfigureCapture changes what reads show (noise rules), what is kept
// (clear) and what the extension captures (capture settings).
func TestConfigureCapture(t *testing.T) {
	e := newCapEnv(t)
	e.fixture(t)
	logIDs := func() []uint64 { return e.call(t, "agent", "observe", `{"what":"logs","tabs":"all"}`).ids() }

	t.Run("noise rules", func(t *testing.T) {
		r := e.call(t, "agent", "configure", `{"action":"noise_rule","kind":"logs","message":"^render"}`)
		ruleID, _ := r.field("added").([]any)[0].(map[string]any)["id"].(string)
		if r.IsError || ruleID == "" || len(r.field("rules").([]any)) != 1 {
			t.Fatalf("add: got %s", r.Text)
		}
		if got := logIDs(); !slices.Equal(got, []uint64{2, 3, 4}) {
			t.Errorf("with the rule: got %v, want 1 hidden", got)
		}
		if l := e.call(t, "agent", "configure", `{"action":"noise_rule"}`); l.field("added") != nil || len(l.field("rules").([]any)) != 1 {
			t.Errorf("list: got %s", l.Text)
		}
		two := e.call(t, "agent", "configure", `{"action":"noise_rule","kind":"actions","url":"/checkout"}`)
		if len(two.field("added").([]any)) != 2 || len(two.field("rules").([]any)) != 3 {
			t.Errorf("actions: got %s, want a rule for actions and one for navigations", two.Text)
		}
		if got := e.call(t, "agent", "observe", `{"what":"actions"}`).ids(); !slices.Equal(got, []uint64{11, 13}) {
			t.Errorf("with the rule: got %v, want the navigation to /checkout hidden", got)
		}
		if rm := e.call(t, "agent", "configure", `{"action":"noise_rule","remove":"`+ruleID+`"}`); rm.IsError || rm.field("removed") != ruleID {
			t.Errorf("remove: got %s", rm.Text)
		}
		if got := logIDs(); !slices.Equal(got, []uint64{1, 2, 3, 4}) {
			t.Errorf("after removing the rule: got %v, want every log again", got)
		}
		for _, bad := range []struct{ args, code string }{
			{`{"action":"noise_rule","message":"(unclosed"}`, "invalid_arguments"},
			{`{"action":"noise_rule","kind":"bogus"}`, "invalid_arguments"},
			{`{"action":"noise_rule","kind":"network","level":"warn"}`, "invalid_arguments"},
			{`{"action":"noise_rule","remove":"noise_999"}`, "unknown_rule"},
			{`{"action":"noise_rule","remove":"noise_1","url":"x"}`, "invalid_arguments"},
		} {
			if r := e.call(t, "agent", "configure", bad.args); r.errorCode() != bad.code {
				t.Errorf("%s: got %s, want %s", bad.args, r.Text, bad.code)
			}
		}
	})
	t.Run("too many rules", func(t *testing.T) {
		e := newCapEnv(t)
		for i := range capture.MaxNoiseRules {
			e.call(t, "agent", "configure", fmt.Sprintf(`{"action":"noise_rule","url":"%d%s"}`, i, strings.Repeat("u", capture.MaxRuleURL-4)))
		}
		r := e.call(t, "agent", "configure", `{"action":"noise_rule","kind":"actions","url":"one more"}`)
		if r.errorCode() != "too_many_rules" || len(e.capt.NoiseRules()) != capture.MaxNoiseRules {
			t.Errorf("got %s and %d rules, want too_many_rules and nothing added", r.Text, len(e.capt.NoiseRules()))
		}
		l := e.call(t, "agent", "configure", `{"action":"noise_rule"}`)
		if len(l.Text) > 4*10000 || len(l.field("rules").([]any)) != capture.MaxNoiseRules || !strings.Contains(l.Text, "clipped") {
			t.Errorf("list of %d long rules: %d chars, want every rule, clipped, under 10 000 tokens", capture.MaxNoiseRules, len(l.Text))
		}
	})
	t.Run("clear", func(t *testing.T) {
		r := e.call(t, "agent", "configure", `{"action":"clear","kind":"logs","tab_id":1}`)
		if r.IsError || r.field("removed") != float64(3) {
			t.Fatalf("got %s, want 3 removed", r.Text)
		}
		if got := logIDs(); !slices.Equal(got, []uint64{3}) {
			t.Errorf("after clearing tab 1's logs: got %v, want tab 2's", got)
		}
		r = e.call(t, "agent", "configure", `{"action":"clear"}`)
		if r.field("removed") != float64(11) {
			t.Errorf("clear all: got %s, want the 11 entries left", r.Text)
		}
		if r := e.call(t, "agent", "configure", `{"action":"clear","kind":"everything"}`); r.errorCode() != "invalid_arguments" {
			t.Errorf("bad kind: got %s", r.Text)
		}
	})
	t.Run("capture settings", func(t *testing.T) {
		r := e.call(t, "agent", "configure", `{"action":"capture"}`)
		if r.field("version") != float64(1) || r.field("redact_headers") != true || r.field("body_cap") != float64(capture.DefaultBodyCap) {
			t.Fatalf("read: got %s", r.Text)
		}
		r = e.call(t, "agent", "configure", `{"action":"capture","kind":"actions","on":false,"body_cap":1024}`)
		if r.field("version") != float64(2) || r.field("kinds", "action") != false || r.field("kinds", "nav") != false ||
			r.field("kinds", "log") != true || r.field("body_cap") != float64(1024) || r.field("hint") == nil {
			t.Errorf("change: got %s", r.Text)
		}
		if cfg := e.capt.Config(); cfg.Kinds["action"] || cfg.BodyCap != 1024 {
			t.Errorf("the store has %+v, want the change applied", cfg)
		}
		r = e.call(t, "agent", "configure", `{"action":"capture","redact":false}`)
		if r.field("redact_headers") != false || !strings.Contains(r.Text, "in clear") {
			t.Errorf("redaction off: got %s, want a warning", r.Text)
		}
		for _, bad := range []string{
			`{"action":"capture","body_cap":100000000}`,
			`{"action":"capture","kind":"logs"}`,
			`{"action":"capture","on":true}`,
			`{"action":"capture","kind":"dom","on":true}`,
		} {
			if r := e.call(t, "agent", "configure", bad); r.errorCode() != "invalid_arguments" {
				t.Errorf("%s: got %s, want invalid_arguments", bad, r.Text)
			}
		}
		if v := e.capt.Config().Version; v != 3 {
			t.Errorf("got version %d after refused changes, want 3", v)
		}
	})
}

// TestStoreLoad keeps values in the key-value store: store, load, list,
// list by prefix, delete, and the errors.
func TestStoreLoad(t *testing.T) {
	e := newCapEnv(t)
	if r := e.call(t, "agent", "configure", `{"action":"store","key":"login","value":{"url":"http://localhost:3000/login","user":"qa"}}`); r.IsError || r.field("bytes") == nil {
		t.Fatalf("store: got %s", r.Text)
	}
	e.call(t, "agent", "configure", `{"action":"store","key":"login_2","value":"second"}`)
	e.call(t, "agent", "configure", `{"action":"store","key":"theme","value":"dark"}`)
	if r := e.call(t, "agent", "configure", `{"action":"load","key":"login"}`); r.field("value", "user") != "qa" {
		t.Errorf("load: got %s", r.Text)
	}
	if r := e.call(t, "agent", "configure", `{"action":"load"}`); r.field("total") != float64(3) || len(r.field("keys").([]any)) != 3 {
		t.Errorf("list: got %s", r.Text)
	}
	if r := e.call(t, "agent", "configure", `{"action":"load","key":"login*"}`); r.field("total") != float64(2) {
		t.Errorf("list by prefix: got %s, want login and login_2", r.Text)
	}
	if r := e.call(t, "agent", "configure", `{"action":"store","key":"theme","value":null}`); r.field("deleted") != true {
		t.Errorf("delete: got %s", r.Text)
	}
	if _, err := e.kv.Get("theme"); !errors.Is(err, kv.ErrNotFound) {
		t.Errorf("theme still stored after value null: %v", err)
	}
	for _, bad := range []struct{ args, code string }{
		{`{"action":"load","key":"theme"}`, "unknown_key"},
		{`{"action":"store","key":"theme","value":null}`, "unknown_key"},
		{`{"action":"store","key":"x"}`, "invalid_arguments"},
		{`{"action":"store","value":1}`, "invalid_arguments"},
		{`{"action":"store","key":"bad\u0001key","value":1}`, "invalid_arguments"},
		{`{"action":"store","key":"big","value":"` + strings.Repeat("v", MaxStoreValue) + `"}`, "value_too_large"},
	} {
		if r := e.call(t, "agent", "configure", bad.args); r.errorCode() != bad.code {
			t.Errorf("%.80s: got %.300s, want %s", bad.args, r.Text, bad.code)
		}
	}
	t.Run("without a store", func(t *testing.T) {
		s := newServer(t)
		out := s.Handle(context.Background(), "agent", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"configure","arguments":{"action":"load"}}}`))
		if !strings.Contains(string(out), "not_available") {
			t.Errorf("got %s, want not_available", out)
		}
	})
}

// TestCaptureAnswersFitTheBudget fills every buffer with the largest
// entries the store keeps and checks that no answer of a capture mode or
// action exceeds 10 000 estimated tokens.
func TestCaptureAnswersFitTheBudget(t *testing.T) {
	e := newCapEnv(t)
	long := strings.Repeat(`lorem "ipsum" <dolor> `, 2000)
	for i := range 600 {
		page := fmt.Sprintf("%s?%d&%s", cart, i, strings.Repeat("q", 3000))
		l := logEvent(int64(i%3), "error", long)
		l.Stack, l.PageURL = long, page
		er := errorEvent(fmt.Sprintf("%d %s", i, long), ts0)
		er.PageURL = page
		n := requestEvent("POST", page, 500)
		n.RequestID = fmt.Sprint(i)
		n.ResponseBody, n.RequestBody = long, long
		n.RequestHeaders = map[string]string{}
		for h := range 40 {
			n.RequestHeaders[fmt.Sprintf("x-h%d", h)] = long[:2000]
		}
		a := actionEvent("input", long[:3000])
		a.Value, a.Text, a.PageURL = apitype.Str(long), long, page
		e.ingest(t, l, er, n, a, navEvent(page), tabEvent(int64(i), "updated", page, long))
	}
	maxValue := `"` + strings.Repeat(`\"`, MaxStoreValue/2-1) + `"` // the largest value, all escapes
	if r := e.call(t, "agent", "configure", `{"action":"store","key":"max","value":`+maxValue+`}`); r.IsError {
		t.Fatalf("storing the largest value: %.300s", r.Text)
	}
	for i := range 150 {
		e.call(t, "agent", "configure", fmt.Sprintf(`{"action":"store","key":"%d-%s","value":1}`, i, strings.Repeat("k", 250)))
	}
	// The last batch's log, error and request (older ones may be evicted).
	head := e.capt.Head()
	logID, errID, netID := head-4, head-3, head-2
	calls := []struct{ tool, args string }{
		{"observe", `{"what":"logs","limit":500}`},
		{"observe", `{"what":"logs","since":0,"limit":500}`},
		{"observe", fmt.Sprintf(`{"what":"logs","id":%d}`, logID)},
		{"observe", `{"what":"errors","limit":500}`},
		{"observe", fmt.Sprintf(`{"what":"errors","id":%d}`, errID)},
		{"observe", `{"what":"network","limit":500}`},
		{"observe", fmt.Sprintf(`{"what":"network","id":%d}`, netID)},
		{"observe", fmt.Sprintf(`{"what":"network","id":%d,"body":"response"}`, netID)},
		{"observe", `{"what":"actions","limit":500}`},
		{"observe", `{"what":"page"}`},
		{"observe", `{"what":"tabs"}`},
		{"configure", `{"action":"load"}`},
		{"configure", `{"action":"load","key":"max"}`},
	}
	for _, c := range calls {
		r := e.call(t, "agent", c.tool, c.args)
		if r.IsError {
			t.Errorf("%s: %.300s", c.args, r.Text)
		}
		tokens := (len(r.Text) + 3) / 4
		t.Logf("%.60s: ~%d tokens", c.args, tokens)
		if tokens > 10000 {
			t.Errorf("%s: ~%d tokens, over 10 000", c.args, tokens)
		}
	}
}

// TestVitalsSayWhatFirefoxLacks: observe vitals from an extension in
// Firefox says that CLS and long tasks are not measured there (no Layout
// Instability API), and says nothing of the kind for Chrome.
func TestVitalsSayWhatFirefoxLacks(t *testing.T) {
	for _, browser := range []string{apitype.BrowserFirefox, apitype.BrowserChrome} {
		e := newCapEnv(t, func(d *Deps) {
			d.Health = func() apitype.Health {
				return apitype.Health{Service: apitype.ServiceName, Extension: apitype.Extension{Connected: true, Browser: browser}}
			}
		})
		e.ingest(t, apitype.Event{Kind: "vital", TS: ts0, TabID: 1, PageURL: cart, Name: "LCP", Value: apitype.Num(1234), Unit: "ms"})
		got := e.call(t, "agent", "observe", `{"what":"vitals"}`)
		says := strings.Contains(got.Text, "measures no CLS (it has no Layout Instability API)")
		if says != (browser == apitype.BrowserFirefox) {
			t.Errorf("%s: observe vitals %s; want the note on CLS only for Firefox", browser, got.Text)
		}
	}
}
