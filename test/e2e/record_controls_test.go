//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// controlsPage is a settings form with a select, a radio group, a
// checkbox and a contenteditable; Save says what it holds.
const controlsPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Settings</title></head><body>
<h1>Settings</h1>
<label for="plan">Plan</label> <select id="plan"><option value="free">Free</option><option value="pro">Pro</option><option value="team">Team</option></select>
<fieldset><legend>Billing</legend>
<label><input type="radio" name="billing" id="monthly" value="monthly" checked> Monthly</label>
<label><input type="radio" name="billing" id="yearly" value="yearly"> Yearly</label></fieldset>
<label><input type="checkbox" id="news"> Newsletter</label>
<div id="bio" contenteditable="true" style="min-height:2em;border:1px solid"></div>
<button type="button" id="save">Save</button><p id="out"></p>
<script>document.getElementById('save').onclick = () => {
  const billing = document.querySelector('input[name=billing]:checked').value;
  document.getElementById('out').textContent = 'Saved ' + document.getElementById('plan').value + ', ' + billing + ', news ' +
    document.getElementById('news').checked + ', bio ' + document.getElementById('bio').textContent;
};</script></body></html>`

// TestRecordedControlsReplay: the user picks a plan in a <select> (with
// the keyboard, as trusted input), a radio, a checkbox and types into a
// contenteditable, then saves; analyze test writes the step Playwright
// needs for each (selectOption, check, fill on the editable), and the
// generated test, run by @playwright/test (verify:true), passes: the
// text Save showed, which names every value, is asserted.
func TestRecordedControlsReplay(t *testing.T) {
	playwrightReady(t)
	e := ready(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, controlsPage)
	}))
	t.Cleanup(site.Close)
	u := site.URL + "/settings.html"
	p := e.openPage(u)
	p.eval(`(document.getElementById('plan').focus(), true)`, new(bool))
	p.press("ArrowDown")
	var plan string
	p.eval(`document.getElementById('plan').value`, &plan)
	if plan != "pro" {
		t.Fatalf("ArrowDown in the select: got plan %q, want pro", plan)
	}
	p.click("#yearly")
	p.click("#news")
	p.typeInto("#bio", "Hello there")
	p.click("#save")
	want := "Saved pro, yearly, news true, bio Hello there"
	var out string
	p.eval(`document.getElementById('out').textContent`, &out)
	if out != want {
		t.Fatalf("the page says %q, want %q", out, want)
	}

	tab := e.tabOf(u)
	g := e.generate(map[string]any{"what": "test", "tab_id": tab},
		".selectOption('pro');", ".check();", ".fill('Hello there');", want)
	for _, bad := range []string{"fill('pro')", "fill('checked')", "fill('unchecked')"} {
		if strings.Contains(g.File, bad) {
			t.Errorf("the test replays a control with %s:\n%s", bad, g.File)
		}
	}
	if v := e.verify(tab); !v.Verdict.Passed {
		t.Fatalf("the recorded test failed against the page it was recorded on: %+v\n%s", v.Verdict, v.File)
	}
}

// TestFillFormFlatTargets: an agent fills the settings form with fields
// named in the flat forms every other action takes ({selector, value},
// {role, name, value}, {ref, value}); each reaches its control, and Save
// shows them.
func TestFillFormFlatTargets(t *testing.T) {
	e := ready(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, controlsPage)
	}))
	t.Cleanup(site.Close)
	if r := e.act("new_tab", map[string]any{"url": site.URL + "/settings.html"}); r.Status != "complete" {
		t.Fatalf("new_tab: %s", r)
	}
	q := e.ok("query", map[string]any{"selector": "#bio"})
	matches, _ := q["elements"].([]any)
	if len(matches) == 0 {
		t.Fatalf("query #bio: %v, want a ref", q)
	}
	ref, _ := matches[0].(map[string]any)["ref"].(string)
	e.ok("fill_form", map[string]any{"fields": []map[string]any{
		{"selector": "#plan", "value": "team"},
		{"role": "radio", "name": "Yearly", "value": true},
		{"role": "checkbox", "name": "Newsletter", "value": true},
		{"ref": ref, "value": "Filled"},
	}})
	e.ok("click", map[string]any{"role": "button", "name": "Save"})
	if got, want := e.pageText("#out", nil), "Saved team, yearly, news true, bio Filled"; got != want {
		t.Errorf("after fill_form with flat targets the page says %q, want %q", got, want)
	}
}
