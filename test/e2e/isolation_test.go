//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // decodes the fitted images
	_ "image/png"  // decodes the full-resolution PNG
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logsOf reads observe logs as a and returns the messages containing text
// with their tabs, and the answer's hint.
func (a *agent) logsOf(text string, extra map[string]any) (map[string]int64, string, error) {
	args := map[string]any{"what": "logs", "text": text, "since": 0}
	for k, v := range extra {
		args[k] = v
	}
	r, err := a.c.Call(a.ctx, "observe", args)
	if err != nil {
		return nil, "", err
	}
	var p struct {
		Entries []struct {
			TabID   int64  `json:"tab_id"`
			Message string `json:"message"`
		} `json:"entries"`
		Hint string `json:"hint"`
	}
	if err := json.Unmarshal(r.Raw, &p); err != nil {
		return nil, "", fmt.Errorf("observe logs %s: %v", r.Raw, err)
	}
	got := map[string]int64{}
	for _, e := range p.Entries {
		got[e.Message] = e.TabID
	}
	return got, p.Hint, nil
}

// decodeImage decodes a PNG or JPEG and returns its size and format.
func decodeImage(t *testing.T, data []byte) (int, int, string) {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decoding the image (%d bytes): %v", len(data), err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy(), format
}

// TestIsolationTwoAgents: two agents (two gasoline-mcp processes, official
// SDK clients) in one browser keep to their own things. beta's close_tab
// and navigate of alpha's tab are refused naming alpha, and work with
// force:true; beta's observe logs does not show alpha's console unless
// tabs:"all"; beta cannot read alpha's result or stored output by id, and
// gets the answer an unknown id gets.
func TestIsolationTwoAgents(t *testing.T) {
	e := ready(t)
	alpha, beta := e.agent("agent-alpha"), e.agent("agent-beta")
	var ta, tb struct {
		TabID int64 `json:"tab_id"`
	}
	if err := alpha.ok("new_tab", map[string]any{"url": e.site.URL + "/a"}, &ta); err != nil {
		t.Fatal(err)
	}
	if err := beta.ok("new_tab", map[string]any{"url": e.site.URL + "/b"}, &tb); err != nil {
		t.Fatal(err)
	}

	// alpha's console, in alpha's tab.
	marker := fmt.Sprintf("alpha-secret-%d", time.Now().UnixNano())
	js, err := alpha.act("execute_js", map[string]any{"script": "console.log('" + marker + "'); return document.title"})
	if err != nil || js.Status != "complete" {
		t.Fatalf("alpha's execute_js: %v %s", err, js)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, _, err := alpha.logsOf(marker, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[marker] == ta.TabID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alpha never read its own console.log in tab %d: %v", ta.TabID, got)
		}
	}
	got, hint, err := beta.logsOf(marker, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || !strings.Contains(hint, `tabs:"all"`) {
		t.Errorf("beta's observe logs shows %v (hint %q), want none of alpha's and a hint naming tabs:\"all\"", got, hint)
	}
	if got, _, err = beta.logsOf(marker, map[string]any{"tabs": "all"}); err != nil || got[marker] != ta.TabID {
		t.Errorf("beta's observe logs tabs:\"all\": %v, %v; want alpha's log with its tab %d", got, err, ta.TabID)
	}

	// beta cannot read alpha's result by id: the same answer as an unknown id.
	unknown := func(id string, extra map[string]any) string {
		t.Helper()
		args := map[string]any{"what": "command_result", "correlation_id": id}
		for k, v := range extra {
			args[k] = v
		}
		r, err := beta.c.Call(beta.ctx, "observe", args)
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsError || r.ToolError == nil || r.ToolError.Code != "unknown_correlation_id" {
			t.Fatalf("beta reads %s %v: %s, want unknown_correlation_id", id, extra, r)
		}
		return strings.ReplaceAll(r.ToolError.Message, id, "ID")
	}
	for _, extra := range []map[string]any{nil, {"mode": "raw"}, {"mode": "slice", "start": 0, "length": 5}} {
		if got, want := unknown(js.CorrelationID, extra), unknown("exec_01ZZZZZZZZZZZZZZZZZZZZZZZZ", extra); got != want {
			t.Errorf("beta reading alpha's %s %v: %q, want what an unknown id gets: %q", js.CorrelationID, extra, got, want)
		}
	}

	// beta's close_tab and navigate of alpha's tab: refused, naming alpha.
	for action, args := range map[string]map[string]any{
		"close_tab": {"tab_id": ta.TabID},
		"navigate":  {"tab_id": ta.TabID, "url": e.site.URL + "/c"},
	} {
		r, err := beta.act(action, args)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "error" || !strings.Contains(r.Error, "belongs to agent agent-alpha") || !strings.Contains(r.Error, "force:true") {
			t.Errorf("beta's %s of alpha's tab: %s, want an error naming agent-alpha and force:true", action, r)
		}
	}
	if r := complete(t, e.js("return location.pathname", map[string]any{"tab_id": ta.TabID, "force": true})); str(t, r) != "/a" {
		t.Errorf("alpha's tab after beta's refused navigate shows %s, want /a", r.Value)
	}

	// With force:true it works.
	var closed struct {
		Closed int64 `json:"closed"`
	}
	if err := beta.ok("close_tab", map[string]any{"tab_id": ta.TabID, "force": true}, &closed); err != nil || closed.Closed != ta.TabID {
		t.Fatalf("beta's close_tab of alpha's tab with force: %v, closed %d", err, closed.Closed)
	}
}

// TestIsolationFullResolutionScreenshot: a full-resolution screenshot of a
// simple page (small enough to stay inline) is kept behind a handle, shown
// fitted, read back as an image block cut by region and scaled by max_dim,
// and as a resources/read blob, which another agent cannot read.
func TestIsolationFullResolutionScreenshot(t *testing.T) {
	e := ready(t)
	alpha, beta := e.agent("agent-alpha"), e.agent("agent-beta")
	if err := alpha.ok("new_tab", map[string]any{"url": e.site.URL + "/hands/widgets.html"}, nil); err != nil {
		t.Fatal(err)
	}
	shot, err := alpha.act("screenshot", map[string]any{"full_resolution": true})
	if err != nil || shot.Status != "complete" || len(shot.Images) != 1 {
		t.Fatalf("full-resolution screenshot: %v %s, %d images; want complete with one image", err, shot, len(shot.Images))
	}
	var view struct {
		Width  int `json:"width"`
		Height int `json:"height"`
		Full   struct {
			Size string `json:"size"`
			URI  string `json:"uri"`
		} `json:"full_resolution"`
	}
	json.Unmarshal(shot.Value, &view)
	var fullW, fullH int
	if _, err := fmt.Sscanf(view.Full.Size, "%dx%d", &fullW, &fullH); err != nil || view.Full.URI != "gasoline://output/"+shot.CorrelationID {
		t.Fatalf("screenshot result %s: want full_resolution with its size and uri", shot.Value)
	}
	if w, h, _ := decodeImage(t, shot.Images[0].Data); w != view.Width || h != view.Height || w*h > 1_200_000 {
		t.Errorf("the image block is %dx%d, the result says %dx%d; want them equal and within ~1600 image tokens", w, h, view.Width, view.Height)
	}

	read := func(a *agent, args map[string]any) gasoline.Result {
		t.Helper()
		args["what"], args["correlation_id"] = "command_result", shot.CorrelationID
		r, err := a.c.Call(a.ctx, "observe", args)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := read(alpha, map[string]any{"region": map[string]any{"x": 10, "y": 20, "width": 200, "height": 100}})
	if r.IsError || len(r.Images) != 1 {
		t.Fatalf("region: %s, %d images; want one image", r, len(r.Images))
	}
	if w, h, _ := decodeImage(t, r.Images[0].Data); w != 200 || h != 100 {
		t.Errorf("region 200x100: image %dx%d", w, h)
	}
	r = read(alpha, map[string]any{"max_dim": 300})
	if r.IsError || len(r.Images) != 1 {
		t.Fatalf("max_dim: %s, %d images; want one image", r, len(r.Images))
	}
	if w, h, _ := decodeImage(t, r.Images[0].Data); max(w, h) != 300 {
		t.Errorf("max_dim 300: image %dx%d", w, h)
	}
	if r = read(beta, map[string]any{"max_dim": 300}); !r.IsError || r.ToolError == nil || r.ToolError.Code != "unknown_correlation_id" {
		t.Errorf("beta reading alpha's screenshot: %s, want unknown_correlation_id", r)
	}

	res, err := alpha.c.Session.ReadResource(alpha.ctx, &mcp.ReadResourceParams{URI: view.Full.URI})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %v %+v", view.Full.URI, err, res)
	}
	c := res.Contents[0]
	if c.MIMEType != "image/png" || c.Text != "" {
		t.Errorf("resources/read: mimeType %q, %d chars of text; want an image/png blob", c.MIMEType, len(c.Text))
	}
	if w, h, format := decodeImage(t, c.Blob); w != fullW || h != fullH || format != "png" {
		t.Errorf("resources/read blob: %dx%d %s, want the full %dx%d PNG", w, h, format, fullW, fullH)
	}
	if _, err := beta.c.Session.ReadResource(beta.ctx, &mcp.ReadResourceParams{URI: view.Full.URI}); err == nil {
		t.Errorf("beta read alpha's screenshot through resources/read")
	}
}
