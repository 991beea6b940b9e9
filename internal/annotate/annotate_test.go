package annotate

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	rect := Rect{X: -10, Y: 5, Width: 20, Height: 0}
	for _, tc := range []struct {
		name string
		p    Post
		err  string // "" when valid
	}{
		{"valid, scrolled past the left edge", Post{CorrelationID: "ann_1", Annotations: []Annotation{{Note: "x", Rect: rect}}}, ""},
		{"cancellation without annotations", Post{CorrelationID: "ann_1", Cancelled: true, Reason: "Esc"}, ""},
		{"not an ann id", Post{CorrelationID: "exec_1"}, "not a draw-mode id"},
		{"too many", Post{CorrelationID: "ann_1", Annotations: make([]Annotation, MaxItems+1)}, "at most 20"},
		{"NaN", Post{CorrelationID: "ann_1", Annotations: []Annotation{{Rect: Rect{X: math.NaN()}}}}, "finite"},
		{"infinite width", Post{CorrelationID: "ann_1", Annotations: []Annotation{{Rect: Rect{Width: math.Inf(1)}}}}, "width"},
		{"negative viewport", Post{CorrelationID: "ann_1", Viewport: Viewport{Width: -1}}, "viewport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Check()
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

func TestCheckCapsEveryField(t *testing.T) {
	long := strings.Repeat("ü", 5000)
	styles := map[string]string{}
	for i := range 20 {
		styles[fmt.Sprint("prop", i)] = long
	}
	p := Post{CorrelationID: "ann_1", URL: long, Title: long, Reason: long, Annotations: []Annotation{{Note: long,
		Element: &Element{Selector: long, Ref: long, Role: long, Name: long, Tag: long, Text: long, Styles: styles}}}}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	e := p.Annotations[0].Element
	for name, s := range map[string]string{"url": p.URL, "title": p.Title, "reason": p.Reason, "note": p.Annotations[0].Note,
		"selector": e.Selector, "ref": e.Ref, "role": e.Role, "name": e.Name, "tag": e.Tag, "text": e.Text} {
		if len(s) > MaxURL || !strings.HasSuffix(s, "…") || !strings.HasPrefix(s, "ü") {
			t.Errorf("%s: %d bytes, want it cut on a rune boundary with a mark", name, len(s))
		}
	}
	if len(e.Styles) != MaxStyles {
		t.Errorf("%d styles, want %d", len(e.Styles), MaxStyles)
	}
	for k, v := range e.Styles {
		if len(v) > 100 {
			t.Errorf("style %s: %d bytes", k, len(v))
		}
	}
}

func TestStoreIsBounded(t *testing.T) {
	s := NewStore(3, 0)
	for i := range 5 {
		s.Add("a", Session{CorrelationID: fmt.Sprint("ann_", i)})
	}
	if s.Len() != 3 {
		t.Errorf("kept %d sessions, want 3", s.Len())
	}
	got, _ := s.TakeUnread("a")
	if got.CorrelationID != "ann_4" {
		t.Errorf("newest unread: %s, want ann_4", got.CorrelationID)
	}
	if _, ok := s.TakeUnread("b"); ok {
		t.Error("another client's session was handed out")
	}
	s.MarkRead("ann_3")
	s.MarkRead("ann_2")
	if got, ok := s.TakeUnread("a"); ok {
		t.Errorf("everything was read, got %s", got.CorrelationID)
	}
	if got, ok := s.Latest("a"); !ok || got.CorrelationID != "ann_4" {
		t.Errorf("latest: %s %v", got.CorrelationID, ok)
	}
	if got, ok := s.Latest("b"); ok {
		t.Errorf("another client's latest: %s, want none", got.CorrelationID)
	}

	big := Session{CorrelationID: "ann_big", Annotations: []Annotation{{Note: strings.Repeat("x", 400)}}}
	b := NewStore(100, 1000)
	for range 10 {
		b.Add("a", big)
	}
	if b.Bytes() > 1000 || b.Len() != 1000/588 {
		t.Errorf("holds %d sessions, %d bytes; want as many as fit in 1000 bytes (588 each)", b.Len(), b.Bytes())
	}
}

// TestStoreReadBeforeAdded: the agent's wait wakes when the session
// completes, before the daemon adds it to the store; that read still
// counts, so the next wait:true starts a new session instead of handing
// this one out again.
func TestStoreReadBeforeAdded(t *testing.T) {
	s := NewStore(2, 0)
	s.MarkRead("ann_1")
	s.Add("a", Session{CorrelationID: "ann_1"})
	if got, ok := s.TakeUnread("a"); ok {
		t.Errorf("ann_1 was read before it was added, but it is handed out as unread: %s", got.CorrelationID)
	}
	s.Add("a", Session{CorrelationID: "ann_2"})
	if got, ok := s.TakeUnread("a"); !ok || got.CorrelationID != "ann_2" {
		t.Errorf("got %s %v, want the unread ann_2", got.CorrelationID, ok)
	}
	for i := range 5 { // early reads are bounded
		s.MarkRead(fmt.Sprint("gone_", i))
	}
	if n := len(s.readEarly); n > 2 {
		t.Errorf("%d early reads kept, want at most 2", n)
	}
}
