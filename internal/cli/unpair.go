package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/spf13/cobra"
)

func newUnpairCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "unpair",
		Short: "Revoke every browser extension pairing (each browser must pair again)",
		Long: "unpair revokes the tokens of every paired gasoline extension, at the running daemon or,\n" +
			"when no daemon runs, in the state directory. Use it when the extension's Unpair could not\n" +
			"reach the daemon, or when a browser profile you no longer trust was paired.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := adminClient(g)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
			defer cancel()
			n, err := c.RevokeExtensions(ctx)
			where := "at the daemon"
			if errors.Is(err, client.ErrUnreachable) {
				// No daemon holds the pairings in memory: revoke them on disk.
				_, dir, rerr := g.resolve()
				if rerr != nil {
					return rerr
				}
				p, perr := pairing.New(dir, nil)
				if perr != nil {
					return perr
				}
				n, err = p.RevokeAll()
				where = "in " + dir + " (no daemon is running)"
			}
			if err != nil {
				return fmt.Errorf("revoking extension pairings: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Revoked %d extension pairing(s) %s. Run 'gasoline pair' to pair a browser again.\n", n, where)
			return nil
		},
	}
}
