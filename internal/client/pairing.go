package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// RevokeExtensions revokes every extension pairing (POST /pair/revoke): each
// browser must pair again. It returns how many tokens were revoked.
func (c *Client) RevokeExtensions(ctx context.Context) (int, error) {
	body, err := c.do(ctx, http.MethodPost, "/pair/revoke", "revoking extension pairings")
	if err != nil {
		return 0, err
	}
	var r apitype.PairingsRevoked
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, fmt.Errorf("revoking extension pairings: decoding %q: %w", body, err)
	}
	return r.Revoked, nil
}
