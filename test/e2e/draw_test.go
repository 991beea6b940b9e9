package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// drawPage opens the draw fixture through the agent (new_tab: the active
// tab), attaches a DevTools session to it to act as the user, and scrolls
// it 400 px down.
func (e *env) drawPage() (*page, int64) {
	e.t.Helper()
	r := e.act("new_tab", map[string]any{"url": e.site.URL + "/hands/draw.html"})
	var tab struct {
		TabID int64 `json:"tab_id"`
	}
	if r.Status != "complete" || json.Unmarshal(r.Value, &tab) != nil {
		e.t.Fatalf("new_tab: %s", r)
	}
	targets, err := e.cdp.Targets(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	var id string
	for _, ti := range targets {
		if ti.Type == "page" && strings.HasSuffix(ti.URL, "/hands/draw.html") {
			id = ti.TargetID
		}
	}
	if id == "" {
		e.t.Fatalf("no DevTools target for the draw page among %v", targets)
	}
	s, err := e.cdp.Attach(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	p := &page{e: e, s: s, targetID: id}
	p.eval(`(() => { scrollTo(0, 400); return scrollY })()`, new(float64))
	return p, tab.TabID
}

// startDraw asks for annotations and waits until the overlay is in the page.
func (e *env) startDraw(p *page, tabID int64, args map[string]any) string {
	e.t.Helper()
	a := map[string]any{"what": "annotations", "wait": true, "tab_id": tabID}
	for k, v := range args {
		a[k] = v
	}
	r := e.call("analyze", a)
	if r.Status != "waiting_for_user" || !strings.HasPrefix(r.CorrelationID, "ann_") {
		e.t.Fatalf("analyze annotations wait:true: %s", r)
	}
	p.waitOverlay(true)
	return r.CorrelationID
}

// waitOverlay waits until the overlay's host is in the page (or gone).
func (p *page) waitOverlay(present bool) {
	p.e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var there bool
		p.eval(`document.querySelector("gasoline-draw-overlay") !== null`, &there)
		if there == present {
			return
		}
		if time.Now().After(deadline) {
			p.e.t.Fatalf("overlay present = %v after 20 s, want %v", there, present)
		}
	}
}

// drag presses the left button at (x1, y1), moves to (x2, y2) and releases
// it there: the page sees a user's trusted drag.
func (p *page) drag(x1, y1, x2, y2 float64) {
	p.e.t.Helper()
	steps := []map[string]any{
		{"type": "mouseMoved", "x": x1, "y": y1},
		{"type": "mousePressed", "x": x1, "y": y1, "button": "left", "buttons": 1, "clickCount": 1},
		{"type": "mouseMoved", "x": (x1 + x2) / 2, "y": (y1 + y2) / 2, "button": "left", "buttons": 1},
		{"type": "mouseMoved", "x": x2, "y": y2, "button": "left", "buttons": 1},
		{"type": "mouseReleased", "x": x2, "y": y2, "button": "left", "buttons": 0, "clickCount": 1},
	}
	for _, s := range steps {
		if err := p.s.Call(p.e.ctx, "Input.dispatchMouseEvent", s, nil); err != nil {
			p.e.t.Fatal(err)
		}
	}
}

// ctrlEnter presses Ctrl+Enter, the overlay's Done.
func (p *page) ctrlEnter() {
	p.e.t.Helper()
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		k := map[string]any{"type": typ, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13, "modifiers": 2}
		if err := p.s.Call(p.e.ctx, "Input.dispatchKeyEvent", k, nil); err != nil {
			p.e.t.Fatal(err)
		}
	}
}

type drawSession struct {
	URL      string `json:"url"`
	Count    int    `json:"count"`
	Viewport struct {
		ScrollY float64 `json:"scroll_y"`
	} `json:"viewport"`
	Annotations []struct {
		Note string `json:"note"`
		Rect struct {
			X, Y, Width, Height float64
		} `json:"rect"`
		Element *struct {
			Selector string            `json:"selector"`
			Ref      string            `json:"ref"`
			Role     string            `json:"role"`
			Name     string            `json:"name"`
			Styles   map[string]string `json:"styles"`
		} `json:"element"`
	} `json:"annotations"`
}

