package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/imaging/imagingtest"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// TestPresentScreenshot turns a screenshot report into one image block and
// a small view, whether the report stayed inline or was stored because it
// was large; a full-resolution PNG stays behind its handle.
func TestPresentScreenshot(t *testing.T) {
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	store := output.New(output.Options{})
	tl := New(Deps{Tracker: trk, Results: result.NewKeeper(trk, store, zerolog.Nop()), Log: zerolog.Nop()})
	finished := time.Now()
	meta := map[string]json.RawMessage{"mime_type": json.RawMessage(`"image/jpeg"`), "width": json.RawMessage(`1456`),
		"height": json.RawMessage(`816`), "bytes": json.RawMessage(`123456`), "tab_id": json.RawMessage(`3`),
		"url": json.RawMessage(`"http://x/"`), "captured": json.RawMessage(`{"width":2560,"height":1440}`)}

	inline := tracker.Command{ID: "shot_1", Action: "screenshot", State: tracker.StateComplete, FinishedAt: &finished,
		Result: json.RawMessage(`{"value":"QUJD","mime_type":"image/jpeg","width":2,"height":1,"bytes":3,"captured":{"width":4,"height":2},"tab_id":3,"url":"http://x/"}`)}
	v := tl.commandView(inline, finished, false)
	if len(v.Images()) != 1 || v.Images()[0].Data != "QUJD" || v.Images()[0].MIMEType != "image/jpeg" {
		t.Errorf("inline: images %+v", v.Images())
	}
	if want := `{"bytes":3,"captured":"4x2","height":1,"image_tokens":1,"mime_type":"image/jpeg","tab_id":3,"url":"http://x/","width":2}`; string(v.Result) != want {
		t.Errorf("inline: got %s, want %s", v.Result, want)
	}

	big := strings.Repeat("A", 200_000) // past the slice limit: read back in pieces
	h, err := store.Add("shot_2", big)
	if err != nil {
		t.Fatal(err)
	}
	stored := tracker.Command{ID: "shot_2", Action: "screenshot", State: tracker.StateComplete, FinishedAt: &finished,
		Attachment: &result.Stored{Handle: h, Meta: meta}}
	v = tl.commandView(stored, finished, false)
	if len(v.Images()) != 1 || v.Images()[0].Data != big || v.Message != "" {
		t.Errorf("stored: %d images of %d chars, message %q", len(v.Images()), len(v.Images()[0].Data), v.Message)
	}
	if !strings.Contains(string(v.Result), `"captured":"2560x1440"`) || !strings.Contains(string(v.Result), `"image_tokens":1585`) {
		t.Errorf("stored: %s", v.Result)
	}

	// Full resolution: the PNG is kept behind a handle even when it was
	// small enough to stay inline, and shown fitted to ~1600 image tokens.
	meta["mime_type"] = json.RawMessage(`"image/png"`)
	full := imagingtest.PNG(t, 2000, 1000)
	h, _ = store.Add("shot_3", full)
	for _, c := range []tracker.Command{
		{ID: "shot_3", Action: "screenshot", State: tracker.StateComplete, FinishedAt: &finished, Attachment: &result.Stored{Handle: h, Meta: meta}},
		{ID: "shot_4", Action: "screenshot", State: tracker.StateComplete, FinishedAt: &finished, Client: "agent",
			Result: json.RawMessage(`{"value":"` + imagingtest.PNG(t, 300, 200) + `","mime_type":"image/png","width":300,"height":200,"tab_id":3}`)},
	} {
		v = tl.commandView(c, finished, false)
		var got struct {
			Width, Height int
			MIMEType      string    `json:"mime_type"`
			Full          *fullView `json:"full_resolution"`
		}
		json.Unmarshal(v.Result, &got)
		if len(v.Images()) != 1 || got.Full == nil || got.Full.URI != "gasoline://output/"+c.ID || v.Message != "" {
			t.Fatalf("%s: images %d, message %q, result %.300s", c.ID, len(v.Images()), v.Message, v.Result)
		}
		if got.Width*got.Height > 1_200_000 || max(got.Width, got.Height) > 1568 {
			t.Errorf("%s: shown at %dx%d, want it within ~1600 image tokens", c.ID, got.Width, got.Height)
		}
		if _, err := store.Handle(c.ID); err != nil {
			t.Errorf("%s: the full-resolution image is not kept: %v", c.ID, err)
		}
	}
	if !tl.d.Results.Owns("agent", "shot_4") {
		t.Errorf("the inline full-resolution image stored for its reading is not its agent's")
	}
}
