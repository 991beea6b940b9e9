package mcp

import (
	"context"
	"net/url"
	"path/filepath"
)

type projectKey struct{}

// WithProject returns ctx carrying the project folders of the client whose
// request it handles, in order, as the transport received them (the
// bridge's apitype.HeaderProject values, each escaped as a URL path). A
// value that is not an absolute path is left out.
func WithProject(ctx context.Context, escaped ...string) context.Context {
	var dirs []string
	for _, e := range escaped {
		if dir, err := url.PathUnescape(e); err == nil && filepath.IsAbs(dir) {
			dirs = append(dirs, filepath.Clean(dir))
		}
	}
	if len(dirs) == 0 {
		return ctx
	}
	return context.WithValue(ctx, projectKey{}, dirs)
}

// Projects are the agent's project folders for the request ctx belongs
// to, the likeliest first: the client's roots, then where its bridge was
// started; none when the client named none (a client connected by URL, an
// older bridge).
func Projects(ctx context.Context) []string {
	dirs, _ := ctx.Value(projectKey{}).([]string)
	return dirs
}
