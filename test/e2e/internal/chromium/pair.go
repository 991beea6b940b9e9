package chromium

import (
	"context"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// PairDaemon pairs the extension of the browser behind conn with d through
// the extension's popup, as a user would, and waits until d sees the
// extension polling.
func PairDaemon(ctx context.Context, conn *cdp.Conn, d *gasoline.Daemon) error {
	p, err := OpenPopup(ctx, conn)
	if err != nil {
		return err
	}
	defer p.Close(ctx)
	if err := p.SetPort(ctx, d.Port); err != nil {
		return err
	}
	code, err := d.PairCode(ctx)
	if err != nil {
		return err
	}
	if err := p.Pair(ctx, code); err != nil {
		return err
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if h, err := d.Health(ctx); err == nil && h.Extension.Connected {
			return nil
		}
	}
	return errors.New("the paired extension did not connect to the daemon within 15 s")
}
