package tools

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/upload"
)

// TestUpload queues the files a user allowed with their content, and
// refuses the others with what the agent or the user can do about it.
func TestUpload(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello upload"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("no"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirs, err := upload.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(d *Deps) { d.Uploads = dirs }
	file := filepath.Join(dir, "notes.txt")

	t.Run("queued with the content", func(t *testing.T) {
		e := newEnv(t, allowed)
		r := e.call(t, "agent", "interact", `{"action":"upload","selector":"#f","paths":["`+file+`"],"tab_id":2}`)
		if r.IsError || r.field("status") != "queued" || !strings.HasPrefix(r.field("correlation_id").(string), "act_") {
			t.Fatalf("got %s, want a queued act_ handle", r.Text)
		}
		c := e.delivered(t)
		want := `{"target":{"selector":"#f"},"tab_id":2,"files":[{"name":"notes.txt","type":"text/plain","size":12,"last_modified":` +
			itoa(mtime(t, file)) + `,"data":"` + base64.StdEncoding.EncodeToString([]byte("hello upload")) + `"}]}`
		if c.Action != "upload" || !sameJSON(c.Params, []byte(want)) {
			t.Errorf("queued %s %s, want upload %s", c.Action, c.Params, want)
		}
	})

	tests := []struct {
		name, args       string
		uploads          bool
		wantCode, wantIn string
	}{
		{"uploads off", `{"action":"upload","selector":"#f","paths":["` + file + `"]}`, false, "upload_not_allowed", "--upload-dir"},
		{"uploads off, the env way", `{"action":"upload","selector":"#f","paths":["` + file + `"]}`, false, "upload_not_allowed", upload.EnvDirs},
		{"outside", `{"action":"upload","selector":"#f","paths":["` + filepath.Join(outside, "secret.txt") + `"]}`, true, "upload_not_allowed", dir},
		{"dot-dot out", `{"action":"upload","selector":"#f","paths":["` + dir + `/../` + filepath.Base(outside) + `/secret.txt"]}`, true, "upload_not_allowed", "not under an allowed directory"},
		{"relative", `{"action":"upload","selector":"#f","paths":["notes.txt"]}`, true, "invalid_arguments", "not absolute"},
		{"missing", `{"action":"upload","selector":"#f","paths":["` + filepath.Join(dir, "nope.txt") + `"]}`, true, "not_found", "nope.txt"},
		{"too many", `{"action":"upload","selector":"#f","paths":["` + strings.Repeat(file+`","`, 4) + file + `"]}`, true, "invalid_arguments", "at most 4 files"},
		{"no paths", `{"action":"upload","selector":"#f"}`, true, "invalid_arguments", `"paths" is required for upload`},
		{"no target", `{"action":"upload","paths":["` + file + `"]}`, true, "invalid_arguments", "upload needs a target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *env
			if tt.uploads {
				e = newEnv(t, allowed)
			} else {
				e = newEnv(t)
			}
			r := e.call(t, "agent", "interact", tt.args)
			msg, _ := r.field("error", "message").(string)
			hint, _ := r.field("error", "hint").(string)
			if !r.IsError || r.field("error", "code") != tt.wantCode || !strings.Contains(msg+" "+hint, tt.wantIn) || hint == "" {
				t.Fatalf("got %s, want error %s saying %q, with a hint", r.Text, tt.wantCode, tt.wantIn)
			}
			if st := e.trk.Stats(); st.Queued != 0 {
				t.Errorf("a refused upload queued %d commands", st.Queued)
			}
		})
	}
}

func mtime(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.ModTime().UnixMilli())
}

// TestDialog queues the answer with the window it stays armed for.
func TestDialog(t *testing.T) {
	tests := []struct {
		name, args, wantParams, wantIn string
	}{
		{"accept", `{"action":"dialog","dialog":"accept"}`, `{"dialog":"accept","window_ms":60000}`, ""},
		{"prompt text, own window", `{"action":"dialog","dialog":"accept","text":"Ada","timeout_ms":5000,"tab_id":3}`,
			`{"dialog":"accept","text":"Ada","tab_id":3,"window_ms":5000}`, ""},
		{"dismiss", `{"action":"dialog","dialog":"dismiss"}`, `{"dialog":"dismiss","window_ms":60000}`, ""},
		{"no answer", `{"action":"dialog"}`, "", `"dialog" is required for dialog`},
		{"another answer", `{"action":"dialog","dialog":"ok"}`, "", `unknown dialog "ok"`},
		{"window out of range", `{"action":"dialog","dialog":"accept","timeout_ms":0}`, "", "timeout_ms 0 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.call(t, "agent", "interact", tt.args)
			if tt.wantIn != "" {
				msg, _ := r.field("error", "message").(string)
				hint, _ := r.field("error", "hint").(string)
				if !r.IsError || r.field("error", "code") != "invalid_arguments" || !strings.Contains(msg+" "+hint, tt.wantIn) {
					t.Fatalf("got %s, want invalid_arguments saying %q", r.Text, tt.wantIn)
				}
				return
			}
			if r.IsError || !strings.HasPrefix(r.field("correlation_id").(string), "act_") {
				t.Fatalf("got %s, want a queued act_ handle", r.Text)
			}
			if c := e.delivered(t); c.Action != "dialog" || !sameJSON(c.Params, []byte(tt.wantParams)) {
				t.Errorf("queued %s %s, want dialog %s", c.Action, c.Params, tt.wantParams)
			}
		})
	}
}
