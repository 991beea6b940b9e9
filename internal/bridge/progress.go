package bridge

import (
	"context"
	"time"
)

// progressCap bounds a call that reports progress, however often it does:
// its timeout counts from the last message, but the call never outlives
// this many times the longest timeout.
const progressCapFactor = 5

// progressCap is the longest a call with progress may take.
func (t Timeouts) progressCap() time.Duration { return progressCapFactor * t.Max }

// idleContext returns a context that ends when idle passes without a call
// to touch, or when cap passes since now, whichever comes first; either way
// context.Cause reports context.DeadlineExceeded, as for a timeout. cancel
// releases it.
func idleContext(parent context.Context, idle, cap time.Duration) (ctx context.Context, cancel context.CancelFunc, touch func()) {
	capped, cancelCap := context.WithTimeout(parent, cap)
	ctx, cancelCause := context.WithCancelCause(capped)
	timer := time.AfterFunc(idle, func() { cancelCause(context.DeadlineExceeded) })
	return ctx, func() {
			timer.Stop()
			cancelCause(context.Canceled)
			cancelCap()
		}, func() {
			timer.Reset(idle)
		}
}
