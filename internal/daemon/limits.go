package daemon

import (
	"time"

	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/rs/zerolog"
)

// listenerLimits are the connection limits of the daemon's two listeners.
type listenerLimits struct {
	tcp, unix server.Limits
}

// reservedFiles are descriptors kept for everything but connections: the
// log, the state files, the runtime's own.
const reservedFiles = 64

// connLimits sizes the listeners' limits from the open-file limit, which
// the Go runtime has already raised to its hard maximum on Unix. A TCP
// flood then costs at most a quarter of it in unauthenticated connections
// (the oldest evicted first; the more there may be, the longer a newcomer
// has to show its token before a flood evicts it), authenticated TCP
// clients and the Unix socket keep their own shares, and accept never
// fails for lack of descriptors.
func connLimits(log zerolog.Logger) listenerLimits {
	nofile, known := openFileLimit()
	if !known {
		nofile = 4096
	}
	budget := 256
	if nofile > reservedFiles+256 {
		budget = int(min(nofile-reservedFiles, 1<<20))
	}
	l := listenerLimits{
		tcp: server.Limits{
			MaxUnauthenticated:  clamp(budget/4, 16, 1024),
			MaxTotal:            clamp(budget/2, 64, 2048),
			UnauthenticatedIdle: 5 * time.Second,
		},
		unix: server.Limits{
			MaxUnauthenticated: clamp(budget/4, 16, 512),
			MaxTotal:           clamp(budget/4, 16, 512),
		},
	}
	log.Debug().Uint64("open_file_limit", nofile).Bool("limit_known", known).
		Int("tcp_unauthenticated", l.tcp.MaxUnauthenticated).Int("tcp_total", l.tcp.MaxTotal).
		Int("unix_total", l.unix.MaxTotal).Msg("connection limits")
	return l
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }
