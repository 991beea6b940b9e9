package daemon_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// startDraw starts a draw-mode session for client and answers the overlay
// command the extension receives, as the extension does once the overlay
// shows. It returns the session's id and the overlay command's params.
func startDraw(t *testing.T, d *harness.Daemon, client string, args map[string]any) (string, map[string]any) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["what"], args["wait"] = "annotations", true
	res, isErr := d.Call(t, client, "analyze", args)
	id, _ := res["correlation_id"].(string)
	if isErr || res["status"] != "waiting_for_user" || !strings.HasPrefix(id, "ann_") {
		t.Fatalf("analyze annotations wait:true: got %v, want waiting_for_user with an ann_ id", res)
	}
	ext := d.Extension("ext-1")
	q := ext.PollUntil(t, 1)[0]
	var p map[string]any
	json.Unmarshal(q.Params, &p)
	if q.Action != "draw_mode_show" || p["correlation_id"] != id {
		t.Fatalf("the extension got %s %s, want draw_mode_show for %s", q.Action, q.Params, id)
	}
	ext.Report(t, q.CorrelationID, "complete", map[string]any{"shown": true}, "")
	return id, p
}

func twoAnnotations(id string) map[string]any {
	return map[string]any{"correlation_id": id, "url": "http://127.0.0.1/page", "viewport": map[string]any{"width": 800, "height": 600, "scroll_y": 400},
		"annotations": []any{
			map[string]any{"note": "button too small", "rect": map[string]any{"x": 10, "y": 20, "width": 100, "height": 40},
				"element": map[string]any{"selector": "#buy", "ref": "e3", "role": "button", "name": "Buy", "text": "Buy",
					"styles": map[string]any{"font-size": "9px"}}},
			map[string]any{"note": "wrong colour", "rect": map[string]any{"x": 200, "y": 300, "width": 50, "height": 50}},
		}}
}

func TestDrawModeCompleteWakesEveryWaiter(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	id, p := startDraw(t, d, "agent", map[string]any{"instructions": "Mark what looks wrong", "mode": "pick", "max_items": 5})
	if p["instructions"] != "Mark what looks wrong" || p["mode"] != "pick" || p["max_items"] != float64(5) {
		t.Errorf("overlay params %v: want the agent's instructions, mode and max_items", p)
	}
	var wg sync.WaitGroup
	got := make([]map[string]any, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": 50000})
		}()
	}
	// The waiters may or may not have started waiting when the post lands:
	// either way they must both get the session.
	code, body := d.Post(t, "/draw-mode/complete", nil, twoAnnotations(id))
	if code != 200 || !strings.Contains(string(body), `"state":"complete"`) {
		t.Fatalf("POST /draw-mode/complete: %d %s", code, body)
	}
	wg.Wait()
	for i, res := range got {
		anns, _ := harness.Field(res, "result", "annotations").([]any)
		if res["status"] != "complete" || len(anns) != 2 || harness.Field(res, "result", "url") != "http://127.0.0.1/page" ||
			harness.Field(res, "result", "viewport", "scroll_y") != float64(400) {
			t.Fatalf("waiter %d: got %v, want complete with the two annotations, url and viewport", i, res)
		}
		first := anns[0].(map[string]any)
		if first["note"] != "button too small" || harness.Field(first, "element", "ref") != "e3" || harness.Field(first, "rect", "width") != float64(100) {
			t.Errorf("waiter %d: first annotation %v", i, first)
		}
	}
	// Read by its agent: a new wait starts a new session; without wait the
	// latest session is still there to read.
	res, _ := d.Call(t, "agent", "analyze", map[string]any{"what": "annotations"})
	if res["status"] != "complete" || res["correlation_id"] != id {
		t.Errorf("analyze annotations without wait: got %v, want the latest session %s", res, id)
	}
	res, _ = d.Call(t, "agent", "analyze", map[string]any{"what": "annotations", "wait": true})
	if res["status"] != "waiting_for_user" || res["correlation_id"] == id {
		t.Errorf("after reading: got %v, want a new session", res)
	}
}

