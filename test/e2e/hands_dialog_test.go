//go:build unix

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHandsDialogArm arms answers with the dialog action and then clicks
// the buttons that open them: the page gets the armed answer (a prompt its
// text), the click's effects list the dialog, and a dialog the page opens
// after the click has finished (a timer) is answered too and listed in the
// next arm's recent dialogs.
func TestHandsDialogArm(t *testing.T) {
	e := ready(t)
	e.open("/hands/dialogs.html")

	armed := e.ok("dialog", map[string]any{"dialog": "accept"})
	if armed["armed"] != "accept" || armed["window_ms"] != float64(60000) || armed["frames"] != float64(1) {
		t.Errorf("dialog: got %v, want accept armed for 60000 ms in the one frame", armed)
	}
	r := e.ok("click", map[string]any{"text": "Delete it"})
	eff, _ := r["effects"].(map[string]any)
	if got := fmt.Sprint(eff["dialogs"]); got != "[map[answered:accepted message:Delete it? type:confirm]]" {
		t.Errorf("click effects.dialogs %s, want the accepted confirm", got)
	}

	e.ok("dialog", map[string]any{"dialog": "accept", "text": "Ada"})
	e.ok("click", map[string]any{"text": "Name yourself"})

	e.ok("dialog", map[string]any{"dialog": "dismiss", "timeout_ms": 30000})
	e.ok("click", map[string]any{"text": "Delete it"})

	// The armed answer outlives the click: the confirm opens 300 ms later.
	e.ok("dialog", map[string]any{"dialog": "accept"})
	e.ok("click", map[string]any{"text": "Ask later"})
	e.ok("wait_for", map[string]any{"text": "later true"})

	if log := e.pageText("#log", nil); log != "confirm true\nprompt Ada\nconfirm false\nlater true\n" {
		t.Errorf("the page logged %q", log)
	}
	again := e.ok("dialog", map[string]any{"dialog": "dismiss"})
	if got := fmt.Sprint(again["recent"]); !strings.Contains(got, "answered:accepted") || !strings.Contains(got, "message:Still there?") {
		t.Errorf("dialog recent %s, want the timer's confirm, accepted", got)
	}
}

// userPage attaches to the tab showing path of the test site, with the
// Page domain on so that the test, as the user, can answer its dialogs.
func (e *env) userPage(path string) *page {
	e.t.Helper()
	s := e.pageSession(e.site.URL + path)
	if err := s.Call(e.ctx, "Page.enable", nil, nil); err != nil {
		e.t.Fatal(err)
	}
	return &page{e: e, s: s}
}

// answerDialog answers the native dialog the page shows, as the user would.
func (p *page) answerDialog(accept bool) {
	p.e.t.Helper()
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err = p.s.Call(p.e.ctx, "Page.handleJavaScriptDialog", map[string]any{"accept": accept}, nil); err == nil {
			return
		}
	}
	p.e.t.Fatalf("answering the page's dialog: %v", err)
}

// clickAsync clicks at (x, y) as the user, without waiting for the page:
// the click opens a dialog, which freezes the page until it is answered.
func (p *page) clickAsync(x, y float64) {
	p.e.t.Helper()
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		args := map[string]any{"type": typ, "x": x, "y": y}
		if typ != "mouseMoved" {
			args["button"] = "left"
			args["clickCount"] = 1
		}
		ctx, cancel := context.WithTimeout(p.e.ctx, 2*time.Second)
		err := p.s.Call(ctx, "Input.dispatchMouseEvent", args, nil)
		cancel()
		// The release returns only once the page handled it: after the
		// dialog closes. Its error here is that wait, not a failure.
		if err != nil && typ != "mouseReleased" {
			p.e.t.Fatal(err)
		}
	}
}

