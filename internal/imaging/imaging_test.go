package imaging_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/imaging"
	"github.com/gasoline-mcp/gasoline/internal/imaging/imagingtest"
)

func TestSize(t *testing.T) {
	tests := []struct {
		name                string
		w, h, maxDim, maxPx int
		wantW, wantH        int
	}{
		{"fits", 800, 600, 1568, imaging.DefaultMaxPixels, 800, 600},
		{"long side", 3136, 1000, 1568, 1 << 40, 1568, 500},
		{"tall", 1000, 4000, 1000, 1 << 40, 250, 1000},
		{"pixel bound", 1500, 1500, 1568, 1_200_000, 1095, 1095},
		{"never below one", 10000, 1, 100, 1 << 40, 100, 1},
		{"never up", 10, 10, 1568, 1_200_000, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := imaging.Size(tt.w, tt.h, tt.maxDim, tt.maxPx)
			if w != tt.wantW || h != tt.wantH {
				t.Errorf("got %dx%d, want %dx%d", w, h, tt.wantW, tt.wantH)
			}
			if w*h > tt.maxPx || max(w, h) > tt.maxDim && max(tt.w, tt.h) > tt.maxDim {
				t.Errorf("%dx%d breaks the bounds %d px, %d a side", w, h, tt.maxPx, tt.maxDim)
			}
		})
	}
}

// TestDownscaleBoxFilter checks each output pixel is the mean of its box.
func TestDownscaleBoxFilter(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 2))
	// Left 2x2 box: two black, two white -> mid grey. Right box: all red.
	img.Set(0, 0, color.RGBA{0, 0, 0, 255})
	img.Set(1, 0, color.RGBA{255, 255, 255, 255})
	img.Set(0, 1, color.RGBA{255, 255, 255, 255})
	img.Set(1, 1, color.RGBA{0, 0, 0, 255})
	for _, p := range []image.Point{{2, 0}, {3, 0}, {2, 1}, {3, 1}} {
		img.Set(p.X, p.Y, color.RGBA{255, 0, 0, 255})
	}
	out := imaging.Downscale(img, img.Bounds(), 2, 1)
	if got := out.RGBAAt(0, 0); got.R < 126 || got.R > 128 || got.G != got.R || got.A != 255 {
		t.Errorf("left pixel %v, want mid grey", got)
	}
	if got := out.RGBAAt(1, 0); got != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("right pixel %v, want red", got)
	}
	// A region: only the red half, scaled to one pixel.
	if got := imaging.Downscale(img, image.Rect(2, 0, 4, 2), 1, 1).RGBAAt(0, 0); got != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("region pixel %v, want red", got)
	}
}

func TestFit(t *testing.T) {
	src := imagingtest.PNG(t, 2000, 1000)
	if got := imaging.Sniff(src); got != "image/png" {
		t.Fatalf("Sniff: got %q, want image/png", got)
	}
	tests := []struct {
		name         string
		req          imaging.Request
		wantW, wantH int
		wantMIME     string
	}{
		{"default fits 1600 tokens", imaging.Request{}, 1549, 774, "image/jpeg"},
		{"max_dim", imaging.Request{MaxDim: 500}, 500, 250, "image/jpeg"},
		{"region at full size", imaging.Request{Region: image.Rect(100, 50, 400, 250)}, 300, 200, "image/jpeg"},
		{"region clipped to the image", imaging.Request{Region: image.Rect(1900, 900, 2500, 1500)}, 100, 100, "image/jpeg"},
		{"unchanged", imaging.Request{MaxDim: 4000}, 2000, 1000, "image/png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := imaging.Fit(src, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := base64.StdEncoding.DecodeString(r.Base64)
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width != tt.wantW || cfg.Height != tt.wantH || r.Width != tt.wantW || r.Height != tt.wantH ||
				"image/"+format != tt.wantMIME || r.MIMEType != tt.wantMIME || r.Bytes != len(raw) {
				t.Errorf("got %dx%d %s (result says %dx%d %s, %d bytes), want %dx%d %s",
					cfg.Width, cfg.Height, format, r.Width, r.Height, r.MIMEType, r.Bytes, tt.wantW, tt.wantH, tt.wantMIME)
			}
			if r.Source != (image.Point{2000, 1000}) {
				t.Errorf("source %v, want 2000x1000", r.Source)
			}
		})
	}
	// The crop shows the region's pixels: at (100,50) red is 100, green 50.
	r, _ := imaging.Fit(src, imaging.Request{Region: image.Rect(100, 50, 110, 60)})
	raw, _ := base64.StdEncoding.DecodeString(r.Base64)
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if cr, cg, _, _ := img.At(0, 0).RGBA(); abs(int(cr>>8)-100) > 8 || abs(int(cg>>8)-50) > 8 {
		t.Errorf("crop's first pixel is r%d g%d, want about r100 g50", cr>>8, cg>>8)
	}
}

func TestFitErrors(t *testing.T) {
	if _, err := imaging.Fit(base64.StdEncoding.EncodeToString([]byte("hello, not an image")), imaging.Request{}); !errors.Is(err, imaging.ErrNotImage) {
		t.Errorf("text: got %v, want ErrNotImage", err)
	}
	if _, err := imaging.Fit("%%%", imaging.Request{}); !errors.Is(err, imaging.ErrNotImage) {
		t.Errorf("not base64: got %v, want ErrNotImage", err)
	}
	if _, err := imaging.Fit(imagingtest.PNG(t, 10, 10), imaging.Request{Region: image.Rect(50, 50, 60, 60)}); !errors.Is(err, imaging.ErrBadRegion) {
		t.Errorf("region outside: got %v, want ErrBadRegion", err)
	}
	if got := imaging.Sniff("aGVsbG8gd29ybGQ="); got != "" {
		t.Errorf("Sniff of text: got %q, want empty", got)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
