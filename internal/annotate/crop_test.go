package annotate

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// pngOf is a w×h PNG filled with c, in base64.
func pngOf(t *testing.T, w, h int, c color.Color) string {
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
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// padded is the PNG in base64 img followed by zeros up to n bytes: its
// header still reads, so it stands for a large image.
func padded(t *testing.T, img string, n int) string {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(img)
	return base64.StdEncoding.EncodeToString(append(raw, make([]byte, n-len(raw))...))
}

func TestCheckCrops(t *testing.T) {
	red := pngOf(t, 30, 20, color.RGBA{255, 0, 0, 255})
	var j bytes.Buffer
	jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, 8, 8)), nil)
	jpg := base64.StdEncoding.EncodeToString(j.Bytes())
	big := padded(t, red, MaxCropBytes+1)
	for _, tc := range []struct {
		name  string
		crop  Crop
		error string // "" when kept
		w, h  int
	}{
		{"a PNG", Crop{Data: red, MIMEType: "image/png"}, "", 30, 20},
		{"a JPEG", Crop{Data: jpg, MIMEType: "image/jpeg"}, "", 8, 8},
		{"mislabelled", Crop{Data: red, MIMEType: "image/jpeg"}, "png image labelled image/jpeg", 0, 0},
		{"not an image type", Crop{Data: red, MIMEType: "text/html"}, "not image/png", 0, 0},
		{"not base64", Crop{Data: "!!!", MIMEType: "image/png"}, "not base64", 0, 0},
		{"not an image", Crop{Data: base64.StdEncoding.EncodeToString([]byte("hello")), MIMEType: "image/png"}, "not a readable image", 0, 0},
		{"too large", Crop{Data: big, MIMEType: "image/png"}, "over 2 MB", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.crop
			p := Post{CorrelationID: "ann_1", Annotations: []Annotation{{Crop: &c, Screenshot: &Screenshot{Handle: "forged"}}}}
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			a := p.Annotations[0]
			if a.Screenshot != nil {
				t.Errorf("a posted screenshot handle %+v was kept", a.Screenshot)
			}
			if tc.error != "" {
				if a.Crop != nil || !strings.Contains(a.ScreenshotError, tc.error) {
					t.Errorf("got crop %v, screenshot_error %q, want the crop dropped saying %q", a.Crop != nil, a.ScreenshotError, tc.error)
				}
				return
			}
			if a.Crop == nil || a.Crop.width != tc.w || a.Crop.height != tc.h || a.ScreenshotError != "" {
				t.Errorf("got %+v (%q), want a %dx%d crop kept", a.Crop, a.ScreenshotError, tc.w, tc.h)
			}
		})
	}
}

func TestCheckCropsBoundsThePostTotal(t *testing.T) {
	// Each under MaxCropBytes, together over MaxCropsBytes.
	const size = MaxCropBytes * 3 / 4
	data := padded(t, pngOf(t, 2, 2, color.Black), size)
	fit := MaxCropsBytes / size
	p := Post{CorrelationID: "ann_1"}
	for range fit + 2 {
		p.Annotations = append(p.Annotations, Annotation{Crop: &Crop{Data: data, MIMEType: "image/png"}})
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	for i, a := range p.Annotations {
		if kept := a.Crop != nil; kept != (i < fit) {
			t.Errorf("annotation %d: crop kept %v (%q), want the first %d of %d-byte crops kept", i, kept, a.ScreenshotError, fit, size)
		}
		if i >= fit && !strings.Contains(a.ScreenshotError, "together exceed") {
			t.Errorf("annotation %d: screenshot_error %q", i, a.ScreenshotError)
		}
	}
}

func TestKeepCrops(t *testing.T) {
	red := pngOf(t, 4, 3, color.RGBA{255, 0, 0, 255})
	p := Post{CorrelationID: "ann_17_ab", Annotations: []Annotation{
		{Note: "kept", Crop: &Crop{Data: red, MIMEType: "image/png", Partial: true}},
		{Note: "no crop", ScreenshotError: "off screen"},
		{Note: "store refuses", Crop: &Crop{Data: red, MIMEType: "image/png"}},
	}}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	kept := p.KeepCrops(func(h, data string) error {
		if h == CropHandle("ann_17_ab", 2) {
			return errors.New("full")
		}
		stored[h] = data
		return nil
	})
	if len(kept) != 1 || kept[0] != "crop_17_ab_1" || stored["crop_17_ab_1"] != red || !IsCropHandle(kept[0]) {
		t.Fatalf("kept %v, stored %v: want crop_17_ab_1 holding the PNG", kept, stored)
	}
	want := Screenshot{Handle: "crop_17_ab_1", MIMEType: "image/png", Width: 4, Height: 3, Bytes: base64.StdEncoding.DecodedLen(len(red)) - strings.Count(red, "="), Partial: true}
	if a := p.Annotations[0]; a.Crop != nil || a.Screenshot == nil || *a.Screenshot != want {
		t.Errorf("first annotation %+v, want screenshot %+v and no crop", a, want)
	}
	if a := p.Annotations[1]; a.Screenshot != nil || a.ScreenshotError != "off screen" {
		t.Errorf("second annotation %+v, want the extension's screenshot_error kept", a)
	}
	if a := p.Annotations[2]; a.Crop != nil || a.Screenshot != nil || !strings.Contains(a.ScreenshotError, "could not be stored: full") {
		t.Errorf("third annotation %+v, want why it has no screenshot", a)
	}
}