// TestHandsNativeDialog: a dialog the user's own click opens shows
// natively and freezes the page. Actions on the tab then fail at once
// with dialog_showing, saying that only the user can answer it (the
// dialog action too: the test's DevTools session keeps Chrome from
// dismissing it when the tab is hidden); once the user has, the tab works
// again.
func TestHandsNativeDialog(t *testing.T) {
	e := ready(t)
	e.open("/hands/dialogs.html")
	p := e.userPage("/hands/dialogs.html")
	var box struct{ X, Y float64 }
	p.eval(`(() => { const r = document.querySelector('#hello').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, &box)
	p.clickAsync(box.X, box.Y)

	var msg string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		r := e.act("dialog", map[string]any{"dialog": "accept"})
		if r.Status == "error" && strings.HasPrefix(r.Error, "dialog_showing: ") {
			msg = r.Error
			break
		}
	}
	// The dialog action hides the tab a moment, which makes Chrome dismiss
	// a dialog unless a debugger is attached, as the test's is.
	for _, want := range []string{`native alert ("Hello user")`, "Chrome did not close", "ask the user"} {
		if !strings.Contains(msg, want) {
			t.Errorf("dialog on a frozen tab: %q, want it to say %q", msg, want)
		}
	}
	start := time.Now()
	e.fails("click", map[string]any{"text": "Delete it"}, "dialog_showing")
	t.Logf("a click on the frozen tab failed after %v", time.Since(start))

	p.answerDialog(true)
	e.ok("wait_for", map[string]any{"text": "alert closed"})
	got := e.ok("dialog", map[string]any{"dialog": "dismiss"})
	if r := fmt.Sprint(got["recent"]); !strings.Contains(r, "answered:accepted by the user") {
		t.Errorf("dialog recent %s, want the alert the user closed", r)
	}
}

// TestHandsBeforeUnload: once the user has worked on a page that asks
// before leaving, an agent's navigation would show Chrome's "Leave site?"
// prompt; an armed accept leaves without it, for navigate and close_tab.
func TestHandsBeforeUnload(t *testing.T) {
	e := ready(t)
	e.open("/hands/dialogs.html")
	p := e.userPage("/hands/dialogs.html")
	p.click("#guard") // the user's click: the page may now ask
	e.ok("wait_for", map[string]any{"text": "guarded"})

	e.ok("dialog", map[string]any{"dialog": "accept"})
	nav := e.ok("navigate", map[string]any{"url": e.site.URL + "/a"})
	if nav["title"] != "Page A" {
		t.Errorf("navigate after an armed accept: %v, want Page A", nav)
	}

	e.open("/hands/dialogs.html")
	p = e.userPage("/hands/dialogs.html")
	p.click("#guard")
	e.ok("wait_for", map[string]any{"text": "guarded"})
	e.ok("dialog", map[string]any{"dialog": "accept"})
	closed := e.ok("close_tab", nil)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if !e.hasTab(e.site.URL + "/hands/dialogs.html") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("close_tab %v after an armed accept: the tab is still open", closed)
		}
	}

	// Unarmed, the prompt shows and the navigation cannot finish; the
	// actions that follow say why and what to do.
	e.open("/hands/dialogs.html")
	p = e.userPage("/hands/dialogs.html")
	p.click("#guard")
	e.ok("wait_for", map[string]any{"text": "guarded"})
	if r := e.act("navigate", map[string]any{"url": e.site.URL + "/b", "timeout_ms": 3000}); r.Status != "timeout" {
		t.Errorf("navigate unarmed: %s, want a timeout", r)
	}
	msg := e.fails("get_text", map[string]any{"selector": "#log"}, "dialog_showing")
	for _, want := range []string{`"Leave site?" prompt`, "ask the user", `arm interact({action:"dialog", dialog:"accept"}) before navigating`} {
		if !strings.Contains(msg, want) {
			t.Errorf("get_text behind the prompt: %q, want it to say %q", msg, want)
		}
	}
	p.answerDialog(false) // the user stays
	if log := e.pageText("#log", nil); log != "guarded\n" {
		t.Errorf("after the user stayed the page logs %q", log)
	}
}

// hasTab reports whether a tab shows url.
func (e *env) hasTab(url string) bool {
	e.t.Helper()
	ts, err := e.cdp.Targets(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.Type == "page" && tg.URL == url {
			return true
		}
	}
	return false
}
