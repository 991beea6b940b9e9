package bridge

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/version"
)

// CheckDaemonVersion makes sure the daemon this bridge relays to runs the
// bridge's own version: after an update ('git pull && make build') the old
// daemon keeps running, and agents would use it without a word. When a
// daemon of another version answers, it runs 'gasoline daemon start', which
// replaces an idle daemon with the gasoline beside this bridge and
// otherwise leaves it running and says what to run; the outcome is logged
// (warn level: the agent's MCP log shows it). A daemon that does not answer
// is left to the start on the first call. It blocks for at most the start's
// timeout, once, before the bridge serves.
func (b *Bridge) CheckDaemonVersion(ctx context.Context) {
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	h, err := b.client.Health(hctx)
	cancel()
	if err != nil || h.Version == version.Version {
		return
	}
	log := b.log.Warn().Str("daemon_version", h.Version).Str("bridge_version", version.Version).Int("daemon_pid", h.PID)
	bin, err := findDaemon(b.opts.DaemonBin)
	if err != nil {
		log.Err(err).Msg("the daemon runs another version and cannot be replaced; run: gasoline daemon stop && gasoline daemon start")
		return
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(sctx, bin, "daemon", "start", "--port", strconv.Itoa(b.opts.Port), "--state-dir", b.opts.StateDir)
	cmd.WaitDelay = time.Second // the detached daemon must not hold us
	out, err := cmd.CombinedOutput()
	log.Err(err).Str("daemon_start", strings.TrimSpace(string(out))).Msg("the daemon ran another version than this bridge")
}
