package capture

import (
	"encoding/json"
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

// Released applies a completed release_capture's result
// (apitype.ReleasedCapture): what it handed over is no longer held.
func (s *Store) Released(result []byte) {
	var r apitype.ReleasedCapture
	if json.Unmarshal(result, &r) != nil || r.Origin == "" {
		return
	}
	var at time.Time
	if r.ReleasedAt > 0 {
		at = time.UnixMilli(r.ReleasedAt)
	}
	s.DropHeld(r.Origin, at)
}

// DropHeld forgets what the last report said is held of origin: the
// extension handed it over (release_capture) at releasedAt (its clock;
// zero: unknown), and its next report says so too. A report read before
// releasedAt, arriving later (a poll sent before the release and slowed
// on its way), is stale: it would say again that origin is held.
func (s *Store) DropHeld(origin string, releasedAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held.list = slices.DeleteFunc(s.held.list, func(h apitype.HeldCapture) bool { return h.Origin == origin })
	if releasedAt.After(s.held.at) {
		s.held.at = releasedAt
	}
}
