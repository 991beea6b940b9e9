package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/jpeg" // decodes the JPEG images the daemon makes
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/imaging/imagingtest"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// ownedTab is a tab event that reports tab id as owned by client ("" for
// the user's).
func ownedTab(id int64, typ, client string) apitype.Event {
	ev := tabEvent(id, typ, "http://localhost:3000/t"+itoa(int(id)), "T"+itoa(int(id)))
	if client != "" {
		ev.Owner, ev.OwnerName = &client, &client
	}
	return ev
}

// TestOneOwnershipRule: command_result (with and without a mode, and with
// region) and resources/read follow one rule for every output, stored or
// inline results, network bodies and annotation crops alike: only the
// agent whose command made an output reads it, and another agent's id gets
// the answer an unknown id gets.
func TestOneOwnershipRule(t *testing.T) {
	e := newCapEnv(t)
	run := func(result string) string {
		t.Helper()
		id := e.call(t, "alice", "interact", `{"action":"execute_js","script":"1"}`).field("correlation_id").(string)
		e.delivered(t)
		if _, err := e.keep.Report("ext", reportOf(id, result)); err != nil {
			t.Fatal(err)
		}
		return id
	}
	large, _ := json.Marshal(map[string]any{"value": strings.Repeat("<p>alice's page</p>", 400), "tab_id": 1})
	stored := run(string(large))
	inline := run(`{"value":"small","tab_id":1}`)

	big := requestEvent("GET", "http://localhost:3000/api/big", 200)
	big.ResponseBody = `{"rows":"` + strings.Repeat("x", 40_000) + `"}`
	e.ingest(t, big)
	body := e.call(t, "alice", "observe", `{"what":"network","id":1,"body":"response","tabs":"all"}`)
	bodyID, _ := body.field("output", "id").(string)
	if bodyID == "" {
		t.Fatalf("alice's large body: %s, want a handle", body.Text)
	}

	ann, err := e.trk.Submit(tracker.Spec{Client: "alice", Prefix: "ann", Action: "draw_mode", External: true})
	if err != nil {
		t.Fatal(err)
	}
	post := annotate.Post{CorrelationID: ann.ID, URL: "http://localhost:3000/", Viewport: annotate.Viewport{Width: 800, Height: 600},
		Annotations: []annotate.Annotation{{Note: "this", Rect: annotate.Rect{Width: 40, Height: 30},
			Crop: &annotate.Crop{Data: imagingtest.PNG(t, 40, 30), MIMEType: "image/png"}}}}
	if err := post.Check(); err != nil {
		t.Fatal(err)
	}
	if d, err := e.keep.FinishDraw(&post, time.Now()); err != nil || d.Crops != 1 {
		t.Fatalf("finishing alice's draw-mode session: %+v, %v; want one crop stored", d, err)
	}
	cropID := post.Annotations[0].Screenshot.Handle

	// unknownText is what a call answers for an id nobody has, with the
	// id replaced, so another agent's id can be compared with it.
	unknownText := func(client, args, id string) string {
		t.Helper()
		r := e.call(t, client, "observe", strings.ReplaceAll(args, "ID", id))
		if r.errorCode() != "unknown_correlation_id" {
			t.Fatalf("%s as %s on %s: %s, want unknown_correlation_id", args, client, id, r.Text)
		}
		return strings.ReplaceAll(r.Text, id, "ID")
	}
	reads := []string{
		`{"what":"command_result","correlation_id":"ID"}`,
		`{"what":"command_result","correlation_id":"ID","wait_ms":10}`,
		`{"what":"command_result","correlation_id":"ID","mode":"slice","start":0,"length":10}`,
		`{"what":"command_result","correlation_id":"ID","mode":"raw"}`,
		`{"what":"command_result","correlation_id":"ID","mode":"extract","query":"page"}`,
		`{"what":"command_result","correlation_id":"ID","region":{"x":0,"y":0,"width":5,"height":5}}`,
	}
	for _, args := range reads {
		want := unknownText("bob", args, "exec_nope")
		for _, id := range []string{stored, inline, bodyID, cropID} {
			if args == reads[0] || args == reads[1] {
				if id == bodyID {
					continue // a body handle is no command: read by mode only
				}
			}
			if got := unknownText("bob", args, id); got != want {
				t.Errorf("bob's %s on alice's %s:\n got %s\nwant %s (as for an unknown id)", args, id, got, want)
			}
		}
	}
	for _, id := range []string{stored, inline, bodyID, cropID} {
		if r := e.call(t, "alice", "observe", `{"what":"command_result","correlation_id":"`+id+`","mode":"slice","start":0,"length":10}`); r.IsError {
			t.Errorf("alice's own %s: %s", id, r.Text)
		}
	}

	_, unknown := e.rpc(t, "bob", "resources/read", `{"uri":"gasoline://output/exec_nope"}`, true)
	for _, id := range []string{stored, inline, bodyID, cropID} {
		_, msg := e.rpc(t, "bob", "resources/read", `{"uri":"gasoline://output/`+id+`"}`, true)
		if strings.ReplaceAll(msg, id, "exec_nope") != unknown {
			t.Errorf("bob's resources/read of %s: %q, want %q (as for an unknown id)", id, msg, unknown)
		}
		if _, msg := e.rpc(t, "alice", "resources/read", `{"uri":"gasoline://output/`+id+`"}`, false); msg != "" {
			t.Errorf("alice's resources/read of %s: %s", id, msg)
		}
	}
}

