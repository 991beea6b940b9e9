package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/har"
)

// harOf reads the HAR a format:"har" answer r stored, through
// resources/read as an MCP client would, and checks its mimeType.
func harOf(t *testing.T, e *capEnv, r callResult) har.HAR {
	t.Helper()
	uri, _ := r.field("resource_link", "uri").(string)
	if r.IsError || !strings.HasPrefix(uri, outputScheme+harHandlePrefix) || r.field("resource_link", "mimeType") != "application/json" {
		t.Fatalf("format:har: got %s, want a stored HAR linked as application/json", r.Text)
	}
	read, _ := e.rpc(t, "agent", "resources/read", `{"uri":"`+uri+`"}`, false)
	var res struct {
		Contents []struct{ MimeType, Text string }
	}
	if err := json.Unmarshal(read, &res); err != nil || len(res.Contents) != 1 || res.Contents[0].MimeType != "application/json" {
		t.Fatalf("resources/read %s: got %s, want one application/json text", uri, read)
	}
	text := res.Contents[0].Text
	if !strings.HasPrefix(text, `{"`+string(pageFence.open)+`":"","log":`) || !strings.HasSuffix(text, `,"`+string(pageFence.close)+`":""}`) {
		t.Errorf("the HAR read as a resource: want its log between the page fence's markers: %.200s … %.200s", text, text[max(0, len(text)-200):])
	}
	var h har.HAR
	if err := json.Unmarshal([]byte(text), &h); err != nil {
		t.Fatalf("the HAR is not JSON: %v", err)
	}
	return h
}

// TestNetworkHAR exports captured requests with observe's filters; the
// bodies the capture kept go in, credentials stay redacted, and without an
// extension the page's own bodies are missing with the reason.
func TestNetworkHAR(t *testing.T) {
	e := newCapEnv(t)
	e.fixture(t)
	doc := requestEvent("GET", "http://localhost:3000/cart", 200)
	doc.ResourceType, doc.Source, doc.MimeType = "document", "browser", "text/html"
	doc.RequestHeaders = map[string]string{"Authorization": "Bearer sekrit"}
	e.ingest(t, doc)

	h := harOf(t, e, e.call(t, "agent", "observe", `{"what":"network","format":"har","tabs":"all","url":"/api/"}`))
	if got := len(h.Log.Entries); got != 2 {
		t.Fatalf("entries: got %d, want the 2 requests to /api/", got)
	}
	post := h.Log.Entries[1]
	if post.Request.Method != "POST" || post.Response.Status != 500 || post.Request.PostData == nil ||
		post.Request.PostData.Text != `{"item":9,"qty":2}` || post.Response.Content.Text != `{"error":"out of stock"}` || post.Response.Content.Comment != har.FromCapture {
		t.Errorf("POST entry: got %+v, want its captured bodies", post)
	}

	h = harOf(t, e, e.call(t, "agent", "observe", `{"what":"network","format":"har","tabs":"all","limit":1}`))
	if got := len(h.Log.Entries); got != 1 || !strings.HasSuffix(h.Log.Entries[0].Request.URL, "/api/cart") {
		t.Fatalf("limit 1: got %d entries, want the oldest request", got)
	}

	h = harOf(t, e, e.call(t, "agent", "observe", `{"what":"network","format":"har","tabs":"all","status":"200"}`))
	if got := len(h.Log.Entries); got != 2 {
		t.Fatalf("entries with status 200: got %d, want 2", got)
	}
	d := h.Log.Entries[1]
	if got := d.Request.Headers; len(got) != 1 || got[0].Value != "[redacted]" {
		t.Errorf("document request headers: got %v, want Authorization [redacted]", got)
	}
	if got, want := d.Response.Content.Comment, "not captured, and not re-read from the page's cache: no extension is connected"; got != want {
		t.Errorf("document body comment: got %q, want %q", got, want)
	}
	if !d.Response.Content.NotCaptured {
		t.Error("document body: _notCaptured is not set")
	}
}

// TestNetworkHARRereadsBodies: the page's document body comes from the
// extension's har_bodies command, and the entry says it was a cache read.
func TestNetworkHARRereadsBodies(t *testing.T) {
	e := newCapEnv(t)
	doc := requestEvent("GET", "http://localhost:3000/cart", 200)
	doc.ResourceType, doc.Source, doc.MimeType = "document", "browser", "text/html"
	css := requestEvent("GET", "http://localhost:3000/s.css", 200)
	css.ResourceType, css.Source, css.TabID = "stylesheet", "browser", 1
	e.ingest(t, doc, css)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	polled := make(chan error, 1)
	go func() { // the extension: polling before the export, so it counts as connected
		cs, err := e.trk.Poll(ctx, "ext", 1)
		if err == nil && (len(cs) != 1 || cs[0].Action != "har_bodies") {
			t.Errorf("polled %+v, want one har_bodies command", cs)
		}
		if err == nil {
			var p harParams
			json.Unmarshal(cs[0].Params, &p)
			if p.TabID != 1 || len(p.URLs) != 2 || p.MaxBytes <= 0 || len(p.Timings) != 2 {
				t.Errorf("har_bodies params: got %+v, want the 2 URLs to re-read and their timings", p)
			}
			// The document's timeline began 5 ms before the capture's stamp.
			_, err = e.keep.Report("ext", reportOf(cs[0].ID, `{"bodies":[{"url":"http://localhost:3000/cart","text":"<h1>Cart</h1>","source":"cache"},`+
				`{"url":"http://localhost:3000/s.css","error":"the page could not read it (HTTP 404)"}],`+
				`"timings":[{"url":"http://localhost:3000/cart","origin":1699999999995,"start":0,"dns_start":1,"dns_end":1,"connect_start":1,"connect_end":1,`+
				`"request_start":4,"response_start":20,"response_end":25.5,"protocol":"h2"}]}`))
		}
		polled <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); !e.trk.Presence().Connected; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fake extension's poll never started")
		}
	}
	h := harOf(t, e, e.call(t, "agent", "observe", `{"what":"network","format":"har","tabs":"all"}`))
	if err := <-polled; err != nil {
		t.Fatal(err)
	}
	if c := h.Log.Entries[0].Response.Content; c.Text != "<h1>Cart</h1>" || c.Comment != har.FromCache {
		t.Errorf("document content: got %+v, want the re-read text marked %q", c, har.FromCache)
	}
	if c := h.Log.Entries[1].Response.Content; c.Text != "" || !strings.Contains(c.Comment, "HTTP 404") {
		t.Errorf("stylesheet content: got %+v, want no text and the extension's reason", c)
	}
	d := h.Log.Entries[0]
	want := har.Timings{Blocked: 4, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: 16, Receive: 5.5}
	if d.Timings != want || d.Time != 25.5 || d.Response.HTTPVersion != "HTTP/2" || d.Request.HTTPVersion != "HTTP/2" {
		t.Errorf("document: got timings %+v time %v httpVersion %q, want %+v, 25.5 and HTTP/2 from its Resource Timing entry",
			d.Timings, d.Time, d.Response.HTTPVersion, want)
	}
	if s := h.Log.Entries[1]; s.Response.HTTPVersion != "" || !strings.Contains(s.Comment, "no Resource Timing entry") {
		t.Errorf("stylesheet without a timing entry: got httpVersion %q, comment %q; want none and the reason", s.Response.HTTPVersion, s.Comment)
	}
}
