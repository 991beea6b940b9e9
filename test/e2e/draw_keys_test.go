//go:build unix

package e2e

import (
	"encoding/json"
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
// three boxes in a row. Each note holds exactly what was typed for it, and
// no key reaches the page's own keydown listener: a key typed while the
// focus is still leaving the previous note's frame is handed back to the
// new note, and one held by the overlay until the note's frame loaded
// lands where it was typed (issue 28, item 9).
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
	// Each note is exactly what was typed for it, in the order typed,
	// whichever route each key took to it (issue 28).
	for i, n := range notes {
		if got := s.Annotations[i].Note; got != n {
			t.Errorf("note %d: got %q, want %q", i+1, got, n)
		}
	}
	var keys []string
	p.eval(`window.pageKeys`, &keys)
	if len(keys) > 0 {
		t.Errorf("the page heard the keys typed for the notes: %s", strings.Join(keys, " "))
	}
}