// TestStoredImage: a stored image reads back as an image block, cut by
// region and scaled by max_dim, and as a resources/read blob.
func TestStoredImage(t *testing.T) {
	e := newCapEnv(t)
	png := imagingtest.PNG(t, 1200, 900) // before the command: its ack timer is short
	id := e.call(t, "alice", "interact", `{"action":"screenshot","full_resolution":true}`).field("correlation_id").(string)
	e.delivered(t)
	res, _ := json.Marshal(map[string]any{"value": png, "mime_type": "image/png", "width": 1200, "height": 900, "tab_id": 1})
	if _, err := e.keep.Report("ext", reportOf(id, string(res))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		wantW      int
		wantH      int
		wantCode   string
	}{
		{"the result, fitted", `{"what":"command_result","correlation_id":"ID"}`, 1200, 900, ""},
		{"a region at full size", `{"what":"command_result","correlation_id":"ID","region":{"x":100,"y":100,"width":300,"height":200}}`, 300, 200, ""},
		{"max_dim", `{"what":"command_result","correlation_id":"ID","max_dim":400}`, 400, 300, ""},
		{"a region outside", `{"what":"command_result","correlation_id":"ID","region":{"x":5000,"y":0,"width":10,"height":10}}`, 0, 0, "invalid_arguments"},
		{"an empty region", `{"what":"command_result","correlation_id":"ID","region":{"x":0,"y":0,"width":0,"height":10}}`, 0, 0, "invalid_arguments"},
		{"region with a mode", `{"what":"command_result","correlation_id":"ID","mode":"raw","max_dim":400}`, 0, 0, "invalid_arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := strings.ReplaceAll(tt.args, "ID", id)
			if tt.wantCode != "" {
				if r := e.call(t, "alice", "observe", args); r.errorCode() != tt.wantCode {
					t.Fatalf("got %s, want code %q", r.Text, tt.wantCode)
				}
				return
			}
			img := e.image(t, "alice", args)
			w, h := imageSize(t, img.Data)
			if w != tt.wantW || h != tt.wantH {
				t.Errorf("image %dx%d, want %dx%d", w, h, tt.wantW, tt.wantH)
			}
		})
	}
	if list, _ := e.rpc(t, "alice", "resources/list", `{}`, false); !strings.Contains(string(list), `"uri":"gasoline://output/`+id+`"`) ||
		!strings.Contains(string(list), `"mimeType":"image/png"`) {
		t.Errorf("resources/list %s: want the screenshot as image/png", list)
	}
	read, _ := e.rpc(t, "alice", "resources/read", `{"uri":"gasoline://output/`+id+`"}`, false)
	var rr struct {
		Contents []map[string]any `json:"contents"`
	}
	json.Unmarshal(read, &rr)
	if len(rr.Contents) != 1 || rr.Contents[0]["blob"] != png || rr.Contents[0]["mimeType"] != "image/png" || rr.Contents[0]["text"] != nil {
		t.Errorf("resources/read of the image: %.300s, want one blob image/png without text", read)
	}
}

