package testgen

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

var update = flag.Bool("update", false, "rewrite the golden .spec.ts files")

func act(id uint64, typ, sel string, loc *apitype.Locator, f func(*capture.ActionView)) *capture.ActionView {
	a := &capture.ActionView{Head: capture.Head{ID: id, TabID: 7, TS: tsOf(id)}, Type: typ, Selector: sel, Locator: loc}
	if f != nil {
		f(a)
	}
	return a
}

func nav(id uint64, typ, to string) *capture.NavView {
	return &capture.NavView{Head: capture.Head{ID: id, TabID: 7, TS: tsOf(id)}, Type: typ, To: to}
}

func req(id uint64, method, u string, status int) *capture.NetworkView {
	return &capture.NetworkView{Head: capture.Head{ID: id, TabID: 7, TS: tsOf(id)}, Method: method, URL: u, Status: status, Type: "fetch"}
}

// tsOf gives the entries of a recording the times they happened in, in
// their order: 10 ms apart.
func tsOf(id uint64) int64 { return int64(id) * 10 }

// login is a form with a password that posts and redirects.
func login() []capture.View {
	return []capture.View{
		nav(1, "load", "http://127.0.0.1:8080/login.html"),
		act(2, "click", "#user", &apitype.Locator{By: "label", Name: "User name"}, nil),
		act(3, "input", "#user", &apitype.Locator{By: "label", Name: "User name"}, func(a *capture.ActionView) { a.Value = "ada"; a.Role = "textbox"; a.Name = "User name" }),
		act(4, "input", "#pw", &apitype.Locator{By: "label", Name: "Password"}, func(a *capture.ActionView) { a.Value = "[redacted]"; a.Name = "Password" }),
		act(5, "change", "#remember", &apitype.Locator{By: "role", Role: "checkbox", Name: "Remember me"}, func(a *capture.ActionView) { a.Value = "checked" }),
		act(6, "change", "#plan", &apitype.Locator{By: "label", Name: "Plan"}, func(a *capture.ActionView) { a.Value = "pro"; a.Role = "combobox" }),
		act(7, "click", "form > button", &apitype.Locator{By: "testid", Attr: "data-testid", Value: "sign-in"}, nil),
		act(8, "submit", "form", &apitype.Locator{By: "css", Selector: "form"}, nil),
		req(9, "POST", "http://127.0.0.1:8080/api/audit?t=1", 201),
		nav(10, "load", "http://127.0.0.1:8080/welcome.html"),
		act(11, "keydown", "#search", &apitype.Locator{By: "role", Role: "searchbox", Name: "Search"}, func(a *capture.ActionView) { a.Key = "Enter"; a.Modifiers = []string{"Control"} }),
		act(12, "change", "#avatar", &apitype.Locator{By: "css", Selector: "#avatar"}, func(a *capture.ActionView) { a.Value = "[2 file(s)]" }),
	}
}

// crash ends on the error the user reports, after a request that failed.
func crash() []capture.View {
	return []capture.View{
		&capture.ActionView{Head: capture.Head{ID: 20, TabID: 3, PageURL: "http://localhost:5173/"}, Type: "click", Selector: "#add",
			Locator: &apitype.Locator{By: "role", Role: "button", Name: "Add 'item'"}},
		req(21, "GET", "http://localhost:5173/api/items", 500),
		&capture.ErrorView{Head: capture.Head{ID: 22, TabID: 3}, Type: "uncaught", Message: "TypeError: items.map is not a function"},
		&capture.NavView{Head: capture.Head{ID: 23, TabID: 3}, Type: "pushState", To: "http://localhost:5173/#/list"},
		&capture.ErrorView{Head: capture.Head{ID: 24, TabID: 3}, Type: "uncaught", Message: "Error: boom"},
	}
}