func TestDrawModeUnreadSessionIsReturnedAtOnce(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	res, _ := d.Call(t, "agent", "analyze", map[string]any{"what": "annotations"})
	if res["status"] != "none" || !strings.Contains(res["message"].(string), "wait:true") {
		t.Fatalf("no session yet: got %v, want none with how to start one", res)
	}
	id, _ := startDraw(t, d, "agent", nil)
	if code, body := d.Post(t, "/draw-mode/complete", nil, twoAnnotations(id)); code != 200 {
		t.Fatalf("POST: %d %s", code, body)
	}
	res, _ = d.Call(t, "other", "analyze", map[string]any{"what": "annotations", "wait": true})
	if res["status"] != "waiting_for_user" {
		t.Errorf("another agent: got %v, want its own new session", res)
	}
	res, _ = d.Call(t, "agent", "analyze", map[string]any{"what": "annotations", "wait": true})
	if res["status"] != "complete" || res["correlation_id"] != id || harness.Field(res, "result", "count") != float64(2) {
		t.Fatalf("unread session: got %v, want %s returned at once", res, id)
	}
}

func TestDrawModeEnds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   daemon.Options
		end    func(t *testing.T, d *harness.Daemon, id string)
		status string
		reason string
		inErr  string
	}{
		{name: "cancelled by the user", status: "cancelled", reason: tracker.ReasonCancelled, inErr: "pressed Esc",
			end: func(t *testing.T, d *harness.Daemon, id string) {
				if code, body := d.Post(t, "/draw-mode/complete", nil, map[string]any{"correlation_id": id, "cancelled": true, "reason": "pressed Esc"}); code != 200 {
					t.Fatalf("POST cancel: %d %s", code, body)
				}
			}},
		{name: "no Done in time", opts: daemon.Options{Tracker: tracker.Options{ExternalTTL: 200 * time.Millisecond}},
			status: "expired", reason: tracker.ReasonWaitExpired, inErr: "start it again",
			end: func(*testing.T, *harness.Daemon, string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := harness.StartDaemon(t, tc.opts)
			id, _ := startDraw(t, d, "agent", nil)
			tc.end(t, d, id)
			res := d.Result(t, "agent", id, 30000)
			if res["status"] != tc.status || res["reason"] != tc.reason || !strings.Contains(res["error"].(string), tc.inErr) || res["hint"] == nil {
				t.Fatalf("got %v, want %s (%s) with an error mentioning %q and a hint", res, tc.status, tc.reason, tc.inErr)
			}
			if code, body := d.Post(t, "/draw-mode/complete", nil, twoAnnotations(id)); code != 409 || !strings.Contains(string(body), "session_final") {
				t.Errorf("Done after the end: %d %s, want 409 session_final", code, body)
			}
		})
	}
}

func TestDrawModeWaitEndsPendingThenReceives(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{UserDrivenWait: 100 * time.Millisecond})
	id, _ := startDraw(t, d, "agent", nil)
	res, _ := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id})
	if res["status"] != "pending" || res["phase"] != "waiting_for_user" || !strings.Contains(res["message"].(string), "again") {
		t.Fatalf("first wait: got %v, want pending, waiting_for_user, with a hint to call again", res)
	}
	if code, body := d.Post(t, "/draw-mode/complete", nil, twoAnnotations(id)); code != 200 {
		t.Fatalf("POST: %d %s", code, body)
	}
	res, _ = d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id})
	if res["status"] != "complete" || harness.Field(res, "result", "count") != float64(2) {
		t.Fatalf("second wait: got %v, want complete", res)
	}
}

func TestDrawModeOverlayNotShownCancels(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	res, _ := d.Call(t, "agent", "interact", map[string]any{"action": "draw_mode_start", "instructions": "Circle it"})
	id, _ := res["correlation_id"].(string)
	if res["status"] != "waiting_for_user" || !strings.HasPrefix(id, "ann_") {
		t.Fatalf("draw_mode_start: got %v", res)
	}
	ext := d.Extension("ext-1")
	q := ext.PollUntil(t, 1)[0]
	ext.Report(t, q.CorrelationID, "error", nil, "chrome:// pages cannot be scripted")
	res = d.Result(t, "agent", id, 30000)
	if res["status"] != "cancelled" || !strings.Contains(res["error"].(string), "cannot be scripted") {
		t.Fatalf("got %v, want the session cancelled with the overlay's error", res)
	}
}

