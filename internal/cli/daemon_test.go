package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/upload"
	"github.com/spf13/pflag"
)

// TestUploadDirs reads the directories uploads may come from: the repeated
// --upload-dir flag, else the environment variable, else none.
func TestUploadDirs(t *testing.T) {
	list := strings.Join([]string{"/srv/a", "", "/srv/b"}, string(os.PathListSeparator))
	tests := []struct {
		name string
		args []string
		env  string
		want []string
	}{
		{"none", nil, "", nil},
		{"flags", []string{"--upload-dir=/x", "--upload-dir", "/y,z"}, "", []string{"/x", "/y,z"}},
		{"env", nil, list, []string{"/srv/a", "/srv/b"}},
		{"flags win over env", []string{"--upload-dir=/x"}, list, []string{"/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(upload.EnvDirs, tt.env)
			f := &runFlags{}
			fs := pflag.NewFlagSet("daemon", pflag.ContinueOnError)
			f.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			o, err := f.options(7890, filepath.Join(t.TempDir(), "state"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(o.UploadDirs, tt.want) {
				t.Errorf("got %q, want %q", o.UploadDirs, tt.want)
			}
		})
	}
}

// TestRedactHeaders: the names added to the built-in credential headers
// come from $GASOLINE_REDACT_HEADERS (comma-separated) and the repeated
// --redact-header flag, both; the capture store drops blanks and case.
func TestRedactHeaders(t *testing.T) {
	t.Setenv(EnvRedactHeaders, "X-Tenant-Key, ,x-corp-*")
	f := &runFlags{}
	fs := pflag.NewFlagSet("daemon", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"--redact-header=X-Internal"}); err != nil {
		t.Fatal(err)
	}
	o, err := f.options(7890, filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	got := capture.New(o.Capture).Config().RedactNames
	if want := []string{"x-tenant-key", "x-corp-*", "x-internal"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
