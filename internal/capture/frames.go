package capture

import "time"

// Frames is what the extension last said about iframe capture. It captures
// every frame only while an agent is at work (extension/capture/declared.js)
// and top documents only otherwise, so an iframe's console, errors and
// requests from before an agent came were never watched.
type Frames struct {
	// Reported is false until an extension says (an older one never does).
	Reported bool
	// Since is when the extension began capturing every frame; zero: it
	// captures top documents only.
	Since time.Time
	// Seq is the last sequence number stored when the daemon learnt Since:
	// a read from a cursor below it reaches back before Since.
	Seq uint64
	// At is when the extension read the mode it reported (its clock; zero:
	// not said).
	At time.Time
}

// SetFrames records the extension's report: since is when it began
// capturing every frame, or zero while it captures top documents only, as
// of at (when the extension read it; zero: unknown). A report read before
// the one recorded is stale and changes nothing: a poll held since before a
// switch can arrive after the report of the switch (the extension reports
// it at once, in a poll that does not wait).
func (s *Store) SetFrames(since, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !at.IsZero() && at.Before(s.frames.At) {
		return
	}
	if s.frames.Reported && s.frames.Since.Equal(since) {
		if at.After(s.frames.At) {
			s.frames.At = at
		}
		return
	}
	s.frames = Frames{Reported: true, Since: since, Seq: s.seq, At: at}
}

// Frames returns the extension's last report on iframe capture.
func (s *Store) Frames() Frames {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames
}

// Note is the line a read from cursor since (nil: from the oldest entry)
// needs about iframes, or "" when every frame was captured over what it
// reads (the common case: an agent at work the whole time).
func (f Frames) Note(since *uint64) string {
	var from uint64
	if since != nil {
		from = *since
	}
	switch {
	case !f.Reported:
		return ""
	case f.Since.IsZero():
		return "iframes were not captured until now (no agent was at work): earlier iframe events were not watched"
	case from < f.Seq:
		return "iframes are captured only since " + f.Since.UTC().Format("15:04:05") + " UTC (no agent was at work before): earlier iframe events were not watched"
	}
	return ""
}
