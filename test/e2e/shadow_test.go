//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// formPosts holds what the shadow DOM fixtures' forms posted to
// /shadow/submit, by kit. Its zero value is ready to use.
type formPosts struct {
	mu  sync.Mutex
	got map[string]map[string]string // guarded by mu
}

// wait returns what kit's form posted, waiting up to limit for it.
func (p *formPosts) wait(kit string, limit time.Duration) map[string]string {
	deadline := time.Now().Add(limit)
	for {
		p.mu.Lock()
		v, ok := p.got[kit]
		p.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return maps.Clone(v)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shadowPages serves testdata/shadow/ (sign-up forms built with Shoelace
// and Material Web, from "npm ci" there, which make e2e runs) and takes
// their forms' posts on POST /shadow/submit?kit=…: a JSON object of the
// form's FormData.
func shadowPages(posts *formPosts) http.Handler {
	files := handsPages()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/shadow/submit" {
			files.ServeHTTP(w, r)
			return
		}
		var v map[string]string
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if r.Method != http.MethodPost || json.Unmarshal(body, &v) != nil {
			http.Error(w, "want a POST of a JSON object of strings", http.StatusBadRequest)
			return
		}
		posts.mu.Lock()
		if posts.got == nil {
			posts.got = map[string]map[string]string{}
		}
		posts.got[r.URL.Query().Get("kit")] = v
		posts.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
}

// TestShadowShoelace plays an agent on a sign-up form made of Shoelace
// components (sl-input, sl-checkbox, sl-select with sl-options,
// sl-button type=submit), whose controls live in open shadow roots: see
// signUpInShadow.
func TestShadowShoelace(t *testing.T) {
	signUpInShadow(t, "shoelace")
}

// TestShadowMaterial is TestShadowShoelace with Material Web
// (md-outlined-text-field, md-checkbox inside a <label>, md-filled-select
// with md-select-options, md-filled-button type=submit).
func TestShadowMaterial(t *testing.T) {
	signUpInShadow(t, "material")
}

// signUpInShadow signs up on /shadow/<kit>.html as an agent would: the
// outline names every control with its role (the select is a combobox),
// fill, check, select and click by the outline's refs work, and the form's
// submit handler gets every value, which the page posts to the test server.
func signUpInShadow(t *testing.T, kit string) {
	e := ready(t)
	e.open("/shadow/" + kit + ".html")
	e.ok("wait_for", map[string]any{"selector": "body[data-ready]"})
	dom, _ := e.analyze("dom", nil)
	outline := dom["outline"].(string)
	for _, want := range []string{` textbox 'Name' required`, ` textbox 'Email' required`,
		` checkbox 'I accept the terms' required`, ` combobox 'Plan'`, ` button 'Sign up'`} {
		if !strings.Contains(outline, want) {
			t.Errorf("outline lacks %q:\n%s", want, outline)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	e.ok("fill", map[string]any{"ref": refIn(t, outline, "textbox", "Name"), "text": "Ada Lovelace"})
	e.ok("fill", map[string]any{"ref": refIn(t, outline, "textbox", "Email"), "text": "ada@example.com"})
	if r := e.ok("check", map[string]any{"ref": refIn(t, outline, "checkbox", "I accept the terms")}); r["checked"] != true || r["changed"] != true {
		t.Errorf("check by ref: %v, want checked and changed", r)
	}
	if r := e.ok("check", map[string]any{"text": "I accept the terms"}); r["changed"] != false {
		t.Errorf("check by the label's text: %v, want the same box, already checked", r)
	}
	if q := e.ok("query", map[string]any{"target": map[string]any{"role": "combobox"}}); q["count"] != 1.0 || !strings.Contains(jsonOf(q["elements"]), `"name":"Plan"`) {
		t.Errorf("query the combobox: %v, want one, named Plan", q)
	}
	plan := refIn(t, outline, "combobox", "Plan")
	if msg := e.fails("select", map[string]any{"ref": plan, "values": []string{"Platinum"}}, "bad_option"); !strings.Contains(msg, `"Team"`) {
		t.Errorf("a missing option should list the options: %s", msg)
	}
	if r := e.ok("select", map[string]any{"ref": plan, "values": []string{"Team"}}); jsonOf(r["selected"]) != `["team"]` {
		t.Errorf("select by ref: %v, want Team selected", r)
	}
	e.ok("click", map[string]any{"ref": refIn(t, outline, "button", "Sign up")})
	e.ok("wait_for", map[string]any{"text": "Submitted " + kit})
	got := e.site.forms.wait(kit, 5*time.Second)
	want := map[string]string{"name": "Ada Lovelace", "email": "ada@example.com", "terms": "yes", "plan": "team"}
	if !maps.Equal(got, want) {
		t.Errorf("the form posted %v, want %v", got, want)
	}

	// fill_form reaches the same controls: a custom select takes an option, a checkbox true/false.
	r := e.ok("fill_form", map[string]any{"fields": []map[string]any{
		{"target": map[string]any{"role": "textbox", "name": "Name"}, "value": "Grace Hopper"},
		{"target": map[string]any{"role": "combobox", "name": "Plan"}, "value": "Enterprise"},
		{"target": map[string]any{"role": "checkbox", "name": "I accept the terms"}, "value": false},
	}})
	fields, _ := r["fields"].([]any)
	for i, want := range []string{`"value":"Grace Hopper"`, `"selected":["enterprise"]`, `"checked":false`} {
		if i >= len(fields) || !strings.Contains(jsonOf(fields[i]), want) {
			t.Errorf("fill_form field %d: %v, want %s", i, r["fields"], want)
		}
	}
}

// jsonOf is v as JSON, for messages and loose checks.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestShadowClosedRoot has a user (trusted CDP input) type into a field
// and click a button that live in a custom element's closed shadow root,
// which the extension's isolated world opens with
// chrome.dom.openOrClosedShadowRoot: the recorder describes both by role
// and name (an event's path stops at the closed root's host); then, as an
// agent, the outline names them, and fill and click by ref reach them.
func TestShadowClosedRoot(t *testing.T) {
	e := ready(t)
	p := e.openPage(e.site.URL + "/shadow/closed.html")
	var boxes []struct{ X, Y float64 }
	p.eval(`window.boxesOf()`, &boxes)
	if err := p.s.Click(e.ctx, boxes[0].X, boxes[0].Y); err != nil {
		t.Fatal(err)
	}
	if err := p.s.InsertText(e.ctx, "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := p.s.Click(e.ctx, boxes[1].X, boxes[1].Y); err != nil {
		t.Fatal(err)
	}
	o := e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 15*time.Second, func(o observed) error {
		for _, a := range o.Entries {
			if loc, _ := a["locator"].(map[string]any); loc["role"] == "button" && a.str("type") == "click" {
				return nil
			}
		}
		return fmt.Errorf("no click on the button yet")
	})
	got := map[string]string{}
	var tab any
	for _, a := range o.Entries {
		if loc, _ := a["locator"].(map[string]any); loc != nil {
			tab = a["tab_id"]
			got[a.str("type")+" "+fmt.Sprint(loc["by"], " ", loc["role"], " ", loc["name"])] = a.str("value")
		}
	}
	for _, want := range []string{"click role textbox Nickname", "input role textbox Nickname", "click role button Greet"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no record %q; the records: %v", want, o.Entries)
		}
	}
	if v := got["input role textbox Nickname"]; v != "Ada" {
		t.Errorf("the recorded input holds %q, want Ada", v)
	}

	dom, _ := e.analyze("dom", map[string]any{"tab_id": tab})
	outline := dom["outline"].(string)
	e.ok("fill", map[string]any{"ref": refIn(t, outline, "textbox", "Nickname"), "text": "Grace", "tab_id": tab})
	e.ok("click", map[string]any{"ref": refIn(t, outline, "button", "Greet"), "tab_id": tab})
	e.ok("wait_for", map[string]any{"text": "Hello, Grace!", "tab_id": tab})
}

// TestShadowRecordedLocators has a user (trusted CDP input) type into a
// Shoelace field and tick its checkbox: the recorder describes each by
// the role and name of the control inside the shadow root, and those
// locators, given to interact, reach the same controls.
func TestShadowRecordedLocators(t *testing.T) {
	e := ready(t)
	p := e.openPage(e.site.URL + "/shadow/shoelace.html")
	inner := func(host, sel string) string {
		return fmt.Sprintf(`document.querySelector(%q).shadowRoot.querySelector(%q)`, host, sel)
	}
	var box struct{ X, Y float64 }
	at := func(expr string) {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			err := p.s.Evaluate(e.ctx, fmt.Sprintf(`(() => { const r = %s.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`, expr), &box)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %v", expr, err)
			}
		}
		if err := p.s.Click(e.ctx, box.X, box.Y); err != nil {
			t.Fatal(err)
		}
	}
	at(inner(`sl-input[name="name"]`, "input"))
	if err := p.s.InsertText(e.ctx, "Ada"); err != nil {
		t.Fatal(err)
	}
	at(inner(`sl-checkbox`, ".checkbox__control"))
	var checked bool
	if p.eval(`document.querySelector('sl-checkbox').checked`, &checked); !checked {
		t.Fatal("the user's click did not check the box")
	}

	want := map[string]string{"textbox": "Name", "checkbox": "I accept the terms"}
	o := e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 15*time.Second, func(o observed) error {
		for _, a := range o.Entries {
			if loc, _ := a["locator"].(map[string]any); loc["role"] == "checkbox" {
				return nil
			}
		}
		return fmt.Errorf("no action on the checkbox yet")
	})
	got := map[string]map[string]any{}
	var tab any
	for _, a := range o.Entries {
		if loc, _ := a["locator"].(map[string]any); loc != nil && loc["by"] == "role" {
			got[fmt.Sprint(loc["role"])] = loc
			tab = a["tab_id"]
		}
	}
	for role, name := range want {
		if got[role] == nil || got[role]["name"] != name {
			t.Errorf("no %s %q recorded by role and name: %v", role, name, o.Entries)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	e.ok("fill", map[string]any{"target": targetOf(t, got["textbox"]), "text": "Grace", "tab_id": tab})
	e.ok("uncheck", map[string]any{"target": targetOf(t, got["checkbox"]), "tab_id": tab})
	var state []any
	if p.eval(`[document.querySelector('sl-input[name="name"]').value, document.querySelector('sl-checkbox').checked]`, &state); fmt.Sprint(state) != "[Grace false]" {
		t.Errorf("replaying the recorded locators left the field and box at %v, want [Grace false]", state)
	}
}
