package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// AllowOrigin tells the daemon that the user allows agents on origin
// (POST /origins/allow, admin token); the extension adds it to the user's
// list at its next poll. It returns the origin as the daemon normalised it.
func (c *Client) AllowOrigin(ctx context.Context, origin string) (string, error) {
	body, err := c.do(ctx, http.MethodPost, "/origins/allow?origin="+url.QueryEscape(origin), "allowing "+origin)
	if err != nil {
		return "", err
	}
	var r apitype.OriginAllowed
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("allowing %s: decoding %q: %w", origin, body, err)
	}
	return r.Origin, nil
}