// TestCaptureScope: capture reads cover the caller's tabs (owned, or acted
// in) unless tabs:"all"; an agent with no tab reads the tabs no agent owns
// (the user's), and the empty answer's hint says so.
func TestCaptureScope(t *testing.T) {
	e := newCapEnv(t)
	e.ingest(t,
		ownedTab(1, "updated", "alice"), ownedTab(2, "updated", "bob"), ownedTab(3, "activated", ""),
		logEvent(1, "info", "alice's"), logEvent(2, "info", "bob's"), logEvent(3, "info", "the user's"),
		logEvent(4, "info", "a tab not reported yet"), logEvent(-1, "info", "outside any tab"),
	)
	logTabs := func(client, args string) ([]int64, string) {
		t.Helper()
		r := e.call(t, client, "observe", args)
		if r.IsError {
			t.Fatalf("%s as %s: %s", args, client, r.Text)
		}
		var p struct {
			Entries []struct {
				TabID int64 `json:"tab_id"`
			}
			Hint string
		}
		json.Unmarshal([]byte(r.Text), &p)
		var tabs []int64
		for _, en := range p.Entries {
			tabs = append(tabs, en.TabID)
		}
		return tabs, p.Hint
	}
	tests := []struct {
		client, args string
		want         []int64
	}{
		{"alice", `{"what":"logs"}`, []int64{1}},
		{"bob", `{"what":"logs"}`, []int64{2}},
		{"bob", `{"what":"logs","tabs":"all"}`, []int64{1, 2, 3, 4, -1}},
		{"bob", `{"what":"logs","tab_id":1,"force":true}`, []int64{1}}, // alice's, with force
		{"alice", `{"what":"logs","tab_id":1}`, []int64{1}},
		{"carol", `{"what":"logs"}`, []int64{3, 4, -1}}, // no tab: every tab no agent owns
	}
	for _, tt := range tests {
		if got, _ := logTabs(tt.client, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s: tabs %v, want %v", tt.client, tt.args, got, tt.want)
		}
	}
	// Another agent's tab by tab_id needs force, and the refusal names its owner.
	for _, args := range []string{`{"what":"logs","tab_id":1}`, `{"what":"network","tab_id":1,"format":"har"}`, `{"what":"errors","tab_id":1}`} {
		if r := e.call(t, "bob", "observe", args); r.errorCode() != "not_your_tab" || !strings.Contains(r.Text, "alice") || !strings.Contains(r.Text, "force:true") {
			t.Errorf("bob %s: %s, want not_your_tab naming alice and force:true", args, r.Text)
		}
	}
	if _, hint := logTabs("carol", `{"what":"logs","text":"nothing like it"}`); !strings.Contains(hint, "no tab yet, so this read the tabs no agent owns") {
		t.Errorf("carol's empty read: hint %q, want it to say it read the active tab", hint)
	}
	if r := e.call(t, "carol", "observe", `{"what":"logs","tabs":"mine"}`); r.errorCode() != "invalid_arguments" {
		t.Errorf("tabs:\"mine\": %s, want invalid_arguments", r.Text)
	}

	// dave acts in the user's tab 3: it is his from then on.
	id := e.call(t, "dave", "interact", `{"action":"execute_js","script":"1"}`).field("correlation_id").(string)
	e.delivered(t)
	if _, err := e.keep.Report("ext", reportOf(id, `{"value":1,"tab_id":3}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := logTabs("dave", `{"what":"logs"}`); !slices.Equal(got, []int64{3}) {
		t.Errorf("dave after acting in tab 3: tabs %v, want [3]", got)
	}
	if r := e.call(t, "dave", "observe", `{"what":"page"}`); r.field("tab_id") != float64(3) {
		t.Errorf("dave's page: %s, want tab 3, where he acted", r.Text)
	}
	// bob's errors: none in his tab, and the hint says which tabs were read.
	r := e.call(t, "bob", "observe", `{"what":"errors"}`)
	if !strings.Contains(r.Text, `this read only your tabs [2]; tabs:\"all\"`) {
		t.Errorf("bob's errors: %s, want the scope hint", r.Text)
	}
}

// image calls observe(args) as client and returns its one image block.
func (e *capEnv) image(t *testing.T, client, args string) struct{ Data, MIMEType string } {
	t.Helper()
	out := e.s.Handle(context.Background(), client, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":`+args+`}}`))
	var resp struct {
		Result struct {
			Content []struct {
				Type, Data string
				MIMEType   string `json:"mimeType"`
			}
		}
	}
	json.Unmarshal(out, &resp)
	for _, c := range resp.Result.Content {
		if c.Type == "image" {
			return struct{ Data, MIMEType string }{c.Data, c.MIMEType}
		}
	}
	t.Fatalf("observe %s: no image block in %.300s", args, out)
	return struct{ Data, MIMEType string }{}
}

// imageSize decodes a base64 PNG or JPEG and returns its size.
func imageSize(t *testing.T, b64 string) (int, int) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decoding the image: %v", err)
	}
	return cfg.Width, cfg.Height
}