func TestGenerateGolden(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []capture.View
	}{
		{"login", login()},
		{"crash", crash()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Generate(Recording{Name: tc.name, Entries: tc.entries})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".spec.ts")
			if *update {
				if err := os.WriteFile(path, []byte(res.File), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if res.File != string(want) {
				t.Errorf("got\n%s\nwant\n%s", res.File, want)
			}
			lines := strings.Split(res.File, "\n")
			for _, s := range res.Steps {
				if got := strings.TrimSpace(lines[s.Line-1]); got != s.Code {
					t.Errorf("step from %d: line %d is %q, want %q", s.Source, s.Line, got, s.Code)
				}
			}
			for _, a := range res.Assertions {
				if got := strings.TrimSpace(lines[a.Line-1]); got != a.Code || a.Evidence == "" {
					t.Errorf("assertion line %d is %q, want %q with evidence (%q)", a.Line, got, a.Code, a.Evidence)
				}
			}
		})
	}
}

func TestGenerateFacts(t *testing.T) {
	res, err := Generate(Recording{Entries: login()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.File, "submit") || strings.Contains(res.File, "requestSubmit") {
		t.Errorf("a submit the click caused is a step of its own:\n%s", res.File)
	}
	if len(res.Secrets) != 1 || res.Secrets[0].Env != "GASOLINE_SECRET_1" || !strings.Contains(res.Secrets[0].Field, "Password") {
		t.Errorf("got secrets %+v, want GASOLINE_SECRET_1 for the Password field", res.Secrets)
	}
	var sources []uint64
	for _, s := range res.Steps {
		sources = append(sources, s.Source)
	}
	if want := "[1 2 3 4 5 6 7 11 12]"; fmt.Sprint(sources) != want {
		t.Errorf("got step sources %v, want %s", sources, want)
	}
	if _, err := Generate(Recording{Entries: []capture.View{nav(1, "load", "http://x/")}}); err != ErrNoActions {
		t.Errorf("got %v for a window without actions, want ErrNoActions", err)
	}
}

// TestGenerateAgentActions merges the agent's commands into the user's
// actions by time, with their correlation ids as sources; a ref target is
// not replayed and says so.
func TestGenerateAgentActions(t *testing.T) {
	user := []capture.View{
		&capture.NavView{Head: capture.Head{ID: 1, TS: 1000}, Type: "load", To: "http://x/"},
		&capture.ActionView{Head: capture.Head{ID: 2, TS: 2000}, Type: "click", Selector: "#a", Locator: &apitype.Locator{By: "testid", Value: "a"}},
		&capture.ActionView{Head: capture.Head{ID: 3, TS: 4000}, Type: "click", Selector: "#c", Locator: &apitype.Locator{By: "testid", Value: "c"}},
	}
	res, err := Generate(Recording{Entries: user, Agent: []AgentAction{
		{ID: "fill_1", Action: "fill", TS: 3000, Params: json.RawMessage(`{"target":{"role":"textbox","name":"Email"},"text":"a@b.c"}`)},
		{ID: "click_2", Action: "click", TS: 3500, Params: json.RawMessage(`{"target":{"ref":"e12"}}`)}, // the canonical target the daemon sends
		{ID: "select_3", Action: "select", TS: 5000, Params: json.RawMessage(`{"target":{"selector":"#plan"},"values":["pro"]}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Steps[1:] {
		got = append(got, fmt.Sprintf("%d%s %s", s.Source, s.Command, s.Code))
	}
	want := []string{
		"2 await page.getByTestId('a').click();",
		"0fill_1 await page.getByRole('textbox', { name: 'Email', exact: true }).fill('a@b.c');",
		"3 await page.getByTestId('c').click();",
		"0select_3 await page.locator('#plan').selectOption('pro');",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(res.Notes, " "), "click_2") {
		t.Errorf("notes %v do not say the ref target was not replayed", res.Notes)
	}
}

// TestGenerateAgentPointAndScroll replays an agent's click_at with the
// mouse at its point and a scroll_by as the page verb scrolled: the page,
// or the element its target names; a click_at in a frame (page.mouse
// knows only the page's viewport) and a scroll_by of a ref are named in a
// note as not replayed.
func TestGenerateAgentPointAndScroll(t *testing.T) {
	user := []capture.View{&capture.NavView{Head: capture.Head{ID: 1, TS: 1000}, Type: "load", To: "http://x/"}}
	res, err := Generate(Recording{Entries: user, Agent: []AgentAction{
		{ID: "click_at_1", Action: "click_at", TS: 2000, Params: json.RawMessage(`{"x":120,"y":80.5}`)},
		{ID: "scroll_by_2", Action: "scroll_by", TS: 3000, Params: json.RawMessage(`{"dy":800}`)},
		{ID: "scroll_by_3", Action: "scroll_by", TS: 4000, Params: json.RawMessage(`{"target":{"selector":"#list"},"dx":-40,"dy":600}`)},
		{ID: "click_at_4", Action: "click_at", TS: 5000, Params: json.RawMessage(`{"x":5,"y":5,"frame":"#inner"}`)},
		{ID: "scroll_by_5", Action: "scroll_by", TS: 6000, Params: json.RawMessage(`{"target":{"ref":"e7"},"dy":100}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Steps[1:] {
		got = append(got, fmt.Sprintf("%s %s", s.Command, s.Code))
	}
	want := []string{
		"click_at_1 await page.mouse.click(120, 80.5);",
		"scroll_by_2 await page.evaluate(() => window.scrollBy({ left: 0, top: 800, behavior: 'instant' }));",
		"scroll_by_3 await page.locator('#list').evaluate((el) => el.scrollBy({ left: -40, top: 600, behavior: 'instant' }));",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notes := strings.Join(res.Notes, " ")
	for _, id := range []string{"click_at_4", "scroll_by_5"} {
		if !strings.Contains(notes, id) {
			t.Errorf("notes %v do not say %s was not replayed", res.Notes, id)
		}
	}
}

// TestGenerateAgentFillForm replays an agent's fill_form as one step a
// field, by the control its result says each was; a drag, and a fill_form
// whose result does not say, are named in a note as not replayed.
func TestGenerateAgentFillForm(t *testing.T) {
	user := []capture.View{&capture.NavView{Head: capture.Head{ID: 1, TS: 1000}, Type: "load", To: "http://x/"}}
	res, err := Generate(Recording{Entries: user, Agent: []AgentAction{
		{ID: "form_1", Action: "fill_form", TS: 2000,
			Params: json.RawMessage(`{"fields":[{"target":"#name","value":"Ada"},{"target":{"role":"checkbox","name":"Terms"},"value":true},{"target":"#plan","value":"pro"},{"target":"#news","value":"unchecked"}]}`),
			Result: json.RawMessage(`{"tab_id":7,"fields":[{"role":"textbox","value":"Ada"},{"role":"checkbox","checked":true},{"role":"combobox","selected":["pro"]},{"role":"checkbox","checked":false}]}`)},
		{ID: "drag_2", Action: "drag", TS: 3000, Params: json.RawMessage(`{"target":"#a","to":"#b"}`), NotReplayed: "add the drag to the test by hand"},
		{ID: "form_3", Action: "fill_form", TS: 4000, Params: json.RawMessage(`{"fields":[{"target":"#x","value":"y"}]}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Steps[1:] {
		got = append(got, s.Command+" "+s.Code)
	}
	want := []string{
		"form_1 await page.locator('#name').fill('Ada');",
		"form_1 await page.getByRole('checkbox', { name: 'Terms', exact: true }).check();",
		"form_1 await page.locator('#plan').selectOption('pro');",
		"form_1 await page.locator('#news').uncheck();",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notes := strings.Join(res.Notes, "\n")
	for _, id := range []string{"drag_2 (drag) not replayed", "form_3 (fill_form) not replayed"} {
		if !strings.Contains(notes, id) {
			t.Errorf("notes %q do not say %s", notes, id)
		}
	}
}

// TestGenerateAgentSecret writes an agent's fill into a secret field (its
// result says secret: true) as an environment variable, never as the text;
// with no result kept, a target named like a password is redacted too, and
// a field whose result gave its value back is written as typed.
func TestGenerateAgentSecret(t *testing.T) {
	user := []capture.View{&capture.NavView{Head: capture.Head{ID: 1, TS: 1000}, Type: "load", To: "http://x/"}}
	res, err := Generate(Recording{Entries: user, Agent: []AgentAction{
		{ID: "fill_1", Action: "fill", TS: 2000, Params: json.RawMessage(`{"target":"#login-key","text":"hunter2"}`),
			Result: json.RawMessage(`{"tab_id":1,"target":{"ref":"e3"},"secret":true}`)},
		{ID: "type_2", Action: "type", TS: 3000, Params: json.RawMessage(`{"target":{"role":"textbox","name":"Password"},"text":"s3cret"}`)},
		{ID: "fill_3", Action: "fill", TS: 4000, Params: json.RawMessage(`{"target":"#email","text":"a@b.c"}`),
			Result: json.RawMessage(`{"tab_id":1,"value":"a@b.c"}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, s := range res.Steps[1:] {
		code = append(code, s.Code)
	}
	all := strings.Join(code, "\n")
	want := []string{
		"await page.locator('#login-key').fill(process.env.GASOLINE_SECRET_1 ?? '');",
		"await page.getByRole('textbox', { name: 'Password', exact: true }).fill(process.env.GASOLINE_SECRET_2 ?? '');",
		"await page.locator('#email').fill('a@b.c');",
	}
	if all != strings.Join(want, "\n") {
		t.Errorf("got steps\n%s\nwant\n%s", all, strings.Join(want, "\n"))
	}
	if strings.Contains(all, "hunter2") || strings.Contains(all, "s3cret") {
		t.Errorf("a secret is in the test:\n%s", all)
	}
	if len(res.Secrets) != 2 || !strings.Contains(res.Secrets[0].Field, "#login-key") || !strings.Contains(res.Secrets[1].Field, "Password") {
		t.Errorf("got secrets %+v, want GASOLINE_SECRET_1 for #login-key and _2 for Password", res.Secrets)
	}
}

// TestGenerateAgentSecretSelect replays a secret <select> (a card's expiry
// month), by fill_form or select, with selectOption from an environment
// variable: its result says only secret and selected_count, and the option
// chosen is never written.
func TestGenerateAgentSecretSelect(t *testing.T) {
	user := []capture.View{&capture.NavView{Head: capture.Head{ID: 1, TS: 1000}, Type: "load", To: "http://x/"}}
	res, err := Generate(Recording{Entries: user, Agent: []AgentAction{
		{ID: "form_1", Action: "fill_form", TS: 2000,
			Params: json.RawMessage(`{"fields":[{"target":"#exp-month","value":"07"}]}`),
			Result: json.RawMessage(`{"tab_id":7,"fields":[{"role":"combobox","secret":true,"selected_count":1}]}`)},
		{ID: "select_2", Action: "select", TS: 3000, Params: json.RawMessage(`{"target":"#exp-year","values":["2031"]}`),
			Result: json.RawMessage(`{"tab_id":7,"secret":true}`)},
		{ID: "select_3", Action: "select", TS: 4000, Params: json.RawMessage(`{"target":"#card-kind","values":["visa"]}`),
			Result: json.RawMessage(`{"tab_id":7,"selected":["visa"]}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, s := range res.Steps[1:] {
		code = append(code, s.Code)
	}
	want := []string{
		"await page.locator('#exp-month').selectOption(process.env.GASOLINE_SECRET_1 ?? '');",
		"await page.locator('#exp-year').selectOption(process.env.GASOLINE_SECRET_2 ?? '');",
		"await page.locator('#card-kind').selectOption('visa');",
	}
	if got := strings.Join(code, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got steps\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if strings.Contains(res.File, "'07'") || strings.Contains(res.File, "2031") {
		t.Errorf("a secret option is in the test:\n%s", res.File)
	}
}

// TestGenerateRequestBeforeItsClick: the recorder hands a click over when
// the page is idle, so the request its handler made can arrive first, in
// the same millisecond; the request is still the click's, not the step's
// before.
func TestGenerateRequestBeforeItsClick(t *testing.T) {
	at := func(ms int64, v capture.View) capture.View {
		switch e := v.(type) {
		case *capture.ActionView:
			e.TS = ms
		case *capture.NetworkView:
			e.TS = ms
		case *capture.NavView:
			e.TS = ms
		}
		return v
	}
	res, err := Generate(Recording{Entries: []capture.View{
		at(1000, nav(1, "load", "http://x/home.html")),
		at(2000, act(2, "click", "#other", &apitype.Locator{By: "role", Role: "button", Name: "Other"}, nil)),
		at(3000, req(4, "GET", "http://x/api/orders", 200)), // arrived before its click
		at(3000, act(3, "click", "#load", &apitype.Locator{By: "role", Role: "button", Name: "Load orders"}, nil)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Index(res.File, "name: 'Other'")
	wait := strings.Index(res.File, "waitForResponse")
	load := strings.Index(res.File, "name: 'Load orders'")
	if other < 0 || !(other < wait && wait < load) {
		t.Fatalf("the orders request is not waited for with the Load orders click (between the Other click and it):\n%s", res.File)
	}
}

// TestGenerateControls: each control is replayed with the step Playwright
// takes for it, as the recorder records it: a select's change (after the
// click that opened it) is selectOption, never fill; a radio or checkbox
// the value it got (check, uncheck); a contenteditable fill. A select's
// input and change of one task (an older recorder's) is selectOption too;
// a text combobox's change at blur, after its typing, stays fill.
func TestGenerateControls(t *testing.T) {
	plan := &apitype.Locator{By: "role", Role: "combobox", Name: "Plan"}
	choice := func(v string) func(*capture.ActionView) {
		return func(a *capture.ActionView) { a.Value, a.Role = v, "combobox" }
	}
	at := func(ts int64, f func(*capture.ActionView)) func(*capture.ActionView) {
		return func(a *capture.ActionView) { f(a); a.TS = ts }
	}
	tests := []struct {
		name    string
		entries []capture.View
		want    string
		not     string
	}{
		{"select after its click", []capture.View{act(2, "click", "#plan", plan, func(a *capture.ActionView) { a.Role = "combobox" }),
			act(3, "change", "#plan", plan, choice("pro"))},
			"await page.getByRole('combobox', { name: 'Plan', exact: true }).selectOption('pro');", ".fill("},
		{"select input and change of one task", []capture.View{act(2, "input", "#plan", plan, at(500, choice("pro"))),
			act(3, "change", "#plan", plan, at(501, choice("pro")))},
			".selectOption('pro');", ".fill("},
		{"text combobox changed at blur", []capture.View{act(2, "input", "#city", &apitype.Locator{By: "role", Role: "combobox", Name: "City"}, at(500, choice("Oslo"))),
			act(3, "change", "#city", &apitype.Locator{By: "role", Role: "combobox", Name: "City"}, at(900, choice("Oslo")))},
			".fill('Oslo');", ".selectOption("},
		{"radio", []capture.View{act(2, "click", "#yearly", &apitype.Locator{By: "role", Role: "radio", Name: "Yearly"}, nil),
			act(3, "input", "#yearly", &apitype.Locator{By: "role", Role: "radio", Name: "Yearly"}, func(a *capture.ActionView) { a.Value, a.Role = "checked", "radio" }),
			act(4, "change", "#yearly", &apitype.Locator{By: "role", Role: "radio", Name: "Yearly"}, func(a *capture.ActionView) { a.Value, a.Role = "checked", "radio" })},
			"await page.getByRole('radio', { name: 'Yearly', exact: true }).check();", ".click("},
		{"checkbox unchecked", []capture.View{act(2, "click", "#news", &apitype.Locator{By: "role", Role: "checkbox", Name: "News"}, nil),
			act(3, "change", "#news", &apitype.Locator{By: "role", Role: "checkbox", Name: "News"}, func(a *capture.ActionView) { a.Value, a.Role = "unchecked", "checkbox" })},
			".uncheck();", ".fill("},
		{"contenteditable", []capture.View{act(2, "input", "#bio", &apitype.Locator{By: "css", Selector: "#bio"}, func(a *capture.ActionView) { a.Value, a.Role = "Hello there", "textbox" })},
			"await page.locator('#bio').fill('Hello there');", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(Recording{Entries: append([]capture.View{nav(1, "load", "http://x/")}, tt.entries...)})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.File, tt.want) || (tt.not != "" && strings.Contains(res.File, tt.not)) {
				t.Errorf("got:\n%s\nwant %s and no %q", res.File, tt.want, tt.not)
			}
		})
	}
}
