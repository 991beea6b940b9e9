package capture_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func TestValidate(t *testing.T) {
	ok := func(ev apitype.Event) apitype.Event { return ev }
	with := func(ev apitype.Event, f func(*apitype.Event)) apitype.Event { f(&ev); return ev }
	action := apitype.Event{Kind: "action", TS: 1, TabID: 1, PageURL: pageURL, Type: "click", Selector: "#buy", Name: "Buy"}
	vital := apitype.Event{Kind: "vital", TS: 1, TabID: 1, PageURL: pageURL, Name: "LCP", Value: apitype.Num(1200), Unit: "ms"}
	nav := apitype.Event{Kind: "nav", TS: 1, TabID: 1, PageURL: pageURL, Type: "pushState", From: pageURL, To: pageURL + "?step=2"}
	tab := apitype.Event{Kind: "tab", TS: 1, TabID: 4, PageURL: pageURL, Type: "updated", Title: "Cart", Status: apitype.Str("loading")}
	resource := apitype.Event{Kind: "error", TS: 1, TabID: 1, PageURL: pageURL, Type: "resource", Element: "IMG", ResourceURL: "http://localhost:3000/x.png"}
	tests := []struct {
		name   string
		ev     apitype.Event
		reason string // "" when accepted
	}{
		{"log", ok(logEv(1, "warn", "w")), ""},
		{"empty log message", ok(logEv(1, "log", "")), ""},
		{"log without ts takes the arrival time", with(logEv(1, "log", "x"), func(e *apitype.Event) { e.TS = 0 }), ""},
		{"log outside a tab", ok(logEv(-1, "log", "x")), ""},
		{"error", ok(errEv(1, "x is undefined", "app.js:1:2", 1)), ""},
		{"resource error", resource, ""},
		{"network", ok(netEv(1, "page", "get", "http://a/x", 200)), ""},
		{"network without response", ok(netEv(1, "browser", "GET", "http://a/x", 0)), ""},
		{"action", action, ""},
		{"keydown Enter", with(action, func(e *apitype.Event) { e.Type, e.Key, e.Modifiers = "keydown", "Enter", []string{"Shift", "Shift"} }), ""},
		{"input value", with(action, func(e *apitype.Event) { e.Type, e.Value = "input", apitype.Str("[redacted]") }), ""},
		{"action with a locator", with(action, func(e *apitype.Event) { e.Locator = &apitype.Locator{By: "role", Role: "button", Name: "Save"} }), ""},
		{"nav", nav, ""},
		{"vital", vital, ""},
		{"tab", tab, ""},
		{"removed tab", with(tab, func(e *apitype.Event) { e.Type, e.Status = "removed", apitype.Scalar{} }), ""},

		{"unknown kind", with(logEv(1, "log", "x"), func(e *apitype.Event) { e.Kind = "dom" }), `kind "dom" is not one of`},
		{"no kind", with(logEv(1, "log", "x"), func(e *apitype.Event) { e.Kind = "" }), "kind is required"},
		{"negative ts", with(logEv(1, "log", "x"), func(e *apitype.Event) { e.TS = -1 }), "ts must be"},
		{"ts in seconds far future", with(logEv(1, "log", "x"), func(e *apitype.Event) { e.TS = 1e17 }), "ts must be"},
		{"bad tab id", ok(logEv(-2, "log", "x")), "tab_id"},
		{"bad frame id", with(logEv(1, "log", "x"), func(e *apitype.Event) { e.FrameID = -7 }), "frame_id"},
		{"no level", logEv(1, "", "x"), "level is required"},
		{"bad level", logEv(1, "fatal", "x"), `level "fatal" is not one of`},
		{"bad error type", with(errEv(1, "m", "s", 1), func(e *apitype.Event) { e.Type = "oops" }), "type"},
		{"negative line", with(errEv(1, "m", "s", 1), func(e *apitype.Event) { e.Line = -1 }), "line"},
		{"resource error without url", with(resource, func(e *apitype.Event) { e.ResourceURL = "" }), "resource_url"},
		{"no request id", with(netEv(1, "page", "GET", "u", 200), func(e *apitype.Event) { e.RequestID = "" }), "request_id"},
		{"bad source", netEv(1, "devtools", "GET", "u", 200), "source"},
		{"bad method", netEv(1, "page", "GE T", "u", 200), "method"},
		{"no method", netEv(1, "page", "", "u", 200), "method"},
		{"no url", netEv(1, "page", "GET", "", 200), "url is required"},
		{"status too big", netEv(1, "page", "GET", "u", 1000), "status"},
		{"status not an integer", with(netEv(1, "page", "GET", "u", 0), func(e *apitype.Event) { e.Status = apitype.Num(200.5) }), "status"},
		{"status a string", with(netEv(1, "page", "GET", "u", 0), func(e *apitype.Event) { e.Status = apitype.Str("500") }), "status"},
		{"bad resource type", with(netEv(1, "page", "GET", "u", 200), func(e *apitype.Event) { e.ResourceType = "main_frame" }), "resource_type"},
		{"negative duration", with(netEv(1, "page", "GET", "u", 200), func(e *apitype.Event) { e.DurationMS = -3 }), "duration_ms"},
		{"negative body size", with(netEv(1, "page", "GET", "u", 200), func(e *apitype.Event) { e.ResponseBodySize = -3 }), "body sizes"},
		{"bad action type", with(action, func(e *apitype.Event) { e.Type = "hover" }), "type"},
		{"action without selector", with(action, func(e *apitype.Event) { e.Selector = "" }), "selector"},
		{"keydown of a letter", with(action, func(e *apitype.Event) { e.Type, e.Key = "keydown", "a" }), `key "a" is not one of Enter, Escape, Tab`},
		{"bad modifier", with(action, func(e *apitype.Event) { e.Modifiers = []string{"Hyper"} }), "modifier"},
		{"numeric action value", with(action, func(e *apitype.Event) { e.Value = apitype.Num(4) }), "value must be a string"},
		{"unknown locator", with(action, func(e *apitype.Event) { e.Locator = &apitype.Locator{By: "xpath", Selector: "//a"} }), "testid, role, label or css"},
		{"testid locator without value", with(action, func(e *apitype.Event) { e.Locator = &apitype.Locator{By: "testid", Attr: "data-testid"} }), "needs value"},
		{"nav without to", with(nav, func(e *apitype.Event) { e.To = "" }), "to is required"},
		{"bad nav type", with(nav, func(e *apitype.Event) { e.Type = "reload" }), "type"},
		{"vital string value", with(vital, func(e *apitype.Event) { e.Value = apitype.Str("1200") }), "non-negative number"},
		{"vital without value", with(vital, func(e *apitype.Event) { e.Value = apitype.Scalar{} }), "non-negative number"},
		{"bad vital", with(vital, func(e *apitype.Event) { e.Name = "FID" }), "name"},
		{"bad unit", with(vital, func(e *apitype.Event) { e.Unit = "s" }), "unit"},
		{"tab without tab id", with(tab, func(e *apitype.Event) { e.TabID = -1 }), "tab_id"},
		{"bad tab status", with(tab, func(e *apitype.Event) { e.Status = apitype.Str("idle") }), "status"},
		{"numeric tab status", with(tab, func(e *apitype.Event) { e.Status = apitype.Num(1) }), "status"},
		{"bad tab type", with(tab, func(e *apitype.Event) { e.Type = "created" }), "type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := capture.New(capture.Options{})
			good := logEv(1, "log", "the good one")
			ack, err := s.Ingest(apitype.EventBatch{Events: []apitype.Event{good, tt.ev}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if ack.Accepted != 2 || len(ack.Rejected) != 0 {
					t.Fatalf("got %+v, want both events accepted", ack)
				}
				return
			}
			if ack.Accepted != 1 || len(ack.Rejected) != 1 || ack.Rejected[0].Index != 1 {
				t.Fatalf("got %+v, want event 1 rejected and event 0 kept", ack)
			}
			if got := ack.Rejected[0].Reason; !strings.Contains(got, tt.reason) {
				t.Errorf("got reason %q, want it to contain %q", got, tt.reason)
			}
			if got := messages(query(t, s, capture.Filter{Kind: capture.KindLog})); len(got) != 1 || got[0] != "the good one" {
				t.Errorf("got logs %q, want the good event kept", got)
			}
		})
	}
}

