// Package cli is the gasoline command line: the daemon's lifecycle commands,
// pairing, agent configuration, diagnostics, logs, shell completion and
// version.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/spf13/cobra"
)

// ExitError carries a specific exit code (e.g. 3 from 'daemon status' when
// no daemon runs).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Run executes the gasoline command line with args (without the program
// name). It returns the process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil && ee.Code != 3 {
			fmt.Fprintln(stderr, "gasoline:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "gasoline:", err)
	return 1
}

// globals are the flags every command shares.
type globals struct {
	port     int
	stateDir string
}

func (g *globals) resolve() (port int, dir string, err error) {
	if port, err = config.Port(g.port); err != nil {
		return 0, "", err
	}
	if dir, err = config.StateDir(g.stateDir); err != nil {
		return 0, "", err
	}
	return port, dir, nil
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "gasoline",
		Short:         "gasoline gives AI coding agents eyes and hands in your browser",
		Long:          "gasoline runs a local daemon that MCP clients reach through the gasoline-mcp bridge,\nand a Chrome extension that runs their commands in your tabs.",
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("gasoline {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().IntVar(&g.port, "port", 0, fmt.Sprintf("daemon port on 127.0.0.1 (env %s, default %d)", config.EnvPort, config.DefaultPort))
	root.PersistentFlags().StringVar(&g.stateDir, "state-dir", "", fmt.Sprintf("state directory (env %s, default ~/.gasoline)", config.EnvStateDir))
	root.AddCommand(newConfigCmd(g))
	root.AddCommand(newDoctorCmd(g))
	root.AddCommand(newLogsCmd(g))
	root.AddCommand(newExtensionCmd(g))
	root.AddCommand(newDaemonCmd(g), newPairCmd(g), newUnpairCmd(g), newAllowCmd(g), &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "gasoline", version.Version)
		},
	})
	return root
}

func newPairCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "pair",
		Short: "Print a one-time code to pair the browser extension",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := adminClient(g)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
			defer cancel()
			code, exp, err := c.PairCode(ctx)
			if err != nil {
				return fmt.Errorf("getting a pairing code (is the daemon running? 'gasoline daemon start'): %w", err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Pairing code: %s\n", code)
			fmt.Fprintf(out, "Type it into the gasoline extension's popup within %s (valid until %s). It works once.\n",
				time.Until(exp).Round(time.Second), exp.Local().Format(time.Kitchen))
			return nil
		},
	}
}
