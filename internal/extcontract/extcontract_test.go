package extcontract

import (
	"fmt"
	"strings"
	"testing"
)

func TestSkew(t *testing.T) {
	if got := Skew(Version); got != "" {
		t.Errorf("Skew(Version) = %q, want none", got)
	}
	if got := Message(Version); got != "" {
		t.Errorf("Message(Version) = %q, want none", got)
	}
	for _, sent := range []string{"", "0123456789ab"} {
		if got := Message(sent); !strings.Contains(got, "chrome://extensions") || !strings.Contains(got, Version) {
			t.Errorf("Message(%q) = %q, want the daemon's version and the reload at chrome://extensions", sent, got)
		}
	}
}

func TestSeen(t *testing.T) {
	var s Seen
	if _, polled := s.Sent("a"); polled {
		t.Errorf("Sent before any poll: got polled, want not")
	}
	s.Note("a", "", "")
	s.Note("b", Version, "firefox")
	if v, polled := s.Sent("a"); !polled || v != "" {
		t.Errorf("Sent(a) = %q, %v; want \"\", true", v, polled)
	}
	if s.Browser("a") != "" || s.Browser("b") != "firefox" {
		t.Errorf("browsers: a %q, b %q; want none and firefox", s.Browser("a"), s.Browser("b"))
	}
	if v, _ := s.Sent("b"); v != Version {
		t.Errorf("Sent(b) = %q, want %q", v, Version)
	}
	for i := range maxInstances + 1 {
		s.Note(fmt.Sprint("i", i), Version, "")
	}
	if len(s.sent) > maxInstances {
		t.Errorf("remembers %d instances, want at most %d", len(s.sent), maxInstances)
	}
}
