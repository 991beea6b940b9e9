package capture

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// FuzzFastDecode checks the fast batch decoder against encoding/json: when
// it accepts a body, encoding/json decodes the same batch from it.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"dropped":{"log":3,"x":null},"events":[{"kind":"log","ts":1700000000000.5,"tab_id":-1,"frame_id":0,"page_url":"http://a/\u00e9","level":"warn","message":"a \"quoted\"\n\ttab \u0001 é ✓","stack":null}]}`,
		`{"events":[{"kind":"network","ts":1,"tab_id":1,"request_id":"r","source":"page","method":"GET","url":"u","status":500,"resource_type":"fetch","duration_ms":1e2,"request_headers":{"a":"1","b":null},"request_headers":{"c":"3"},"response_body_size":10,"body_truncated":true}]}`,
		`{"events":[{"kind":"action","type":"keydown","selector":"#a","value":"v","key":"Enter","modifiers":["Shift",null],"modifiers":[]},{"kind":"vital","name":"CLS","value":0.25,"unit":"score"}]}`,
		`{"events":[{"kind":"action","type":"click","selector":"#a","locator":{"by":"role","role":"button","name":"Go","name":null},"locator":{"attr":"x"}}]}`,
		`{"events":[{"kind":"action","locator":{"by":"css","selector":"a"},"locator":null},{"locator":{"BY":"role"}},{"locator":{"by":1}}]}`,
		`{"events":[{"kind":"tab","tab_id":3,"type":"updated","status":"complete","active":true,"active":null,"window_id":2,"title":"T"}]}`,
		`{"events":[{"kind":"tab","tab_id":3,"type":"updated","owner":"c1","owner_name":null,"owner_name":"n","group":"","group":null}]}`,
		`{"events":[{"kind":"websocket","conn_id":"w1-1","type":"message","direction":"received","size":12,"text":"hi","binary":false,"body_truncated":true},{"kind":"websocket","type":"close","code":1000,"reason":"bye","frames_dropped":4}]}`,
		`{"events":[{"kind":"nav","type":"load","to":"u","lean":true,"lean":null},{"kind":"network","lean":false,"body_pending":true,"body_update":null}]}`,
		`{"events":[{"lean":1}]}`, `{"events":[{"lean":"true"}]}`,
		` { "events" : [ ] , "dropped" : null } `,
		`{"batch_id":"mhx0k2a1b2c3.17","dropped":{},"events":[{"kind":"log","level":"log","message":"m"}]}`,
		`{"events":[],"batch_id":null}`, `{"batch_id":"a","batch_id":"b","events":[]}`, `{"batch_id":"\u00e9.1\n","events":[]}`,
		`{"batch_id":17,"events":[]}`, `{"events":[{"kind":"log","batch_id":"x"}]}`,
		`{"dropped_by_tab":{"12":{"log":3},"-1":{"network":1,"x":null},"+7":null,"007":{}},"events":[]}`,
		`{"dropped_by_tab":{"1":{"log":1},"1":{"error":2}},"events":[]}`, `{"dropped_by_tab":{" 1":{}},"events":[]}`,
		`{"dropped_by_tab":{"9223372036854775808":{}},"events":[]}`, `{"dropped_by_tab":null,"dropped_by_tab":{},"events":[]}`,
		`{"events":[{"KIND":"log"}]}`, `{"events":[{"kind":"log","tab_id":1.0}]}`, `{"events":[{"kind":"\ud83d\ude00"}]}`,
		`{"events":[{"status":-0,"value":"-0","ts":-0}]}`, `{"events":[{"line":9223372036854775808}]}`,
		`{"events":[{"message":"` + "\xff" + `"}]}`, `{"events":[]}x`, `{"events":[],"events":[]}`, `{"events":null}`, `{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var fast []apitype.Event
		got, ok := fastDecode([]byte(body), &fast)
		if !ok {
			return
		}
		if got.Events == nil {
			got.Events = []apitype.Event{}
		}
		var want struct {
			BatchID      string                     `json:"batch_id"`
			Dropped      map[string]int64           `json:"dropped"`
			DroppedByTab map[int64]map[string]int64 `json:"dropped_by_tab"`
			Events       *[]apitype.Event           `json:"events"`
		}
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatalf("fast decode accepted %q, encoding/json refused it: %v", body, err)
		}
		if want.Events == nil {
			t.Fatalf("fast decode accepted %q without an events array", body)
		}
		wantBatch := apitype.EventBatch{BatchID: want.BatchID, Dropped: want.Dropped, DroppedByTab: want.DroppedByTab, Events: *want.Events}
		if !reflect.DeepEqual(got, wantBatch) {
			t.Fatalf("decoding %q:\nfast  %#v\njson  %#v", body, got, wantBatch)
		}
	})
}

func TestFastDecodeTakesTheExtensionsBatches(t *testing.T) {
	b := apitype.EventBatch{BatchID: "mhx0k2a1b2c3.17", Dropped: map[string]int64{"log": 2}, DroppedByTab: map[int64]map[string]int64{3: {"network": 4}, -1: {"log": 1}}}
	for _, ev := range []apitype.Event{
		{Kind: "log", TS: 1700000000000, TabID: 3, PageURL: "http://localhost:3000/", Level: "warn", Message: "a\n\"b\" <c> é ✓ \x01", Stack: "at f (a.js:1:2)"},
		{Kind: "network", TS: 1, TabID: 3, RequestID: "9", Source: "page", Method: "POST", URL: "http://a/api", Status: apitype.Num(500),
			ResourceType: "fetch", DurationMS: 12.5, RequestHeaders: map[string]string{"Authorization": "[redacted]"}, ResponseBody: `{"e":1}`, BodyTruncated: true},
		{Kind: "action", TS: 1, TabID: 3, Type: "input", Selector: "#q", Value: apitype.Str("x"), Modifiers: []string{"Shift"},
			Locator: &apitype.Locator{By: "testid", Attr: "data-testid", Value: "q"}},
		{Kind: "network", TS: 1, TabID: 3, RequestID: "10", Source: "page", Method: "GET", URL: "http://a/api", Status: apitype.Num(200),
			ResourceType: "xhr", Lean: true},
		{Kind: "network", TS: 1, TabID: 3, RequestID: "11", Source: "page", Method: "GET", URL: "http://a/api", Status: apitype.Num(200),
			ResourceType: "fetch", BodyPending: true},
		{Kind: "network", TS: 1, TabID: 3, RequestID: "11", Source: "page", Method: "GET", URL: "http://a/api", Status: apitype.Num(200),
			ResourceType: "fetch", BodyUpdate: true, ResponseBody: "ok"},
		{Kind: "nav", TS: 1, TabID: 3, Type: "load", To: "http://a/", Lean: true},
		{Kind: "vital", TS: 1, TabID: 3, Name: "LCP", Value: apitype.Num(1200), Unit: "ms"},
		{Kind: "websocket", TS: 1, TabID: 3, ConnID: "w9-1", Type: "message", Direction: "sent", Size: 5, Text: "hello", BodyTruncated: true},
		{Kind: "websocket", TS: 1, TabID: 3, ConnID: "w9-1", Type: "message", Direction: "received", Size: 512, Binary: true},
		{Kind: "websocket", TS: 1, TabID: 3, ConnID: "w9-1", Type: "close", Code: 1006, Reason: "gone", FramesDropped: 2},
		{Kind: "tab", TS: 1, TabID: 3, Type: "updated", Status: apitype.Str("loading"), Active: new(bool), WindowID: 1,
			Owner: ptrTo("01HZ"), OwnerName: ptrTo("claude-code"), Group: ptrTo("")},
	} {
		b.Events = append(b.Events, ev)
	}
	body, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var evs []apitype.Event
	got, ok := fastDecode(body, &evs)
	if !ok {
		t.Fatalf("fast decode refused %s", body)
	}
	if !reflect.DeepEqual(got, b) {
		t.Errorf("got %#v, want %#v", got, b)
	}
	for _, body := range []string{`{"events":[{"Kind":"log"}]}`, `{"events":[{"kind":"log","extra":1}]}`, `{"events":[` + strings.Repeat("{},", apitype.MaxEventsPerBatch+1) + `{}]}`} {
		if _, ok := fastDecode([]byte(body), new([]apitype.Event)); ok {
			t.Errorf("fast decode took %.60q, want it left to encoding/json", body)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
