//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestHandsDrag drags an item of a list sorted with pointer events onto
// another, and a card with HTML5 drag and drop onto a zone that accepts it
// and onto one that does not: the page's own listeners show each worked,
// and the result says which way it dragged.
func TestHandsDrag(t *testing.T) {
	e := ready(t)
	e.open("/hands/moves.html")
	handsDrag(t, e)
}

// handsDrag is TestHandsDrag's part after the page is open, in either browser.
func handsDrag(t *testing.T, e *env) {
	t.Helper()
	r := e.ok("drag", map[string]any{"target": map[string]any{"text": "Apple", "exact": true}, "to": map[string]any{"text": "Cherry", "exact": true}})
	if r["mode"] != "pointer" || r["to"].(map[string]any)["name"] != "Cherry" {
		t.Errorf("pointer drag: %v, want mode pointer onto Cherry", r)
	}
	if eff, _ := r["effects"].(map[string]any); eff == nil || eff["settled"] != true {
		t.Errorf("drag should settle like click: %v", r["effects"])
	}
	if got := e.pageText("#sortable", nil); got != "Banana\nCherry\nApple\nDate" {
		t.Errorf("after dragging Apple onto Cherry the list is %q", got)
	}

	r = e.ok("drag", map[string]any{"selector": "#card1", "to": "#dropzone"})
	if r["mode"] != "html5" || r["dropped"] != true {
		t.Errorf("HTML5 drag onto the drop zone: %v, want mode html5, dropped", r)
	}
	r = e.ok("drag", map[string]any{"selector": "#card2", "to": "#nodrop"})
	if r["mode"] != "html5" || r["dropped"] != false || r["note"] == nil {
		t.Errorf("HTML5 drag onto a zone that refuses: %v, want dropped false with a note", r)
	}
	got := e.pageText("#log", nil)
	want := "sorted Banana,Cherry,Apple,Date\ndropped card1\ndragend card1\ndragend card2\n"
	if got != want {
		t.Errorf("the page logged %q, want %q", got, want)
	}
	if msg := e.fails("drag", map[string]any{"selector": "#card2", "to": "#nowhere", "timeout_ms": 5000}, "not_found"); !strings.Contains(msg, "#nowhere") {
		t.Errorf("a missing drop target should be named: %s", msg)
	}
	bad, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "drag", "selector": "#card2"})
	if err != nil || !bad.IsError || bad.ToolError == nil || bad.ToolError.Code != "invalid_arguments" {
		t.Errorf("drag without to: %s (%v), want an invalid_arguments tool error", bad, err)
	}
}

// TestHandsFillForm fills every kind of field in one call (text, password,
// textarea, select, multiple select, checkbox, radio, contenteditable):
// one result lists each field's outcome without the password, and the
// page's listeners saw them all; a disabled field fails naming its index.
func TestHandsFillForm(t *testing.T) {
	e := ready(t)
	e.open("/hands/moves.html")
	handsFillForm(t, e)
}

