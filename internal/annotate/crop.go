package annotate

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of posted crops
	_ "image/png"
	"strconv"
	"strings"
)

// Each annotation of a Done post may carry a cropped screenshot of its
// rectangle, which the extension cut from the visible tab. The daemon keeps
// it out of the session (which stays small: handles, not bytes): KeepCrops
// moves each crop to the large-output store under a handle the agent reads
// it back by, as an image, with observe command_result.

// Limits on posted crops. A crop beyond them is dropped with a
// screenshot_error saying so; the annotation itself is kept.
const (
	MaxCropBytes  = 2 << 20  // one crop, decoded
	MaxCropsBytes = 10 << 20 // every crop of a post, decoded (13.4 MB as base64)
	MaxCropSide   = 8000     // pixels
)

// CropPrefix starts the handle of every stored crop; no action queues
// commands under it, so handles never clash with correlation ids.
const CropPrefix = "crop_"

// Crop is a posted cropped screenshot: a PNG or JPEG image in base64.
// Partial says the rectangle was partly outside the viewport when Done was
// pressed, so the image shows only its visible part.
type Crop struct {
	Data     string `json:"data"`
	MIMEType string `json:"mime_type"`
	Partial  bool   `json:"partial,omitempty"`

	width, height, size int // set by checkCrop
}

// Screenshot is an annotation's stored crop as the agent sees it.
type Screenshot struct {
	Handle   string `json:"handle"`
	MIMEType string `json:"mime_type"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
	Partial  bool   `json:"partial,omitempty"`
}

// CropHandle is the handle of the crop of the i-th (from 0) annotation of
// session id.
func CropHandle(id string, i int) string {
	return CropPrefix + strings.TrimPrefix(id, "ann_") + "_" + strconv.Itoa(i+1)
}

// IsCropHandle reports whether id names a stored crop.
func IsCropHandle(id string) bool { return strings.HasPrefix(id, CropPrefix) }

// checkCrops validates the crops of p in place: a crop that is not a PNG or
// JPEG matching its mime_type, too large, or beyond the post's total is
// dropped and its annotation says why in screenshot_error. Handles the
// extension sent are dropped: only KeepCrops sets them.
func (p *Post) checkCrops() {
	total := 0
	for i := range p.Annotations {
		a := &p.Annotations[i]
		a.Screenshot = nil
		a.ScreenshotError = clip(a.ScreenshotError, MaxReason)
		if a.Crop == nil {
			continue
		}
		err := a.Crop.check()
		if err == nil && total+a.Crop.size > MaxCropsBytes {
			err = fmt.Errorf("left out: the crops together exceed %d MB", MaxCropsBytes>>20)
		}
		if err != nil {
			a.Crop, a.ScreenshotError = nil, err.Error()
			continue
		}
		total += a.Crop.size
		a.ScreenshotError = ""
	}
}

func (c *Crop) check() error {
	if c.MIMEType != "image/png" && c.MIMEType != "image/jpeg" {
		return fmt.Errorf("the crop sent was %q, not image/png or image/jpeg", clip(c.MIMEType, 40))
	}
	if base64.StdEncoding.DecodedLen(len(c.Data)) > MaxCropBytes+2 {
		return fmt.Errorf("the crop sent was over %d MB", MaxCropBytes>>20)
	}
	raw, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return fmt.Errorf("the crop sent was not base64: %v", err)
	}
	if len(raw) > MaxCropBytes {
		return fmt.Errorf("the crop sent was over %d MB", MaxCropBytes>>20)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	switch {
	case err != nil:
		return fmt.Errorf("the crop sent is not a readable image: %v", err)
	case "image/"+format != c.MIMEType:
		return fmt.Errorf("the crop sent is a %s image labelled %s", format, c.MIMEType)
	case cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxCropSide || cfg.Height > MaxCropSide:
		return fmt.Errorf("the crop sent is %dx%d pixels; at most %d a side", cfg.Width, cfg.Height, MaxCropSide)
	}
	c.width, c.height, c.size = cfg.Width, cfg.Height, len(raw)
	return nil
}

// KeepCrops moves the crops of a checked post p into a store: put(handle,
// base64) stores one. Each annotation with a crop then carries its
// Screenshot instead, or a screenshot_error when put failed. It returns the
// handles stored, for the caller to delete if the session is then refused.
func (p *Post) KeepCrops(put func(handle, data string) error) []string {
	var kept []string
	for i := range p.Annotations {
		a := &p.Annotations[i]
		c := a.Crop
		if c == nil {
			continue
		}
		a.Crop = nil
		h := CropHandle(p.CorrelationID, i)
		if err := put(h, c.Data); err != nil {
			a.ScreenshotError = clip("the crop could not be stored: "+err.Error(), MaxReason)
			continue
		}
		kept = append(kept, h)
		a.Screenshot = &Screenshot{Handle: h, MIMEType: c.MIMEType, Width: c.width, Height: c.height, Bytes: c.size, Partial: c.Partial}
	}
	return kept
}
