// Package imagingtest makes test images for the packages that crop, scale
// and serve stored images.
package imagingtest

import (
	"image"
	"image/color"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/imaging"
)

// PNG returns a base64 PNG of w×h pixels whose red is x and green y (mod
// 256), so a test can tell which part of an image a crop or scale kept.
func PNG(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 0, 255})
		}
	}
	s, err := imaging.PNG(img)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
