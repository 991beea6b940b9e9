package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"

	"github.com/gasoline-mcp/gasoline/internal/imaging"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// screenshotActions capture what the tab shows.
func screenshotActions() []action {
	a := browser[screenshotArgs]("screenshot", "shot", "")
	a.Idempotent = true
	a.present = (*Tools).presentScreenshot
	return []action{a}
}

type screenshotArgs struct {
	targetArgs     `list:"target?"`
	FullPage       bool `json:"full_page,omitempty"`
	MaxDim         int  `json:"max_dim,omitempty" min:"64" max:"8000"`
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
	TabID    int64  `json:"tab_id"`
	URL      string `json:"url"`
	WaitedMS int    `json:"waited_ms"`
	Reused   bool   `json:"reused"`
	AgeMS    int    `json:"age_ms"`
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
	// WaitedMS is how long the capture waited for Chrome's quota (two a
	// second); Reused says the viewport had not changed since the last
	// capture, AgeMS ago, which was served again.
	WaitedMS int  `json:"waited_ms,omitempty"`
	Reused   bool `json:"reused,omitempty"`
	AgeMS    int  `json:"age_ms,omitempty"`
	// Full is the full-resolution image kept behind a handle (full_resolution).
	Full *fullView `json:"full_resolution,omitempty"`
}

// The one rule: a screenshot's result is an image block of at most about
// 1 600 image tokens (longest side ≤ 1 568 px); with full_resolution the
// captured PNG is also kept behind a handle, whatever its size, and
// command_result on that id with region or max_dim shows it at full size,
// resources/read returns it as a blob.

// fullView tells where the full-resolution image is and how to see it.
type fullView struct {
	Size string `json:"size"` // the stored image's size, "2560x1440"
	URI  string `json:"uri"`
	Hint string `json:"hint"`
}

// presentScreenshot turns a screenshot's report into an image content
// block and a small view. A full-resolution PNG is stored (when the result
// was small enough to stay inline, now) and shown fitted.
func (t *Tools) presentScreenshot(c tracker.Command, v *commandView) {
	var r screenshotReport
	stored, isStored := result.StoredOf(c)
	if isStored {
		for k, raw := range stored.Meta {
			json.Unmarshal(fmt.Appendf(nil, `{%q:%s}`, k, raw), &r)
		}
		data, err := t.d.Results.ContentOf(c)
		if err != nil {
			v.Message = "The screenshot was dropped under the output memory budget; take it again. " + v.Message
			return
		}
		r.Value = data
	} else if err := json.Unmarshal(c.Result, &r); err != nil || r.Value == "" {
		return
	}
	view := screenshotView{Bytes: r.Bytes, Captured: fmt.Sprintf("%dx%d", r.Captured.Width, r.Captured.Height),
		Height: r.Height, MIMEType: r.MIMEType, TabID: r.TabID, URL: r.URL, Width: r.Width,
		WaitedMS: r.WaitedMS, Reused: r.Reused, AgeMS: r.AgeMS}
	img := mcp.Image{Data: r.Value, MIMEType: r.MIMEType}
	if r.MIMEType == "image/png" { // full_resolution: keep it, show it fitted
		if t.d.Results.Readable(c) != nil {
			return
		}
		fit, err := imaging.Fit(r.Value, imaging.Request{})
		if err != nil {
			return
		}
		img = mcp.Image{Data: fit.Base64, MIMEType: fit.MIMEType}
		view.Width, view.Height, view.Bytes, view.MIMEType = fit.Width, fit.Height, fit.Bytes, fit.MIMEType
		view.Full = &fullView{Size: fmt.Sprintf("%dx%d", fit.Source.X, fit.Source.Y), URI: outputURI(c.ID), Hint: imageHint(c.ID)}
	}
	view.ImageTokens = (view.Width*view.Height + 749) / 750
	v.images = []mcp.Image{img}
	v.Message = ""
	v.Result, _ = json.Marshal(view)
}

// imageHint says how to see more of the stored image id.
func imageHint(id string) string {
	return fmt.Sprintf(`shown fitted to ~1600 image tokens; see a part at full size with observe({what:"command_result", correlation_id:%q, region:{x,y,width,height}}) (pixels of the stored image), or another size with max_dim; resources/read of the uri gives the whole image`, id)
}

// imageArgs pick what command_result shows of a stored image.
type imageArgs struct {
	Region *regionArg `json:"region" desc:"image part, stored px"`
	MaxDim int        `json:"max_dim" min:"64" max:"8000"`
}

// regionArg is a rectangle in a stored image's pixels.
type regionArg struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (a imageArgs) wanted() bool { return a.Region != nil || a.MaxDim != 0 }

// imageView is a stored image shown to the agent; the image itself is an
// MCP image content block beside it.
type imageView struct {
	Bytes         int    `json:"bytes"`
	CorrelationID string `json:"correlation_id"`
	Height        int    `json:"height"`
	ImageTokens   int    `json:"image_tokens"` // width × height / 750
	MIMEType      string `json:"mime_type"`
	Region        string `json:"region"` // the part shown, "x,y widthxheight" in stored pixels
	Source        string `json:"source"` // the stored image's size
	Status        string `json:"status"`
	URI           string `json:"uri"`
	Width         int    `json:"width"`
	images        []mcp.Image
}

func (v *imageView) command() string { return v.CorrelationID }

// Images returns the image (mcp.Imager).
func (v *imageView) Images() []mcp.Image { return v.images }

// storedImage serves command_result with region or max_dim, and on an
// annotation's crop handle: the stored image id (a full-resolution
// screenshot, a crop) of client, cut and scaled in the daemon (fitted to
// about 1600 image tokens without region and max_dim).
func (t *Tools) storedImage(client, id string, a imageArgs) (*imageView, error) {
	data, err := t.d.Results.Content(client, id)
	if err != nil {
		return nil, outputError(id, err)
	}
	req := imaging.Request{MaxDim: a.MaxDim}
	if g := a.Region; g != nil {
		if g.Width <= 0 || g.Height <= 0 {
			return nil, mcp.Errorf("invalid_arguments", "pass region:{x, y, width, height} with a positive width and height, in the stored image's pixels",
				"region %dx%d is empty", g.Width, g.Height)
		}
		req.Region = image.Rect(g.X, g.Y, g.X+g.Width, g.Y+g.Height)
	}
	fit, err := imaging.Fit(data, req)
	switch {
	case errors.Is(err, imaging.ErrNotImage):
		return nil, mcp.Errorf("not_an_image", `read it with mode:"slice" or mode:"extract"`, "the output of %s is not an image, so region and max_dim do not apply", id)
	case errors.Is(err, imaging.ErrBadRegion):
		return nil, mcp.Errorf("invalid_arguments", "pick a region inside the image; observe command_result without region says its size", "%v", err)
	case err != nil:
		return nil, err
	}
	return &imageView{CorrelationID: id, Status: string(tracker.StateComplete), MIMEType: fit.MIMEType, Width: fit.Width, Height: fit.Height,
		Bytes: fit.Bytes, ImageTokens: (fit.Width*fit.Height + 749) / 750, URI: outputURI(id),
		Source: fmt.Sprintf("%dx%d", fit.Source.X, fit.Source.Y),
		Region: fmt.Sprintf("%d,%d %dx%d", fit.Region.Min.X, fit.Region.Min.Y, fit.Region.Dx(), fit.Region.Dy()),
		images: []mcp.Image{{Data: fit.Base64, MIMEType: fit.MIMEType}}}, nil
}
