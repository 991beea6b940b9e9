package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// screenshotActions capture what the tab shows.
func screenshotActions() []action {
	a := browser[screenshotArgs]("screenshot", "shot", "")
	a.Idempotent = true
	return []action{a}
}

func init() { presenters["screenshot"] = (*Tools).presentScreenshot }

type screenshotArgs struct {
	targetArgs     `list:"target?"`
	FullPage       bool `json:"full_page,omitempty"`
	MaxDim         int  `json:"max_dim,omitempty"`
	FullResolution bool `json:"full_resolution,omitempty"`
}

func (a screenshotArgs) check() error {
	if err := a.checkTarget("screenshot", true, false); err != nil {
		return err
	}
	if a.FullPage && len(a.kinds(false)) > 0 {
		return mcp.Errorf("invalid_arguments", "pass full_page or a target, not both", "screenshot: full_page and a target")
	}
	return nil
}

// screenshotReport is what the extension reports: the image as base64 in
// value, and its facts.
type screenshotReport struct {
	Value    string `json:"value"`
	MIMEType string `json:"mime_type"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
	Captured struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"captured"`
	TabID int64  `json:"tab_id"`
	URL   string `json:"url"`
}

// screenshotView is screenshot's answer; the image itself is an MCP image
// content block beside it.
type screenshotView struct {
	Bytes       int    `json:"bytes"`
	Captured    string `json:"captured"` // the size captured, before downscaling
	Height      int    `json:"height"`
	ImageTokens int    `json:"image_tokens"` // width × height / 750
	MIMEType    string `json:"mime_type"`
	TabID       int64  `json:"tab_id"`
	URL         string `json:"url"`
	Width       int    `json:"width"`
}

// maxImageBase64 bounds the image a result carries inline (about 3.75 MB
// of image): a larger one (full_resolution) stays behind its handle.
const maxImageBase64 = 5 << 20

// presentScreenshot turns a screenshot's report into an image content
// block and a small view. A PNG at full resolution stays in the output
// store behind its handle, as large results do.
func (t *Tools) presentScreenshot(c tracker.Command, v *commandView) {
	var r screenshotReport
	stored, isStored := result.StoredOf(c)
	if isStored {
		for k, raw := range stored.Meta {
			json.Unmarshal(fmt.Appendf(nil, `{%q:%s}`, k, raw), &r)
		}
		if r.MIMEType == "image/png" || stored.Handle.Chars > maxImageBase64 {
			v.Message = "The screenshot at full resolution is stored (base64 PNG); read it with mode:\"slice\". " + v.Message
			return
		}
		var b strings.Builder
		for start := 0; start < stored.Handle.Chars; {
			sl, err := t.d.Results.Store().Slice(c.ID, output.SliceRequest{Start: ptr(start), Length: stored.Handle.Chars - start})
			if err != nil || sl.End <= start {
				return
			}
			b.WriteString(sl.Text)
			start = sl.End
		}
		r.Value = b.String()
	} else if err := json.Unmarshal(c.Result, &r); err != nil || r.Value == "" {
		return
	}
	v.images = []mcp.Image{{Data: r.Value, MIMEType: r.MIMEType}}
	v.Message = ""
	v.Result, _ = json.Marshal(screenshotView{Bytes: r.Bytes, Captured: fmt.Sprintf("%dx%d", r.Captured.Width, r.Captured.Height),
		Height: r.Height, ImageTokens: (r.Width*r.Height + 749) / 750, MIMEType: r.MIMEType, TabID: r.TabID, URL: r.URL, Width: r.Width})
}
