package capture

import (
	"strings"
	"testing"
	"time"
)

func TestFramesNote(t *testing.T) {
	since := time.Date(2026, 1, 2, 10, 3, 4, 0, time.UTC)
	u := func(n uint64) *uint64 { return &n }
	cases := []struct {
		name string
		f    Frames
		from *uint64
		want string // a part of the note; "" for none
	}{
		{"no report (older extension)", Frames{}, nil, ""},
		{"idle", Frames{Reported: true}, u(40), "not captured until now"},
		{"at work, read from the oldest", Frames{Reported: true, Since: since, Seq: 7}, nil, "only since 10:03:04 UTC"},
		{"at work, cursor before", Frames{Reported: true, Since: since, Seq: 7}, u(6), "only since 10:03:04 UTC"},
		{"at work the whole window", Frames{Reported: true, Since: since, Seq: 7}, u(7), ""},
		{"at work before anything was stored", Frames{Reported: true, Since: since, Seq: 0}, nil, ""},
	}
	for _, c := range cases {
		got := c.f.Note(c.from)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSetFramesKeepsTheSeqOfTheFirstReport(t *testing.T) {
	s := New(Options{})
	since := time.UnixMilli(1_700_000_000_000)
	s.SetFrames(since, time.Time{})
	s.mu.Lock()
	s.seq = 9 // entries stored meanwhile
	s.mu.Unlock()
	s.SetFrames(since, time.Time{}) // the same report on the next poll
	if f := s.Frames(); f.Seq != 0 {
		t.Errorf("a repeated report moved Seq to %d, want 0", f.Seq)
	}
	s.SetFrames(time.Time{}, time.Time{})
	if f := s.Frames(); !f.Reported || !f.Since.IsZero() || f.Seq != 9 {
		t.Errorf("after going idle: %+v", f)
	}
}

// A poll held since before the switch carries the idle report read then; it
// can reach the daemon after the switch's report (sent at once): it is
// stale and changes nothing. A report read later (going idle) applies.
func TestSetFramesIgnoresAReportReadBeforeTheRecordedOne(t *testing.T) {
	s := New(Options{})
	t0 := time.UnixMilli(1_700_000_000_000)
	s.SetFrames(time.Time{}, t0)
	since := t0.Add(2 * time.Second)
	s.SetFrames(since, since.Add(time.Millisecond)) // the switch, told at once
	s.SetFrames(time.Time{}, t0.Add(time.Second))   // the held poll's, read before the switch
	if f := s.Frames(); !f.Since.Equal(since) {
		t.Errorf("a stale idle report undid the switch: %+v", f)
	}
	s.SetFrames(since, since.Add(time.Minute)) // the next polls
	s.SetFrames(time.Time{}, since.Add(15*time.Minute))
	if f := s.Frames(); !f.Since.IsZero() {
		t.Errorf("going idle, read after the switch, was not recorded: %+v", f)
	}
}
