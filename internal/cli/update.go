package cli

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/spf13/cobra"
)

// replaceOutdated decides what 'daemon start' does about a healthy daemon
// h whose version is not this gasoline's (after 'git pull && make build'
// the old daemon keeps running, and agents would use it without a word).
// An idle daemon (nothing queued or running) is stopped so the caller
// starts this version in its place; a busy one is left running, and the
// output says exactly what to run once its commands are done. It reports
// whether the caller should go on and start the daemon.
func replaceOutdated(cmd *cobra.Command, g *globals, h apitype.Health) (bool, error) {
	out := cmd.OutOrStdout()
	if busy := h.Queue.Queued + h.Queue.Pending; busy > 0 {
		fmt.Fprintf(out, "gasoline daemon version %s is running on 127.0.0.1:%d (pid %d), but this gasoline is %s.\n"+
			"It has %d unfinished command(s), so it was left running; once they are done, run:\n"+
			"  gasoline daemon stop && gasoline daemon start\n",
			h.Version, h.Port, h.PID, version.Version, busy)
		return false, nil
	}
	fmt.Fprintf(out, "gasoline daemon version %s (pid %d) differs from this gasoline (%s) and is idle: replacing it\n",
		h.Version, h.PID, version.Version)
	if err := stopDaemon(cmd, g); err != nil {
		return false, fmt.Errorf("stopping the daemon of version %s: %w", h.Version, err)
	}
	return true, nil
}
