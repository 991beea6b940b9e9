// Command gasoline-mcp is the MCP server agents launch: a thin stdio bridge
// to the gasoline daemon. See package bridge.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gasoline-mcp/gasoline/internal/bridge"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := bridge.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gasoline-mcp:", err)
		os.Exit(1)
	}
}