// TestDrawMode: the user draws two rectangles on a scrolled page, types a
// note for each and presses Done; the agent's waiting observe returns them
// with the elements under them, and the overlay is gone. Then Esc cancels a
// second session.
func TestDrawMode(t *testing.T) {
	e := ready(t)
	p, tabID := e.drawPage()
	id := e.startDraw(p, tabID, map[string]any{"instructions": "Mark what looks wrong"})

	// #buy is at page (40, 600) 160x60, so at viewport y 200 once scrolled
	// 400, below the overlay's instruction bar.
	p.drag(30, 190, 210, 270)
	if err := p.s.InsertText(e.ctx, "button text too small"); err != nil {
		t.Fatal(err)
	}
	p.drag(290, 190, 510, 310)
	if err := p.s.InsertText(e.ctx, "banner is the wrong red"); err != nil {
		t.Fatal(err)
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
	if s.Count != 2 || len(s.Annotations) != 2 || !strings.HasSuffix(s.URL, "/hands/draw.html") || s.Viewport.ScrollY != 400 {
		t.Fatalf("got %s, want 2 annotations of the draw page scrolled 400 px", r.Value)
	}
	buy, banner := s.Annotations[0], s.Annotations[1]
	if buy.Note != "button text too small" || buy.Rect.Y != 590 || buy.Rect.Width != 180 {
		t.Errorf("first annotation %+v: want the note and the rectangle in page coordinates (y 590, width 180)", buy)
	}
	if el := buy.Element; el == nil || !strings.Contains(el.Selector, "buy") || el.Role != "button" || el.Name != "Buy now" ||
		!strings.HasPrefix(el.Ref, "e") || el.Styles["font-size"] != "9px" {
		t.Errorf("first element %+v: want #buy, button \"Buy now\", a ref and its font-size", buy.Element)
	}
	if banner.Note != "banner is the wrong red" || banner.Element == nil || !strings.Contains(banner.Element.Selector, "banner") ||
		banner.Element.Styles["background-color"] != "rgb(255, 0, 0)" {
		t.Errorf("second annotation %+v: want the banner with its background", banner)
	}
	// The ref works with interact.
	if got, _ := e.ok("get_text", map[string]any{"ref": buy.Element.Ref, "tab_id": tabID})["text"].(string); got != "Buy now" {
		t.Errorf("get_text by the annotation's ref: %q", got)
	}
	p.waitOverlay(false)

	// Esc cancels; the agent learns it at once and the overlay goes.
	id = e.startDraw(p, tabID, nil)
	p.press("Escape")
	r = e.await(id, 30*time.Second)
	if r.Status != "cancelled" || !strings.Contains(r.Error, "Esc") {
		t.Fatalf("after Esc: %s, want cancelled saying the user pressed Esc", r)
	}
	p.waitOverlay(false)
}

// TestDrawModePickWaitersAndTabClose: with command_result's default wait
// shortened to 1 s (--annotation-wait), a first wait ends pending; two
// agents' waits then both receive the element the user picked; closing the
// tab under a second session cancels it.
func TestDrawModePickWaitersAndTabClose(t *testing.T) {
	e := ready(t, "--annotation-wait=1s")
	p, tabID := e.drawPage()
	id := e.startDraw(p, tabID, map[string]any{"mode": "pick"})

	r := e.call("observe", map[string]any{"what": "command_result", "correlation_id": id})
	if r.Status != "pending" || r.Phase != "waiting_for_user" {
		t.Fatalf("first wait: %s, want pending, waiting_for_user", r)
	}
	results := make(chan gasoline.Result, 2)
	for range 2 {
		go func() {
			r, err := e.mcp.Call(e.ctx, "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": 50000})
			if err != nil {
				r.Error = err.Error()
			}
			results <- r
		}()
	}
	// #buy is at page (40, 600) 160x60: its middle is at viewport (120, 230).
	if err := p.s.Click(e.ctx, 120, 230); err != nil {
		t.Fatal(err)
	}
	if err := p.s.InsertText(e.ctx, "make this bigger"); err != nil {
		t.Fatal(err)
	}
	p.ctrlEnter()
	for i := range 2 {
		r := <-results
		var s drawSession
		if r.Status != "complete" || json.Unmarshal(r.Value, &s) != nil || len(s.Annotations) != 1 {
			t.Fatalf("waiter %d: %s, want complete with one annotation", i, r)
		}
		a := s.Annotations[0]
		if a.Note != "make this bigger" || a.Element == nil || a.Element.Selector != "#buy" ||
			a.Rect.X != 40 || a.Rect.Y != 600 || a.Rect.Width != 160 || a.Rect.Height != 60 {
			t.Errorf("waiter %d: annotation %+v, want #buy's box in page coordinates and the note", i, a)
		}
	}
	p.waitOverlay(false)

	id = e.startDraw(p, tabID, nil)
	if r := e.act("close_tab", map[string]any{"tab_id": tabID}); r.Status != "complete" {
		t.Fatalf("close_tab: %s", r)
	}
	r = e.await(id, 30*time.Second)
	if r.Status != "cancelled" || !strings.Contains(r.Error, "tab was closed") {
		t.Fatalf("tab closed: %s, want cancelled saying the tab was closed", r)
	}
}
