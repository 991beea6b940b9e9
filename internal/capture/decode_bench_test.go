package capture

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// benchBatch is a batch of 200 events of every kind the pages send most.
func benchBatch(b *testing.B) (apitype.EventBatch, []byte) {
	b.Helper()
	var batch apitype.EventBatch
	for i := range 200 {
		ev := apitype.Event{Kind: "log", TS: 1700000000000, TabID: 3, PageURL: "http://localhost:3000/", Level: "log",
			Message: "cart updated: item " + strconv.Itoa(i), Source: "http://localhost:3000/static/js/main.chunk.js:1234:17"}
		switch i % 5 {
		case 1:
			ev = apitype.Event{Kind: "network", TS: 1, TabID: 3, PageURL: "http://localhost:3000/", RequestID: strconv.Itoa(i), Source: "page",
				Method: "GET", URL: "http://localhost:3000/api/cart/" + strconv.Itoa(i), Status: apitype.Num(200), ResourceType: "fetch",
				DurationMS: 12.5, ResponseHeaders: map[string]string{"content-type": "application/json"}, ResponseBody: `{"ok":true}`}
		case 2:
			ev = apitype.Event{Kind: "action", TS: 1, TabID: 3, PageURL: "http://localhost:3000/", Type: "click", Selector: "#add",
				Role: "button", Name: "Add", Locator: &apitype.Locator{By: "role", Role: "button", Name: "Add"}}
		case 3:
			ev = apitype.Event{Kind: "error", TS: 1, TabID: 3, PageURL: "http://localhost:3000/", Type: "uncaught", Message: "x is undefined",
				Stack: "at f (a.js:1:2)", Line: 1, Column: 2}
		}
		batch.Events = append(batch.Events, ev)
	}
	body, err := json.Marshal(batch)
	if err != nil {
		b.Fatal(err)
	}
	return batch, body
}

// BenchmarkFastDecode decodes a batch of 200 events.
func BenchmarkFastDecode(b *testing.B) {
	_, body := benchBatch(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var evs []apitype.Event
	for b.Loop() {
		evs = evs[:0]
		if _, ok := fastDecode(body, &evs); !ok {
			b.Fatal("fast decode refused the batch")
		}
	}
}

// BenchmarkValidate validates a batch of 200 events.
func BenchmarkValidate(b *testing.B) {
	batch, _ := benchBatch(b)
	cfg := settings{redact: true, secrets: NewSecrets(nil), bodyCap: 1 << 16}
	b.ReportAllocs()
	for b.Loop() {
		for i := range batch.Events {
			if _, r := validate(&batch.Events[i], cfg, 1); r != "" {
				b.Fatal(r)
			}
		}
	}
}
