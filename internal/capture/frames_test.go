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
	s.SetFrames(since)
	s.mu.Lock()
	s.seq = 9 // entries stored meanwhile
	s.mu.Unlock()
	s.SetFrames(since) // the same report on the next poll
	if f := s.Frames(); f.Seq != 0 {
		t.Errorf("a repeated report moved Seq to %d, want 0", f.Seq)
	}
	s.SetFrames(time.Time{})
	if f := s.Frames(); !f.Reported || !f.Since.IsZero() || f.Seq != 9 {
		t.Errorf("after going idle: %+v", f)
	}
}
