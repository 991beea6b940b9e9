// Command icons draws the extension's toolbar and store icons (a white fuel
// drop on an amber rounded square) at the sizes Chrome asks for, into
// extension/icons/. Run it from the repository root: go run ./scripts/icons
// (or make icons; go generate ./... runs it too, in this directory).
package main

//go:generate go run . ../../extension

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

// Sizes are the icon sizes Chrome uses: 16 and 32 in the toolbar (1x and
// 2x), 48 on chrome://extensions, 128 at install and in the Web Store.
var Sizes = []int{16, 32, 48, 128}

// Path is where the icon of a size lives, relative to the extension folder.
func Path(size int) string { return fmt.Sprintf("icons/icon%d.png", size) }

func main() {
	dir := "extension"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, size := range Sizes {
		b, err := Encode(size)
		if err == nil {
			p := filepath.Join(dir, Path(size))
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, b, 0o644)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "icons:", err)
			os.Exit(1)
		}
	}
}

// Encode returns the PNG of the icon at size.
func Encode(size int) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, Draw(size)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Draw renders the icon at size×size, antialiased by supersampling.
func Draw(size int) *image.NRGBA {
	const ss = 8 // samples per pixel side
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					c, ok := shade(x, y)
					if !ok {
						continue
					}
					r += c[0]
					g += c[1]
					b += c[2]
					a++
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(math.Round(r / a)), G: uint8(math.Round(g / a)), B: uint8(math.Round(b / a)),
				A: uint8(math.Round(255 * a / (ss * ss))),
			})
		}
	}
	return img
}

// shade is the colour at (x, y) in the unit square, and whether the icon
// covers that point.
func shade(x, y float64) ([3]float64, bool) {
	if !inRoundedSquare(x, y, 0.02, 0.2) {
		return [3]float64{}, false
	}
	if inDrop(x, y) {
		return [3]float64{255, 255, 255}, true
	}
	// Amber at the top to orange at the bottom.
	top, bottom := [3]float64{251, 191, 36}, [3]float64{234, 88, 12}
	var c [3]float64
	for i := range c {
		c[i] = top[i] + (bottom[i]-top[i])*y
	}
	return c, true
}

func inRoundedSquare(x, y, margin, radius float64) bool {
	lo, hi := margin+radius, 1-margin-radius
	dx := math.Max(0, math.Max(lo-x, x-hi))
	dy := math.Max(0, math.Max(lo-y, y-hi))
	if x < margin || x > 1-margin || y < margin || y > 1-margin {
		return false
	}
	return dx*dx+dy*dy <= radius*radius
}

// inDrop is a fuel drop: a circle with a triangle from its tangent points
// up to a tip.
func inDrop(x, y float64) bool {
	const cx, cy, r, tipY = 0.5, 0.61, 0.24, 0.15
	if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
		return true
	}
	d := cy - tipY
	angle := math.Acos(r / d) // at the centre, between the tip and a tangent point
	tx, ty := r*math.Sin(angle), cy-r*math.Cos(angle)
	if y < tipY || y > ty {
		return false
	}
	halfWidth := tx * (y - tipY) / (ty - tipY)
	return math.Abs(x-cx) <= halfWidth
}
