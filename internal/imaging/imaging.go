// Package imaging crops and downscales the images gasoline stores
// (full-resolution screenshots, annotation crops) so that an agent can see
// them as MCP image content of a size its client takes, using only the
// standard library's image packages.
package imaging

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
)

// Defaults of Fit: an image an agent sees costs about width × height / 750
// tokens, so 1 200 000 pixels are about 1 600 image tokens, and the
// longest side stays within what vision models take unscaled.
const (
	DefaultMaxDim    = 1568
	DefaultMaxPixels = 1_200_000
	jpegQuality      = 85
)

// ErrNotImage: the stored content is not a base64 PNG or JPEG.
var ErrNotImage = errors.New("not a base64 PNG or JPEG image")

// ErrBadRegion: the region asked for lies outside the image or is empty.
var ErrBadRegion = errors.New("region outside the image")

// Sniff reports the MIME type of base64 content when it is a PNG or JPEG
// (its first bytes say so), else "". It decodes only a few bytes.
func Sniff(b64 string) string {
	head, err := base64.StdEncoding.DecodeString(b64[:min(len(b64), 16)])
	if err != nil && len(head) < 4 {
		return ""
	}
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	}
	return ""
}

// Request picks the part of an image to show and the size to show it at.
type Request struct {
	// Region is the part to show in the image's pixels; the zero
	// rectangle is the whole image.
	Region image.Rectangle
	// MaxDim bounds the longest side of the result; 0 is DefaultMaxDim.
	// An explicit MaxDim lifts the pixel bound (the agent chose the size).
	MaxDim int
}

// Result is an image ready to hand to an agent.
type Result struct {
	Base64   string
	MIMEType string
	Width    int
	Height   int
	Bytes    int
	// Source is the stored image's size; Region the part shown, in its pixels.
	Source image.Point
	Region image.Rectangle
}

// Fit decodes the base64 image b64 and returns the part r asks for,
// downscaled with a box filter to fit r.MaxDim (and, with the default
// MaxDim, DefaultMaxPixels). An image that already fits, with no region,
// is returned as stored; anything cropped or scaled is encoded as JPEG.
func Fit(b64 string, r Request) (Result, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || (format != "png" && format != "jpeg") {
		return Result{}, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	full := image.Rect(0, 0, cfg.Width, cfg.Height)
	region := full
	if !r.Region.Empty() {
		region = r.Region.Intersect(full)
		if region.Empty() {
			return Result{}, fmt.Errorf("%w: %v does not overlap the image's %dx%d pixels", ErrBadRegion, r.Region, cfg.Width, cfg.Height)
		}
	}
	maxPixels := DefaultMaxPixels
	maxDim := r.MaxDim
	if maxDim <= 0 {
		maxDim = DefaultMaxDim
	} else {
		maxPixels = math.MaxInt
	}
	w, h := Size(region.Dx(), region.Dy(), maxDim, maxPixels)
	out := Result{Source: full.Max, Region: region, Width: w, Height: h}
	if region == full && w == cfg.Width && h == cfg.Height {
		out.Base64, out.MIMEType, out.Bytes = b64, "image/"+format, len(raw)
		return out, nil
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	scaled := Downscale(img, region, w, h)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, scaled, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return Result{}, fmt.Errorf("encoding the image: %w", err)
	}
	out.Base64, out.MIMEType, out.Bytes = base64.StdEncoding.EncodeToString(buf.Bytes()), "image/jpeg", buf.Len()
	return out, nil
}

// Size returns the size a w×h image is shown at: scaled down, keeping its
// aspect ratio, so the longest side is at most maxDim and the area at most
// maxPixels; never scaled up, never below 1×1.
func Size(w, h, maxDim, maxPixels int) (int, int) {
	k := 1.0
	if long := max(w, h); long > maxDim {
		k = float64(maxDim) / float64(long)
	}
	if area := float64(w) * float64(h) * k * k; area > float64(maxPixels) {
		k *= math.Sqrt(float64(maxPixels) / area)
	}
	if k >= 1 {
		return w, h
	}
	return max(1, int(float64(w)*k)), max(1, int(float64(h)*k))
}

// Downscale returns the part src of img scaled to w×h (at most src's size)
// with a box filter: each output pixel is the mean of the source pixels
// its box covers, so text and thin lines stay legible instead of aliasing.
func Downscale(img image.Image, src image.Rectangle, w, h int) *image.RGBA {
	sw, sh := src.Dx(), src.Dy()
	in, ok := img.(*image.RGBA)
	if !ok {
		// One conversion (draw has fast paths per type) instead of a
		// colour interface per pixel read.
		in = image.NewRGBA(src)
		draw.Draw(in, src, img, src.Min, draw.Src)
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := src.Min.Y+y*sh/h, src.Min.Y+(y+1)*sh/h
		y1 = max(y1, y0+1)
		for x := range w {
			x0, x1 := src.Min.X+x*sw/w, src.Min.X+(x+1)*sw/w
			x1 = max(x1, x0+1)
			var sum [4]uint64
			for sy := y0; sy < y1; sy++ {
				row := in.Pix[in.PixOffset(x0, sy):in.PixOffset(x1, sy)]
				for i := 0; i < len(row); i += 4 {
					sum[0] += uint64(row[i])
					sum[1] += uint64(row[i+1])
					sum[2] += uint64(row[i+2])
					sum[3] += uint64(row[i+3])
				}
			}
			n := uint64((y1 - y0) * (x1 - x0))
			i := out.PixOffset(x, y)
			for c := range 4 {
				out.Pix[i+c] = uint8((sum[c] + n/2) / n)
			}
		}
	}
	return out
}

// PNG encodes img as base64 PNG (tests and callers that need exact pixels).
func PNG(img image.Image) (string, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
