// Command gasoline runs and manages the gasoline daemon.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/gasoline-mcp/gasoline/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