// handsFillForm is TestHandsFillForm's part after the page is open, in either browser.
func handsFillForm(t *testing.T, e *env) {
	t.Helper()
	r := e.ok("fill_form", map[string]any{"fields": []map[string]any{
		{"target": map[string]any{"role": "textbox", "name": "Full name"}, "value": "Ada Lovelace"},
		{"target": "#pw", "value": "hunter22"},
		{"target": "#bio", "value": "Line one\nLine two"},
		{"target": map[string]any{"role": "combobox", "name": "Color"}, "value": "Green"},
		{"target": "#tags", "value": []string{"x", "z"}},
		{"target": map[string]any{"text": "Newsletter"}, "value": true},
		{"target": map[string]any{"role": "radio", "name": "Large"}, "value": "checked"},
		{"target": map[string]any{"role": "textbox", "name": "Notes"}, "value": "Hello"},
	}})
	whole, _ := json.Marshal(r)
	t.Logf("fill_form of 8 fields: %d characters, ~%d tokens", len(whole), (len(whole)+3)/4)
	fields, _ := r["fields"].([]any)
	if len(fields) != 8 {
		t.Fatalf("fill_form: %v, want 8 field outcomes", r)
	}
	out, _ := json.Marshal(fields)
	if strings.Contains(string(out), "hunter22") || fields[1].(map[string]any)["secret"] != true {
		t.Errorf("the password's outcome must not echo it: %s", out)
	}
	for i, want := range []string{`"value":"Ada Lovelace"`, `"secret":true`, `"value":"Line one\nLine two"`, `"selected":["g"]`, `"selected":["x","z"]`, `"checked":true`, `"checked":true`, `"value":"Hello"`} {
		if b, _ := json.Marshal(fields[i]); !strings.Contains(string(b), want) {
			t.Errorf("field %d: %s, want %s", i, b, want)
		}
	}
	if eff, _ := r["effects"].(map[string]any); eff == nil || eff["settled"] != true {
		t.Errorf("fill_form should settle once at the end: %v", r["effects"])
	}
	want := `{"name":"Ada Lovelace","pw":8,"bio":"Line one\nLine two","color":"g","tags":["x","z"],"news":true,"size":"l","notes":"Hello"}`
	if got := e.pageText("#state", nil); got != want {
		t.Errorf("the page's form state is %s, want %s", got, want)
	}

	msg := e.fails("fill_form", map[string]any{"timeout_ms": 5000, "fields": []map[string]any{
		{"target": "#fullname", "value": "Grace"},
		{"target": "#locked", "value": "x"},
	}}, "disabled")
	if !strings.Contains(msg, "field 1 ") || !strings.Contains(msg, "fields 0-0 were filled") {
		t.Errorf("a failure should name the field and what was done: %s", msg)
	}
	e.fails("fill_form", map[string]any{"fields": []map[string]any{{"target": "#news", "value": "maybe"}}}, "bad_option")
	bad, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "fill_form", "fields": []map[string]any{{"target": "#bio", "value": 3}}})
	if err != nil || !bad.IsError || bad.ToolError == nil || bad.ToolError.Code != "invalid_arguments" || !strings.Contains(bad.ToolError.Message, "field 0") {
		t.Errorf("a numeric value: %s (%v), want an invalid_arguments tool error naming field 0", bad, err)
	}
}

// TestHandsFillFormEcho fills a form as an agent would, with a letter of
// about 20 000 characters and a password: the answer stays small (the
// letter comes back as a clipped preview and its length, the password not
// at all), the page holds the whole letter, and a field the page formats
// after filling, or one over its maxlength, says so.
func TestHandsFillFormEcho(t *testing.T) {
	e := ready(t)
	e.open("/hands/moves.html")
	letter := strings.Repeat("Dear Sir or Madam, I write about my order. ", 470) // 20 210 characters
	const password = "correct-horse-battery-staple-42"
	r := e.act("fill_form", map[string]any{"fields": []map[string]any{
		{"target": map[string]any{"role": "textbox", "name": "Bio"}, "value": letter},
		{"target": "#pw", "value": password},
		{"target": "#phone", "value": "5551234567"},
		{"target": "#code", "value": "123456"},
		{"target": "#postcode", "value": "sw1a 1aa"},
	}})
	if r.Status != "complete" {
		t.Fatalf("fill_form: status %q, want complete: %s", r.Status, r)
	}
	// What an agent reads is the text; the structured copy is held to the same.
	for what, text := range map[string]string{"text": r.Text, "structuredContent": string(r.Raw)} {
		tokens := (len(text) + 3) / 4 // the repo's estimate: characters/4, rounded up
		t.Logf("fill_form answer (%s): %d characters, ~%d tokens", what, len(text), tokens)
		if tokens >= 2000 {
			t.Errorf("the %s is ~%d tokens, want under 2000: %.400s", what, tokens, text)
		}
		if strings.Contains(text, letter[:200]) || strings.Contains(text, password) || strings.Contains(text, "correct-horse") {
			t.Errorf("the %s echoes the letter or the password: %.400s", what, text)
		}
	}
	var res struct {
		Fields []map[string]any `json:"fields"`
	}
	if err := json.Unmarshal(r.Value, &res); err != nil || len(res.Fields) != 5 {
		t.Fatalf("fill_form: %s (%v), want 5 field outcomes", r.Value, err)
	}
	bio, pw, phone, code, postcode := res.Fields[0], res.Fields[1], res.Fields[2], res.Fields[3], res.Fields[4]
	if v, _ := bio["value"].(string); bio["chars"] != float64(len(letter)) || !strings.HasPrefix(letter, strings.TrimSuffix(v, "…")) || len(v) > 100 || bio["value_differs"] != nil {
		t.Errorf("the letter's outcome: %v, want a short preview of it and chars %d", bio, len(letter))
	}
	if pw["secret"] != true || pw["value"] != nil || pw["chars"] != nil || pw["value_differs"] != nil {
		t.Errorf("the password's outcome: %v, want secret: true and nothing of its value", pw)
	}
	if phone["value_differs"] != true || phone["value"] != "(555) 123-4567" {
		t.Errorf("the phone's outcome: %v, want value_differs with what the page made of it", phone)
	}
	if note, _ := code["note"].(string); code["value"] != "123456" || !strings.Contains(note, "maxlength 4") {
		t.Errorf("the code's outcome: %v, want its value and a note on its maxlength", code)
	}
	if postcode["value_differs"] != true || postcode["value"] != "SW1A 1AA" {
		t.Errorf("the postcode's outcome: %v, want value_differs with what the page's input handler made of it", postcode)
	}
	if got := e.pageText("#state", nil); !strings.Contains(got, `"pw":31`) {
		t.Errorf("the page's form state is %.200s, want the password's 31 characters", got)
	}
	if got := e.js("document.getElementById('bio').value.length", nil); !strings.Contains(string(got.Value), fmt.Sprint(len(letter))) {
		t.Errorf("the page holds a letter of %s characters, want %d", got.Value, len(letter))
	}
}