func TestIngestJSON(t *testing.T) {
	const good = `{"kind":"log","ts":1,"tab_id":1,"frame_id":0,"page_url":"p","level":"log","message":"ok"}`
	tests := []struct {
		name     string
		body     string
		err      error
		accepted int
		reasons  []string // substrings, by rejection
	}{
		{"one good", `{"events":[` + good + `]}`, nil, 1, nil},
		{"type errors stay per event", `{"events":[` + good + `,
			{"kind":"log","ts":1,"tab_id":"one","level":"log"},
			{"kind":"vital","ts":1,"tab_id":1,"name":"LCP","value":true,"unit":"ms"},
			{"kind":"network","ts":1,"tab_id":1,"request_headers":["a"]},
			5, null, ` + good + `]}`, nil, 2, []string{`"tab_id" must be an integer`, `"value" must be a number or a string`, `"request_headers"`, "must be a JSON object", "kind is required"}},
		{"bad dropped", `{"dropped":[1],"events":[]}`, capture.ErrNotBatch, 0, nil},
		{"syntax", `{"events":[` + good, capture.ErrNotBatch, 0, nil},
		{"no events", `{"dropped":{}}`, capture.ErrNotBatch, 0, nil},
		{"null", `null`, capture.ErrNotBatch, 0, nil},
		{"string", `"events"`, capture.ErrNotBatch, 0, nil},
		{"too many", `{"events":[` + strings.Repeat(good+",", apitype.MaxEventsPerBatch) + good + `]}`, capture.ErrBatchTooLarge, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := capture.New(capture.Options{})
			ack, err := s.IngestJSON([]byte(tt.body))
			if !errors.Is(err, tt.err) {
				t.Fatalf("got error %v, want %v", err, tt.err)
			}
			if err != nil {
				if st := s.Stats(); st.Seq != 0 {
					t.Errorf("a refused batch stored %d entries", st.Seq)
				}
				return
			}
			if ack.Accepted != tt.accepted || len(ack.Rejected) != len(tt.reasons) {
				t.Fatalf("got %+v, want %d accepted and %d rejected", ack, tt.accepted, len(tt.reasons))
			}
			for i, want := range tt.reasons {
				if !strings.Contains(ack.Rejected[i].Reason, want) {
					t.Errorf("rejection %d: got %q, want it to contain %q", i, ack.Rejected[i].Reason, want)
				}
			}
		})
	}
	t.Run("rejections listed are capped", func(t *testing.T) {
		s := capture.New(capture.Options{})
		ack, err := s.IngestJSON([]byte(`{"events":[` + strings.Repeat(`{},`, 500) + good + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		if ack.Accepted != 1 || len(ack.Rejected) != apitype.MaxRejectionsListed {
			t.Errorf("got %d accepted, %d rejections listed; want 1 and %d", ack.Accepted, len(ack.Rejected), apitype.MaxRejectionsListed)
		}
	})
}

func TestCaps(t *testing.T) {
	s := capture.New(capture.Options{})
	long := strings.Repeat("é", 20000) // 40 000 bytes
	ev := logEv(1, "error", long)
	ev.Stack = strings.Repeat("at f (a.js:1:1)\n", 5000)
	bad := logEv(1, "log", "bad \xff\xfe utf-8")
	ingest(t, s, ev, bad)
	p := query(t, s, capture.Filter{Kind: capture.KindLog})
	msg := p.Entries[0].(*capture.LogView).Message
	if !strings.HasSuffix(msg, "…[clipped: 20000 chars in full]") {
		t.Errorf("got message ending %q, want the full length (20000 chars) stated", msg[max(0, len(msg)-60):])
	}
	if n := utf8.RuneCountInString(msg); n > 2100 {
		t.Errorf("got a %d-char message in a list, want it clipped to about 2000", n)
	}
	if !utf8.ValidString(msg) {
		t.Error("clipped message is not valid UTF-8")
	}
	if got := p.Entries[1].(*capture.LogView).Message; got != "bad \uFFFD utf-8" {
		t.Errorf("got %q, want invalid UTF-8 replaced", got)
	}
	full, err := s.Entry(p.Entries[0].Header().ID)
	if err != nil {
		t.Fatal(err)
	}
	if msg := full.(*capture.LogView).Message; utf8.RuneCountInString(msg) < 8000 || !strings.Contains(msg, "20000 chars in full") {
		t.Errorf("Entry: got a %d-char message, want 8000 and the full length", utf8.RuneCountInString(msg))
	}

	t.Run("bodies", func(t *testing.T) {
		bodyCap := 1000
		if _, err := s.Configure(capture.Settings{BodyCap: &bodyCap}); err != nil {
			t.Fatal(err)
		}
		n := netEv(1, "page", "POST", "http://a/api", 200)
		n.RequestBody = `{"q":1}`
		n.ResponseBody = strings.Repeat("x", 5000)
		ingest(t, s, n)
		net := query(t, s, capture.Filter{Kind: capture.KindNetwork}).Entries[0].(*capture.NetworkView)
		if net.ResponseBody != 1000 || net.ResponseSize != 5000 || !net.BodyTruncated || net.RequestBody != 7 {
			t.Errorf("got %+v, want a 1000-char response body of 5000 bytes, truncated, and the 7-char request body", net)
		}
		b, err := s.Body(net.ID, "response")
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Text) != 1000 || b.Size != 5000 || !b.Truncated || b.Chars != 1000 {
			t.Errorf("got body of %d bytes, size %d, truncated %v; want 1000 of 5000, truncated", len(b.Text), b.Size, b.Truncated)
		}
		if b, err := s.Body(net.ID, "request"); err != nil || b.Text != `{"q":1}` || b.Truncated {
			t.Errorf("got request body %+v, %v; want it whole", b, err)
		}
	})
}