func TestDrawModePostsAreChecked(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	id, _ := startDraw(t, d, "agent", nil)
	exec := d.Submit(t, "agent", "x", nil)
	many := twoAnnotations(id)
	var anns []any
	for range 21 {
		anns = append(anns, map[string]any{"note": "n", "rect": map[string]any{"x": 0, "y": 0, "width": 1, "height": 1}})
	}
	many["annotations"] = anns
	negative := twoAnnotations(id)
	negative["annotations"] = []any{map[string]any{"note": "n", "rect": map[string]any{"x": 0, "y": 0, "width": -5, "height": 1}}}
	for _, tc := range []struct {
		name string
		body any
		code int
		in   string
	}{
		{"not JSON", json.RawMessage(`{`), 400, "invalid_json"},
		{"not a draw-mode id", map[string]any{"correlation_id": exec}, 400, "invalid_annotations"},
		{"unknown session", twoAnnotations("ann_nope"), 404, "unknown_session"},
		{"too many", many, 400, "at most 20"},
		{"negative width", negative, 400, "width"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := d.Post(t, "/draw-mode/complete", nil, tc.body)
			if code != tc.code || !strings.Contains(string(body), tc.in) {
				t.Errorf("got %d %s, want %d mentioning %q", code, body, tc.code, tc.in)
			}
		})
	}
	long := twoAnnotations(id)
	long["annotations"].([]any)[0].(map[string]any)["note"] = strings.Repeat("é", 2000)
	if code, body := d.Post(t, "/draw-mode/complete", nil, long); code != 200 {
		t.Fatalf("a long note: %d %s, want it accepted and capped", code, body)
	}
	res := d.Result(t, "agent", id, 0)
	note := harness.Field(res, "result", "annotations").([]any)[0].(map[string]any)["note"].(string)
	if len(note) > 500 || !strings.HasSuffix(note, "…") {
		t.Errorf("note of %d bytes, want it capped at 500 with a mark", len(note))
	}
	// Without a token the endpoint is closed.
	code, _ := d.Post(t, "/draw-mode/complete", map[string]string{"Authorization": ""}, twoAnnotations(id))
	if code != 401 {
		t.Errorf("without a token: %d, want 401", code)
	}
}