// TestHandsFillEcho holds a single fill to fill_form's read-back: the
// letter comes back as a clipped preview and its length, a password not at
// all, a field the page's input handler reformats before the event
// returns says value_differs instead of failing, and a text the browser
// refuses (a date field given "tomorrow") fails before the page sees it
// and leaves the value the field held;
// select of a secret <select> (a card's expiry month) repeats no value.
func TestHandsFillEcho(t *testing.T) {
	e := ready(t)
	e.open("/hands/moves.html")
	letter := strings.Repeat("Dear Sir or Madam, I write about my order. ", 470) // 20 210 characters
	r := e.act("fill", map[string]any{"selector": "#bio", "text": letter})
	if r.Status != "complete" || len(r.Text) > 1000 || strings.Contains(r.Text, letter[:200]) {
		t.Errorf("fill of a %d-character letter answered %d characters: %.400s", len(letter), len(r.Text), r.Text)
	}
	bio := e.ok("fill", map[string]any{"selector": "#bio", "text": letter})
	if v, _ := bio["value"].(string); bio["chars"] != float64(len(letter)) || !strings.HasPrefix(letter, strings.TrimSuffix(v, "…")) || len(v) > 100 || bio["value_differs"] != nil {
		t.Errorf("fill's result for the letter: %v, want a short preview of it and chars %d", bio, len(letter))
	}
	pw := e.ok("fill", map[string]any{"selector": "#pw", "text": "correct-horse-battery-staple-42"})
	if b, _ := json.Marshal(pw); pw["secret"] != true || strings.Contains(string(b), "correct-horse") {
		t.Errorf("fill's result for the password: %s, want secret: true and nothing of its value", b)
	}
	if r := e.ok("fill", map[string]any{"selector": "#postcode", "text": "sw1a 1aa"}); r["value_differs"] != true || r["value"] != "SW1A 1AA" {
		t.Errorf("fill's result for the postcode: %v, want value_differs with what the page's input handler made of it", r)
	}
	// A card's expiry month is secret: neither select's result nor its error repeats it.
	if r := e.ok("select", map[string]any{"selector": "#expmonth", "values": []string{"07"}}); r["secret"] != true || r["selected"] != nil {
		t.Errorf("select of a card's expiry month: %v, want secret: true and no selected", r)
	}
	if msg := e.fails("select", map[string]any{"selector": "#expmonth", "values": []string{"Juli"}}, "bad_option"); strings.Contains(msg, "Juli\"") || !strings.Contains(msg, "July") {
		t.Errorf("select of a missing month: %s, want its options without the value sent", msg)
	}
	if got := complete(t, e.js("document.getElementById('expmonth').value", nil)); string(got.Value) != `"07"` {
		t.Errorf("the expiry month holds %s, want 07", got.Value)
	}
	// A text the browser itself refuses fails, before any event reaches the page.
	e.fails("fill", map[string]any{"selector": "#start", "text": "tomorrow"}, "not_editable")
	if got := complete(t, e.js("document.getElementById('log').textContent", nil)); strings.Contains(string(got.Value), "start input") {
		t.Errorf("the date field got an input event for a text it refused: %s", got.Value)
	}
	if r := e.ok("fill", map[string]any{"selector": "#start", "text": "2026-11-27"}); r["value"] != "2026-11-27" || r["value_differs"] != nil {
		t.Errorf("fill of a date: %v, want value 2026-11-27", r)
	}
	// Refused, it leaves the date the field held: the page saw no change.
	e.fails("fill", map[string]any{"selector": "#start", "text": "tomorrow"}, "not_editable")
	if got := complete(t, e.js("document.getElementById('start').value", nil)); string(got.Value) != `"2026-11-27"` {
		t.Errorf("after a refused fill the date field holds %s, want the 2026-11-27 it held", got.Value)
	}
	if r := e.ok("type", map[string]any{"selector": "#fullname", "text": "Ada"}); r["value"] != "Ada" || r["value_differs"] != nil {
		t.Errorf("type's result: %v, want value Ada", r)
	}
}