func TestRedaction(t *testing.T) {
	headers := map[string]string{"Authorization": "Bearer s3cret", "cookie": "sid=1", "Set-Cookie": "sid=2", "X-Trace": "t1"}
	for _, redact := range []bool{true, false} {
		t.Run(fmt.Sprint("redact=", redact), func(t *testing.T) {
			s := capture.New(capture.Options{})
			if _, err := s.Configure(capture.Settings{RedactHeaders: &redact}); err != nil {
				t.Fatal(err)
			}
			n := netEv(1, "browser", "GET", "http://a/", 200)
			n.RequestHeaders, n.ResponseHeaders = headers, headers
			ingest(t, s, n)
			v, err := s.Entry(1)
			if err != nil {
				t.Fatal(err)
			}
			nv := v.(*capture.NetworkView)
			for _, hs := range []map[string]string{nv.RequestHeaders, nv.ResponseHeaders} {
				for k, want := range headers {
					if redact && k != "X-Trace" {
						want = capture.Redacted
					}
					if hs[k] != want {
						t.Errorf("header %s: got %q, want %q", k, hs[k], want)
					}
				}
			}
		})
	}
}

func TestConfigure(t *testing.T) {
	s := capture.New(capture.Options{})
	on, bad, zero := true, capture.MaxBodyCap+1, 0
	if c, _ := s.Configure(capture.Settings{RedactHeaders: &on}); c.Version != 1 {
		t.Errorf("no change: got version %d, want 1", c.Version)
	}
	if _, err := s.Configure(capture.Settings{BodyCap: &bad}); !errors.Is(err, capture.ErrBadConfig) {
		t.Errorf("body cap too big: got %v, want ErrBadConfig", err)
	}
	if _, err := s.Configure(capture.Settings{Kinds: map[capture.Kind]bool{"dom": true}}); !errors.Is(err, capture.ErrBadConfig) {
		t.Errorf("unknown kind: got %v, want ErrBadConfig", err)
	}
	c, err := s.Configure(capture.Settings{BodyCap: &zero, Kinds: map[capture.Kind]bool{capture.KindNetwork: false}})
	if err != nil || c.Version != 2 || c.BodyCap != 0 || c.Kinds["network"] || !c.Kinds["log"] {
		t.Fatalf("got %+v, %v; want version 2, no bodies, network off", c, err)
	}
	ack, _ := s.Ingest(apitype.EventBatch{Events: []apitype.Event{netEv(1, "page", "GET", "u", 200), logEv(1, "log", "x")}})
	if ack.Accepted != 1 || len(ack.Rejected) != 1 || ack.ConfigVersion != 2 {
		t.Errorf("got %+v, want the network event refused under config version 2", ack)
	}
}

