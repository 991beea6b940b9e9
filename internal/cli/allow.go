package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newAllowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "allow ORIGIN",
		Short: "Allow agents to act on and read pages of ORIGIN in the paired browser",
		Long: "allow adds ORIGIN (such as https://shop.example) to the origins you allow agents on. Agents act\n" +
			"freely on local origins (localhost, *.localhost, 127.0.0.0/8, [::1], file:); on any other, the\n" +
			"extension asks you first. The paired extension takes the allow from the running daemon at its\n" +
			"next poll (at once while the browser runs); the " +
			"gasoline popup lists the allowed origins, each with Remove. No agent's tool call can allow one.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := adminClient(g)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
			defer cancel()
			origin, err := c.AllowOrigin(ctx, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Allowed agents on %s: the paired extension adds it to its list at its next poll (at once while the browser runs; the gasoline popup shows it, with Remove).\n", origin)
			return nil
		},
	}
}
