package config

import (
	"path/filepath"
	"testing"
)

func TestPort(t *testing.T) {
	tests := []struct {
		name    string
		flag    int
		env     string
		want    int
		wantErr bool
	}{
		{"default", 0, "", DefaultPort, false},
		{"env", 0, "9000", 9000, false},
		{"flag wins", 8000, "9000", 8000, false},
		{"bad env", 0, "http", 0, true},
		{"out of range", 70000, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvPort, tt.env)
			got, err := Port(tt.flag)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestStateDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(EnvStateDir, "")
	if got, _ := StateDir(""); got != filepath.Join(home, ".gasoline") {
		t.Errorf("default: got %s", got)
	}
	t.Setenv(EnvStateDir, "/tmp/from-env")
	if got, _ := StateDir(""); got != "/tmp/from-env" {
		t.Errorf("env: got %s", got)
	}
	if got, _ := StateDir("rel"); !filepath.IsAbs(got) {
		t.Errorf("flag: got %s, want an absolute path", got)
	}
}
