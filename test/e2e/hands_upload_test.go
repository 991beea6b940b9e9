//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandsUpload puts files from the directories the user allowed (two
// --upload-dir flags, passed on by 'daemon start') in file inputs: a
// visible one by its label, and a hidden multiple one by the label that
// opens it. The page reads them with FileReader. Files outside the
// directories, too many files for a single input, and an element that is
// not a file input are refused with what to do.
func TestHandsUpload(t *testing.T) {
	docs, photos, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir, name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notes := write(docs, "notes.txt", "hello from disk")
	pic := write(photos, "pic.png", "not really a png")
	caption := write(photos, "caption.txt", "a caption")
	secret := write(outside, "secret.txt", "do not send")

	e := ready(t, "--upload-dir="+docs, "--upload-dir="+photos)
	e.open("/hands/upload.html")

	r := e.ok("upload", map[string]any{"text": "Document", "paths": []string{notes}})
	files, _ := r["files"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["name"] != "notes.txt" || files[0].(map[string]any)["size"] != float64(15) {
		t.Errorf("upload: got %v, want notes.txt of 15 bytes", r)
	}
	e.ok("wait_for", map[string]any{"text": `doc: notes.txt text/plain 15 "hello from disk"`})

	e.ok("upload", map[string]any{"text": "Choose photos", "paths": []string{pic, caption}})
	e.ok("wait_for", map[string]any{"text": `photos: caption.txt`})
	out := e.pageText("#out", nil)
	for _, want := range []string{`photos: pic.png image/png 16 "not really a png"`, `photos: caption.txt text/plain 9 "a caption"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lists %q, want a line %q", out, want)
		}
	}

	refused, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "upload", "selector": "#doc", "paths": []string{secret}, "wait_ms": 20000})
	if err != nil {
		t.Fatal(err)
	}
	if !refused.IsError || refused.ToolError.Code != "upload_not_allowed" || !strings.Contains(refused.ToolError.Message, "not under an allowed directory") {
		t.Errorf("upload from outside: %s, want upload_not_allowed", refused)
	}
	e.fails("upload", map[string]any{"selector": "#doc", "paths": []string{notes, caption}}, "not_editable")
	e.fails("upload", map[string]any{"selector": "#send", "paths": []string{notes}}, "not_editable")
	if out := e.pageText("#out", nil); strings.Contains(out, "do not send") || strings.Count(out, "\n") != 3 {
		t.Errorf("after the refusals the page lists %q, want the three files only", out)
	}
}

// TestHandsUploadOff: a daemon started without --upload-dir refuses
// uploads and says how the user allows them.
func TestHandsUploadOff(t *testing.T) {
	e := newEnv(t)
	r, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "upload", "selector": "#doc", "paths": []string{"/etc/hostname"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError || r.ToolError.Code != "upload_not_allowed" || !strings.Contains(r.ToolError.Hint, "--upload-dir") {
		t.Errorf("upload with uploads off: %s, want upload_not_allowed saying --upload-dir", r)
	}
}
