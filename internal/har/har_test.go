package har

import (
	"encoding/json"
	"testing"
	"time"
)

// required are the fields HAR 1.2 requires of each object
// (http://www.softwareishard.com/blog/har-12-spec/), by the object's path.
var required = map[string][]string{
	"log":                            {"version", "creator", "pages", "entries"},
	"log.creator":                    {"name", "version"},
	"log.pages[]":                    {"startedDateTime", "id", "title", "pageTimings"},
	"log.entries[]":                  {"startedDateTime", "time", "request", "response", "cache", "timings"},
	"log.entries[].request":          {"method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"},
	"log.entries[].request.postData": {"mimeType", "text"},
	"log.entries[].response":         {"status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"},
	"log.entries[].response.content": {"size", "mimeType"},
	"log.entries[].timings":          {"send", "wait", "receive"},
}

// walk calls visit with every object of v under path.
func walk(path string, v any, visit func(path string, obj map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		visit(path, v)
		for k, c := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, c, visit)
		}
	case []any:
		for _, c := range v {
			walk(path+"[]", c, visit)
		}
	}
}

func TestBuildHasEveryRequiredField(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	xs := []Exchange{
		{Started: t0, PageURL: "http://127.0.0.1:1/", Method: "GET", URL: "http://127.0.0.1:1/", Status: 200, DurationMS: 12,
			MimeType: "text/html", ResponseHeaders: map[string]string{"Content-Type": "text/html"},
			ResponseBody: Body{Text: "<p>hi</p>", Source: FromCache}},
		{Started: t0.Add(time.Millisecond), PageURL: "http://127.0.0.1:1/", Method: "POST", URL: "http://127.0.0.1:1/api?q=a%20b&x",
			Status: 302, RequestHeaders: map[string]string{"Authorization": "[redacted]", "content-type": "application/json"},
			ResponseHeaders: map[string]string{"Location": "/next"},
			RequestBody:     Body{Text: `{"a":1}`, Source: FromCapture}, ResponseBody: Body{Why: "not a text type"}},
		{Started: t0.Add(2 * time.Millisecond), PageURL: "http://127.0.0.1:1/other", Method: "GET", URL: "http://127.0.0.1:1/gone", Error: "net::ERR_FAILED"},
	}
	h := Build(Creator{Name: "gasoline", Version: "test"}, xs)
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	walk("", doc, func(path string, obj map[string]any) {
		for _, f := range required[path] {
			if _, ok := obj[f]; !ok {
				t.Errorf("%s: no %q in %v", path, f, obj)
			}
		}
		seen[path]++
	})
	for path := range required {
		if seen[path] == 0 {
			t.Errorf("the test archive has no %s object to check", path)
		}
	}

	if got, want := len(h.Log.Pages), 2; got != want {
		t.Errorf("pages: got %d, want %d", got, want)
	}
	e := h.Log.Entries[1]
	if got, want := e.Request.QueryString, []NameValue{{"q", "a b"}, {"x", ""}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("queryString: got %v, want %v", got, want)
	}
	if got, want := e.Response.RedirectURL, "/next"; got != want {
		t.Errorf("redirectURL: got %q, want %q", got, want)
	}
	if got, want := e.Request.Headers[0], (NameValue{"Authorization", "[redacted]"}); got != want {
		t.Errorf("redacted header: got %v, want %v", got, want)
	}
	if got, want := e.Response.Content.Comment, "not a text type"; got != want {
		t.Errorf("content comment: got %q, want %q", got, want)
	}
	if got, want := h.Log.Entries[0].Response.Content.Comment, FromCache; got != want {
		t.Errorf("content comment: got %q, want %q", got, want)
	}
	if got, want := h.Log.Entries[0].StartedDateTime, "2026-11-26T05:00:00.000Z"; got != want {
		t.Errorf("startedDateTime: got %q, want %q", got, want)
	}
}
