package mcp

import (
	"context"
	"net/url"
	"path/filepath"
)

type projectKey struct{}

// WithProject returns ctx carrying the project folder of the client whose
// request it handles, as the transport received it (the bridge's
// apitype.HeaderProject, escaped as a URL path). A value that is not an
// absolute path is ignored: Project then reports none.
func WithProject(ctx context.Context, escaped string) context.Context {
	dir, err := url.PathUnescape(escaped)
	if err != nil || !filepath.IsAbs(dir) {
		return ctx
	}
	return context.WithValue(ctx, projectKey{}, filepath.Clean(dir))
}

// Project is the agent's project folder for the request ctx belongs to:
// where its bridge was started; "" when the client named none (a client
// connected by URL, an older bridge).
func Project(ctx context.Context) string {
	dir, _ := ctx.Value(projectKey{}).(string)
	return dir
}