func TestMerge(t *testing.T) {
	const url = "http://localhost:3000/api/cart"
	page := netEv(7, "page", "POST", url, 500)
	page.ResponseBody, page.ResponseBodySize = `{"error":"out of stock"}`, 24
	browser := netEv(7, "browser", "POST", url, 500)
	browser.DurationMS, browser.ResponseHeaders = 42.25, map[string]string{"Content-Type": "application/json"}
	failed := netEv(7, "browser", "POST", url, 0)
	failed.Error = "net::ERR_CONNECTION_RESET"

	tests := []struct {
		name    string
		steps   func(c *clock) []apitype.Event // events, in order, the clock advanced in between by the func
		entries int
		source  string // of the first entry
	}{
		{"page then browser", func(*clock) []apitype.Event { return []apitype.Event{page, browser} }, 1, "page+browser"},
		{"browser then page", func(*clock) []apitype.Event { return []apitype.Event{browser, page} }, 1, "page+browser"},
		{"two pairs pair up in order", func(*clock) []apitype.Event { return []apitype.Event{page, page, browser, browser} }, 2, "page+browser"},
		{"two pages stay apart", func(*clock) []apitype.Event { return []apitype.Event{page, page} }, 2, "page"},
		{"other tab", func(*clock) []apitype.Event {
			b := browser
			b.TabID = 8
			return []apitype.Event{page, b}
		}, 2, "page"},
		{"other method", func(*clock) []apitype.Event {
			b := browser
			b.Method = "GET"
			return []apitype.Event{page, b}
		}, 2, "page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := capture.New(capture.Options{Now: c.Now})
			for _, ev := range tt.steps(c) {
				ingest(t, s, ev)
			}
			p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
			if len(p.Entries) != tt.entries {
				t.Fatalf("got %d entries, want %d", len(p.Entries), tt.entries)
			}
			first := p.Entries[0].(*capture.NetworkView)
			if first.Source != tt.source {
				t.Errorf("got source %q, want %q", first.Source, tt.source)
			}
			if tt.source == "page+browser" {
				if first.ResponseBody != 24 || first.DurationMS != 42.3 || first.Status != 500 || first.ID != 1 {
					t.Errorf("got %+v, want the page's body, the browser's timing, status 500, the first id", first)
				}
				if v, _ := s.Entry(first.ID); v.(*capture.NetworkView).ResponseHeaders["Content-Type"] != "application/json" {
					t.Errorf("merged entry lost the browser's response headers")
				}
			}
		})
	}
	t.Run("a secret cut out of the page's URL", func(t *testing.T) {
		const raw, scrubbed = "http://localhost:3000/login?user=ada&pw=hunter2-x&n=1", "http://localhost:3000/login?user=ada&pw=[redacted]&n=1"
		for _, order := range [][2]string{{"page", "browser"}, {"browser", "page"}} {
			s := capture.New(capture.Options{Now: newClock().Now})
			for _, src := range order {
				u := raw
				if src == "page" {
					u = scrubbed
				}
				ingest(t, s, netEv(7, src, "POST", u, 200))
			}
			ingest(t, s, netEv(7, "browser", "POST", "http://localhost:3000/login?user=bob&pw=other&n=1", 200))
			p := query(t, s, capture.Filter{Kind: capture.KindNetwork})
			if len(p.Entries) != 2 {
				t.Fatalf("%v: got %d entries, want the pair merged and the other request apart", order, len(p.Entries))
			}
			if first := p.Entries[0].(*capture.NetworkView); first.Source != "page+browser" || first.URL != scrubbed {
				t.Errorf("%v: got %s %q, want page+browser with the scrubbed URL", order, first.Source, first.URL)
			}
		}
	})
	t.Run("outside the window", func(t *testing.T) {
		c := newClock()
		s := capture.New(capture.Options{Now: c.Now})
		ingest(t, s, page)
		c.Advance(capture.DefaultMergeWindow + time.Millisecond)
		ingest(t, s, browser)
		if got := len(query(t, s, capture.Filter{Kind: capture.KindNetwork}).Entries); got != 2 {
			t.Errorf("got %d entries, want 2 (arrived 10 s apart)", got)
		}
	})
	t.Run("network error from the browser wins", func(t *testing.T) {
		s := capture.New(capture.Options{})
		p := netEv(7, "page", "POST", url, 0)
		ingest(t, s, p, failed)
		got := query(t, s, capture.Filter{Kind: capture.KindNetwork, Status: "failed"})
		if len(got.Entries) != 1 || got.Entries[0].(*capture.NetworkView).Error != "net::ERR_CONNECTION_RESET" {
			t.Errorf("got %+v, want one failed request with the browser's error", got.Entries)
		}
	})
	t.Run("cleared entries do not merge", func(t *testing.T) {
		s := capture.New(capture.Options{})
		ingest(t, s, page)
		if _, err := s.Clear(capture.KindNetwork, nil); err != nil {
			t.Fatal(err)
		}
		ingest(t, s, browser)
		got := query(t, s, capture.Filter{Kind: capture.KindNetwork})
		if len(got.Entries) != 1 || got.Entries[0].(*capture.NetworkView).Source != "browser" {
			t.Errorf("got %+v, want only the browser's entry", got.Entries)
		}
	})
}
