package tracker

import "fmt"

// Defaults of the global caps, which hold across clients: a client name is
// free to choose, so per-client limits alone do not bound the daemon.
const (
	DefaultMaxActiveTotal = 1000
	DefaultMaxParamBytes  = 64 << 20
)

// admitLocked refuses a submission that would take the tracker past
// Options.MaxActiveTotal non-terminal commands or Options.MaxParamBytes of
// their parameters, with an ErrQueueFull that names the limit hit. t.mu
// must be held.
func (t *Tracker) admitLocked(params int) error {
	if n := t.queue.n + t.nPending + t.nExternal; n >= t.opts.MaxActiveTotal {
		return fmt.Errorf("%w: the daemon already holds %d unfinished commands across all clients, its global limit (--max-active-total); wait for some to finish or cancel some, then submit again",
			ErrQueueFull, n)
	}
	if int64(params) > t.opts.MaxParamBytes {
		return fmt.Errorf("%w: this command's parameters are %s, above the daemon's global limit of %s for all unfinished commands (--max-queued-mb); send less at once",
			ErrQueueFull, fmtBytes(int64(params)), fmtBytes(t.opts.MaxParamBytes))
	}
	if t.paramBytes+int64(params) > t.opts.MaxParamBytes {
		return fmt.Errorf("%w: unfinished commands already hold %s of parameters across all clients and this one adds %s, past the daemon's global limit of %s (--max-queued-mb); wait for some to finish, then submit again",
			ErrQueueFull, fmtBytes(t.paramBytes), fmtBytes(int64(params)), fmtBytes(t.opts.MaxParamBytes))
	}
	return nil
}

// chargeLocked counts e's parameters while it is unfinished. t.mu must be
// held.
func (t *Tracker) chargeLocked(e *entry) { t.paramBytes += int64(len(e.cmd.Params)) }

// releaseLocked uncounts the parameters of e, which is finishing, and drops
// them: no one reads a finished command's parameters, and a retained
// command should not keep megabytes of script alive. t.mu must be held.
func (t *Tracker) releaseLocked(e *entry) {
	t.paramBytes -= int64(len(e.cmd.Params))
	e.cmd.Params = nil
}

// fmtBytes formats n as people read sizes: "512 B", "8.0 MB".
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
