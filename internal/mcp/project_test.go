package mcp

import (
	"context"
	"net/url"
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
		if got := Project(WithProject(context.Background(), tc.header)); got != tc.want {
			t.Errorf("header %q: got %q, want %q", tc.header, got, tc.want)
		}
	}
}
