package cli

import (
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/spf13/pflag"
)

// registerTracker adds the command tracker's timer and limit flags, whose
// defaults are the tracker's own.
func (f *runFlags) registerTracker(fs *pflag.FlagSet) {
	fs.DurationVar(&f.dispatchTimeout, "dispatch-timeout", tracker.DefaultDispatchTimeout, "expire queued commands no extension took within this")
	fs.DurationVar(&f.ackTimeout, "ack-timeout", tracker.DefaultAckTimeout, "expire delivered commands the extension did not acknowledge within this")
	fs.DurationVar(&f.execTimeout, "exec-timeout", tracker.DefaultExecTimeout, "default execution deadline of a delivered command")
	fs.DurationVar(&f.disconnectGrace, "disconnect-grace", tracker.DefaultDisconnectGrace, "fail an absent extension's running commands after this")
	fs.DurationVar(&f.resultTTL, "result-ttl", tracker.DefaultResultTTL, "keep finished results this long")
	fs.DurationVar(&f.annotationTTL, "annotation-ttl", tracker.DefaultExternalTTL, "end a draw-mode session the user did not finish within this as expired")
	fs.IntVar(&f.maxActive, "max-active", tracker.DefaultMaxActive, "unfinished commands allowed per client")
	fs.IntVar(&f.maxRetained, "max-retained", tracker.DefaultMaxRetained, "finished results retained per client")
	fs.IntVar(&f.maxActiveTotal, "max-active-total", tracker.DefaultMaxActiveTotal, "unfinished commands allowed across all clients")
	fs.IntVar(&f.maxQueuedMB, "max-queued-mb", tracker.DefaultMaxParamBytes>>20, "megabytes of parameters (scripts) unfinished commands may hold across all clients")
}

func trackerOptions(f *runFlags) tracker.Options {
	return tracker.Options{
		DispatchTimeout: f.dispatchTimeout,
		AckTimeout:      f.ackTimeout,
		ExecTimeout:     f.execTimeout,
		DisconnectGrace: f.disconnectGrace,
		ResultTTL:       f.resultTTL,
		ExternalTTL:     f.annotationTTL,
		MaxActive:       f.maxActive,
		MaxRetained:     f.maxRetained,
		MaxActiveTotal:  f.maxActiveTotal,
		MaxParamBytes:   int64(f.maxQueuedMB) << 20,
	}
}