// pngData is a w×h PNG filled with c, in base64, followed by pad zero
// bytes (its header still reads: it stands for a larger image).
func pngData(t *testing.T, w, h int, c color.Color, pad int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, pad))
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestDrawModeCrops: a Done post carries a cropped screenshot per
// annotation (over the old 256 KB body cap); the session keeps only a
// handle with the image's size, and the agent reads the crop back as an
// image content block, or its base64 with the read modes.
func TestDrawModeCrops(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	id, _ := startDraw(t, d, "agent", nil)
	post := twoAnnotations(id)
	anns := post["annotations"].([]any)
	crop := pngData(t, 200, 80, color.RGBA{255, 0, 0, 255}, 600<<10)
	anns[0].(map[string]any)["crop"] = map[string]any{"data": crop, "mime_type": "image/png"}
	anns[1].(map[string]any)["screenshot_error"] = "off screen when Done was pressed"
	if code, body := d.Post(t, "/draw-mode/complete", nil, post); code != 200 {
		t.Fatalf("POST with a crop: %d %s", code, body)
	}
	res := d.Result(t, "agent", id, 0)
	if enc, _ := json.Marshal(res); len(enc) > 4000 || strings.Contains(string(enc), crop[:100]) {
		t.Fatalf("the session is %d bytes: want the crop out of it, a handle in its place", len(enc))
	}
	got := harness.Field(res, "result", "annotations").([]any)
	shot, _ := got[0].(map[string]any)["screenshot"].(map[string]any)
	handle, _ := shot["handle"].(string)
	if !strings.HasPrefix(handle, "crop_") || shot["mime_type"] != "image/png" || shot["width"] != float64(200) || shot["height"] != float64(80) ||
		shot["bytes"] != float64(base64.StdEncoding.DecodedLen(len(crop))-strings.Count(crop, "=")) {
		t.Fatalf("first annotation's screenshot %v: want a crop_ handle, image/png 200x80 and its bytes", shot)
	}
	if msg, _ := res["message"].(string); !strings.Contains(msg, "screenshot.handle") {
		t.Errorf("message %q: want how to see the crops", msg)
	}
	if second := got[1].(map[string]any); second["screenshot"] != nil || second["screenshot_error"] != "off screen when Done was pressed" {
		t.Errorf("second annotation %v: want no screenshot and the extension's reason", second)
	}

	view, isErr, images := d.CallImages(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": handle})
	if isErr || view["status"] != "complete" || view["width"] != float64(200) || len(images) != 1 || images[0].MIMEType != "image/png" {
		t.Fatalf("reading the crop: %v, %d images, want complete with one PNG", view, len(images))
	}
	img, err := png.Decode(bytes.NewReader(images[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(100, 40).RGBA(); img.Bounds().Dx() != 200 || r>>8 != 255 || g != 0 || b != 0 {
		t.Errorf("the crop read back is %v with (%d,%d,%d) in the middle, want 200 wide and red", img.Bounds(), r>>8, g>>8, b>>8)
	}
	slice, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": handle, "mode": "slice", "start": 0, "length": 100})
	if isErr || !strings.HasPrefix(crop, slice["text"].(string)) {
		t.Errorf("slice of the crop: %v, want its base64", slice)
	}
	// The session and its crops are the agent's, as every output is: the
	// agent reads its latest session; another agent gets neither, and the
	// crop's handle answers as an unknown one does.
	latest, _ := d.Call(t, "agent", "analyze", map[string]any{"what": "annotations"})
	if msg, _ := latest["message"].(string); latest["correlation_id"] != id || !strings.Contains(msg, "screenshot.handle") {
		t.Errorf("latest session: %v, want %s and how to see its crops", latest, id)
	}
	if other, _ := d.Call(t, "other", "analyze", map[string]any{"what": "annotations"}); other["status"] != "none" {
		t.Errorf("another agent's latest session: %v, want none", other)
	}
	unknown, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": "crop_nope_1"})
	if !isErr || harness.Field(unknown, "error", "code") != "unknown_correlation_id" {
		t.Errorf("an unknown crop: %v, want unknown_correlation_id", unknown)
	}
	res, isErr, images = d.CallImages(t, "other", "observe", map[string]any{"what": "command_result", "correlation_id": handle})
	if got, want := strings.ReplaceAll(fmt.Sprint(res), handle, "crop_nope_1"), fmt.Sprint(unknown); !isErr || len(images) != 0 || got != want {
		t.Errorf("another agent reading the crop: %v, %d images, want %v", res, len(images), unknown)
	}

	// A post for a session that already ended stores nothing.
	again := twoAnnotations(id)
	again["annotations"].([]any)[1].(map[string]any)["crop"] = map[string]any{"data": crop, "mime_type": "image/png"}
	if code, body := d.Post(t, "/draw-mode/complete", nil, again); code != 409 {
		t.Fatalf("a second Done: %d %s, want 409", code, body)
	}
	if res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": strings.TrimSuffix(handle, "1") + "2"}); !isErr {
		t.Errorf("the refused post's crop was stored: %v", res)
	}
	// The body cap is raised for this route only, and bounded.
	huge := twoAnnotations(id)
	huge["note"] = strings.Repeat("x", 17<<20)
	if code, body := d.Post(t, "/draw-mode/complete", nil, huge); code != 413 {
		t.Errorf("a 17 MB post: %d %.200s, want 413", code, body)
	}
}
