package capture

import (
	"slices"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// heldReport is the extension's last report of the capture it holds
// (apitype.HeldCapture): events of pages of origins the user has not
// allowed, kept in the browser until they do.
type heldReport struct {
	list []apitype.HeldCapture
	at   time.Time // when the extension read it (its clock)
}

// SetHeld records the extension's report of what it holds, as of at (when
// it read it; zero: unknown). A report read before the one recorded is
// stale and changes nothing, as with SetFrames. At most
// apitype.MaxHeldReported entries are kept.
func (s *Store) SetHeld(list []apitype.HeldCapture, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !at.IsZero() && at.Before(s.held.at) {
		return
	}
	s.held = heldReport{list: append([]apitype.HeldCapture(nil), list[:min(len(list), apitype.MaxHeldReported)]...), at: at}
}

// Held returns what the extension last said it holds, per tab and origin.
func (s *Store) Held() []apitype.HeldCapture {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]apitype.HeldCapture(nil), s.held.list...)
}

// DropHeld forgets what the last report said is held of origin: the
// extension handed it over (release_capture), and its next report says so
// too.
func (s *Store) DropHeld(origin string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held.list = slices.DeleteFunc(s.held.list, func(h apitype.HeldCapture) bool { return h.Origin == origin })
}