// TestHandsFillFormReact fills the React app's controlled form in one
// call: React's state (what it renders and submits) proves each event
// reached it, and the outcomes read back after its re-renders agree.
func TestHandsFillFormReact(t *testing.T) {
	e := ready(t)
	e.open("/react/index.html")
	e.ok("wait_for", map[string]any{"role": "heading", "name": "Create your account"})
	r := e.ok("fill_form", map[string]any{"fields": []map[string]any{
		{"target": map[string]any{"role": "textbox", "name": "Name"}, "value": "Grace"},
		{"target": map[string]any{"role": "textbox", "name": "Email"}, "value": "g@x.io"},
		{"target": map[string]any{"role": "combobox", "name": "Plan"}, "value": "Team"},
		{"target": map[string]any{"role": "checkbox", "name": "I accept the terms"}, "value": true},
		{"target": map[string]any{"role": "textbox", "name": "Coupon"}, "value": "save10"},
	}})
	// React's re-renders after the fill keep what was filled: the read-back
	// finds nothing amiss but the coupon, which React's state upper-cases
	// (and writes back before the input event returns).
	fields, _ := r["fields"].([]any)
	if len(fields) != 5 {
		t.Fatalf("fill_form's outcomes: %v, want 5", r["fields"])
	}
	if b, _ := json.Marshal(fields[:4]); strings.Contains(string(b), "value_differs") || strings.Contains(string(b), "note") {
		t.Errorf("fill_form's outcomes: %s, want none differing or noted", b)
	}
	if coupon, _ := fields[4].(map[string]any); coupon["value_differs"] != true || coupon["value"] != "SAVE10" {
		t.Errorf("the coupon's outcome: %v, want value_differs with the value React made of it", fields[4])
	}
	if c := e.ok("fill", map[string]any{"role": "textbox", "name": "Coupon", "text": "half"}); c["value_differs"] != true || c["value"] != "HALF" {
		t.Errorf("fill of the coupon: %v, want value_differs with the value React made of it", c)
	}
	e.ok("click", map[string]any{"role": "button", "name": "Create account"})
	if got, want := e.pageText("#result", nil), `Submitted {"name":"Grace","email":"g@x.io","plan":"team","terms":true}`; got != want {
		t.Errorf("the app submitted %q, want %q", got, want)
	}
}

// TestHandsResize sizes the window so that the page's viewport is the size
// asked for, larger and smaller, and reads it back from the page; a size
// Chrome refuses on this screen (headless: 800x600) fails saying so. A
// phone-sized width is below the narrowest window a headed Chrome on Linux
// draws (500 px): there the result must say so and report the viewport the
// page really got.
func TestHandsResize(t *testing.T) {
	e := ready(t)
	e.open("/hands/moves.html")
	for _, size := range [][2]int{{1024, 700}, {640, 480}, {375, 667}} {
		r := e.ok("resize", map[string]any{"width": size[0], "height": size[1]})
		v, _ := r["viewport"].(map[string]any)
		reported := fmt.Sprint(v["width"], "x", v["height"])
		got := complete(t, e.js("innerWidth + 'x' + innerHeight", nil)).Value
		if string(got) != `"`+reported+`"` {
			t.Errorf("after resize %v the page's viewport is %s, the result said %s", size, got, reported)
		}
		if reported == fmt.Sprint(size[0], "x", size[1]) && r["note"] == nil {
			continue
		}
		note, _ := r["note"].(string)
		if size[0] >= 500 || os.Getenv("GASOLINE_HEADED") != "1" || !strings.Contains(note, "cannot be sized") {
			t.Errorf("resize %v: %v", size, r)
		}
	}
	if r := e.act("resize", map[string]any{"width": 3000, "height": 3000}); r.Status != "error" || !strings.Contains(r.Error, "screen") {
		t.Errorf("a window larger than the screen allows: %s, want an error naming the screen", r)
	}
	bad, err := e.mcp.Call(e.ctx, "interact", map[string]any{"action": "resize", "width": 50, "height": 600})
	if err != nil || !bad.IsError || bad.ToolError == nil || bad.ToolError.Code != "invalid_arguments" {
		t.Errorf("a width under the bound: %s (%v), want an invalid_arguments tool error", bad, err)
	}
}
