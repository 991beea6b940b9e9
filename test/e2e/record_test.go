//go:build unix

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRecordedLocatorsReplay plays a user on testdata/record/page.html with
// trusted CDP input (clicks on a button with a test id, on one known only by
// role and name, on a link and on an element only a CSS path reaches;
// typing into a labelled field and into one found only by its label; a
// select changed from the keyboard), reads the recorded actions through
// observe, and replays every one through interact with its locator as the
// target: the page, which notes which element each click, input and change
// reached, must see the same element again.
func TestRecordedLocatorsReplay(t *testing.T) {
	e := ready(t)
	p := e.openPage(e.site.URL + "/record/page.html")

	p.click(`[data-testid="save"]`)
	p.click(`[data-k="publish"]`)
	p.typeInto(`#email`, "ada@example.test")
	p.press("Tab") // to the select
	for _, typ := range []string{"keyDown", "keyUp"} {
		if err := p.s.Call(e.ctx, "Input.dispatchKeyEvent", map[string]any{"type": typ, "key": "ArrowDown", "code": "ArrowDown",
			"windowsVirtualKeyCode": 40, "nativeVirtualKeyCode": 40}, nil); err != nil {
			t.Fatal(err)
		}
	}
	p.typeInto(`#n1`, "milk")
	p.click(`[data-k="details"]`)
	p.click(`[data-k="blue"]`)

	var user []string
	p.eval(`window.hits`, &user)
	clicked := func(hits []string) []string {
		var out []string
		for _, h := range hits {
			if k, ok := strings.CutPrefix(h, "click:"); ok {
				out = append(out, k)
			}
		}
		return out
	}
	if want := []string{"save", "publish", "email", "note1", "details", "blue"}; !slices.Equal(clicked(user), want) {
		t.Fatalf("the user's clicks reached %v, want %v (all hits %v)", clicked(user), want, user)
	}
	var size string
	if p.eval(`document.querySelector('[data-k="size"]').value`, &size); size != "m" {
		t.Fatalf("ArrowDown left the select at %q, want m", size)
	}

	// The recorded actions, once the last click is in.
	o := e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 15*time.Second, func(o observed) error {
		for _, a := range o.Entries {
			if a.str("type") == "click" && strings.HasSuffix(a.str("selector"), "div:nth-of-type(3)") {
				return nil
			}
		}
		return fmt.Errorf("no click on the third swatch yet")
	})

	// keyOf is the element a record names by its CSS selector, as the page knows it.
	keyOf := func(a ev) string {
		var k string
		p.eval(fmt.Sprintf(`document.querySelector(%q)?.dataset.k ?? ""`, a.str("selector")), &k)
		return k
	}
	var recClicks []string
	by := map[string]string{} // element → how its locator finds it
	var replayed int
	for _, a := range o.Entries {
		typ := a.str("type")
		if a.str("selector") == "" || typ == "keydown" {
			continue // a navigation, or a key (replayed by key_press, not a target test)
		}
		key := keyOf(a)
		loc, _ := a["locator"].(map[string]any)
		if key == "" || loc == nil {
			t.Errorf("record %v: no element for its selector or no locator", a)
			continue
		}
		if typ == "click" {
			recClicks = append(recClicks, key)
		}
		by[key] = fmt.Sprint(loc["by"])
		target := targetOf(t, loc)
		args := map[string]any{"target": target, "tab_id": a["tab_id"]}
		action, hit := "click", "click:"+key
		switch {
		case key == "size": // its input and change
			action, hit = "select", "change:"+key
			args["values"] = []string{a.str("value")}
			p.eval(`(document.querySelector('[data-k="size"]').value = "s", true)`, new(bool))
		case typ == "input" || typ == "change":
			action, hit = "fill", "input:"+key
			args["text"] = a.str("value")
			p.eval(fmt.Sprintf(`(document.querySelector('[data-k=%q]').value = "", true)`, key), new(bool))
		}
		p.eval(`(window.hits = [], true)`, new(bool))
		e.ok(action, args)
		var hits []string
		p.eval(`window.hits`, &hits)
		if !slices.Contains(hits, hit) || slices.ContainsFunc(hits, func(h string) bool { return !strings.HasSuffix(h, ":"+key) }) {
			t.Errorf("replaying %s on %s with %s %v: the page saw %v, want %s and nothing else", typ, key, action, target, hits, hit)
		}
		replayed++
	}
	if !slices.Equal(recClicks, clicked(user)) {
		t.Errorf("recorded clicks on %v, want the user's %v", recClicks, clicked(user))
	}
	for key, want := range map[string]string{"save": "testid", "publish": "role", "email": "role", "size": "role",
		"note1": "label", "details": "role", "blue": "css"} {
		if by[key] != want {
			t.Errorf("the locator of %s is by %q, want %q", key, by[key], want)
		}
	}
	t.Logf("replayed %d recorded actions: %v", replayed, by)
}

// targetOf is the interact target a recorded locator stands for (as
// extension/dom/engine/locators.js targetOf makes it).
func targetOf(t *testing.T, loc map[string]any) any {
	t.Helper()
	s := func(k string) string { v, _ := loc[k].(string); return v }
	switch s("by") {
	case "testid":
		return fmt.Sprintf(`[%s=%q]`, s("attr"), s("value"))
	case "role":
		return map[string]any{"role": s("role"), "name": s("name"), "exact": true}
	case "label":
		return map[string]any{"text": s("name"), "exact": true}
	case "css":
		return s("selector")
	}
	t.Fatalf("unknown locator %v", loc)
	return nil
}
