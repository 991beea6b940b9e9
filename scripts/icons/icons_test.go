package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestCommittedIcons checks the manifest names an icon for every size, for
// the toolbar too, and that each committed file is what this program draws.
func TestCommittedIcons(t *testing.T) {
	ext := filepath.Join("..", "..", "extension")
	b, err := os.ReadFile(filepath.Join(ext, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Icons  map[string]string `json:"icons"`
		Action struct {
			DefaultIcon map[string]string `json:"default_icon"`
		} `json:"action"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, size := range Sizes {
		key := strconv.Itoa(size)
		if got := m.Icons[key]; got != Path(size) {
			t.Errorf("manifest icons[%q] = %q, want %q", key, got, Path(size))
		}
		if size <= 32 && m.Action.DefaultIcon[key] != Path(size) {
			t.Errorf("manifest action.default_icon[%q] = %q, want %q", key, m.Action.DefaultIcon[key], Path(size))
		}
		f, err := os.Open(filepath.Join(ext, Path(size)))
		if err != nil {
			t.Fatalf("%v (run: go run ./scripts/icons)", err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", Path(size), err)
		}
		if got := img.Bounds().Dx(); got != size || img.Bounds().Dy() != size {
			t.Errorf("%s is %v, want %dx%d", Path(size), img.Bounds(), size, size)
		}
		want := Draw(size)
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				if gr, gg, gb, ga := img.At(x, y).RGBA(); [4]uint32{gr, gg, gb, ga} != rgba(want.At(x, y).RGBA()) {
					t.Fatalf("%s differs from the drawing at (%d,%d); regenerate with: go run ./scripts/icons", Path(size), x, y)
				}
			}
		}
	}
}

func rgba(r, g, b, a uint32) [4]uint32 { return [4]uint32{r, g, b, a} }
