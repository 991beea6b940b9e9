package cli

import "github.com/gasoline-mcp/gasoline/pkg/tracker"

func trackerOptions(f *runFlags) tracker.Options {
	return tracker.Options{
		DispatchTimeout: f.dispatchTimeout,
		AckTimeout:      f.ackTimeout,
		ExecTimeout:     f.execTimeout,
		DisconnectGrace: f.disconnectGrace,
		ResultTTL:       f.resultTTL,
		MaxActive:       f.maxActive,
		MaxRetained:     f.maxRetained,
	}
}
