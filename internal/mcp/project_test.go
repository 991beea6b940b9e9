package mcp

import (
	"context"
	"net/url"
	"slices"
	"testing"
)

// TestProject: the project folder a transport received reaches the
// request's context decoded; anything but an absolute path is none.
func TestProject(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{url.PathEscape("/home/ann/my app/ü"), "/home/ann/my app/ü"},
		{"/home/ann/web/../api", "/home/ann/api"},
		{"", ""},
		{"relative/dir", ""},
		{"%zz", ""},
	} {
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if got := Projects(WithProject(context.Background(), tc.header)); !slices.Equal(got, want) {
			t.Errorf("header %q: got %q, want %q", tc.header, got, want)
		}
	}
	got := Projects(WithProject(context.Background(), "/root/of/client", "rel", "/cwd/of/bridge"))
	if want := []string{"/root/of/client", "/cwd/of/bridge"}; !slices.Equal(got, want) {
		t.Errorf("two folders: got %q, want %q in order", got, want)
	}
}
