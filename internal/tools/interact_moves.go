package tools

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// moveActions drag one element onto another, fill a form in one call and
// size the page's viewport: what a user does with the mouse and the window
// besides clicks and keys.
func moveActions() []action {
	fillForm := dom[fillFormArgs]("fill_form", "[{target, value}]", false)
	resize := browser[resizeArgs]("resize", "act", "the viewport")
	resize.Idempotent = true
	return []action{dom[dragArgs]("drag", "", false).notReplayed("add the drag to the test by hand"), fillForm, resize}
}

// dragArgs drag target onto to, another target of the same document: with
// pointer and mouse events, or HTML5 drag and drop when the element is
// draggable (extension/actions/runtime.js).
type dragArgs struct {
	targetArgs `list:"target"`
	To         json.RawMessage `json:"to" required:"true" types:"string,object"`
	settleArgs `list:"-"`
}

// normalize gives target and to canonically (canonicalTarget).
func (a *dragArgs) normalize() {
	a.canonical(false)
	a.To = canonicalJSON(a.To)
}

func (a dragArgs) check() error {
	if err := a.checkTarget("drag", false, false); err != nil {
		return err
	}
	if err := checkTargetValue("drag's to", a.To); err != nil {
		return err
	}
	// One drag happens in one document: a ref names its document (f7e12
	// is frame 7's), anything else the document frame names.
	from := a.targetArgs
	from.canonical(false)
	var c canonicalTarget
	_ = json.Unmarshal(from.Target, &c) // canonical's own JSON
	if f, t := refFrame(c.Ref), refFrame(canonicalOf(a.To).Ref); f != t {
		return mcp.Errorf("invalid_arguments", "pass targets of the same document (with frame for an iframe)",
			"drag moves within one document: its target and to are in different frames")
	}
	return nil
}

// refFrame is the frame a target's ref names ("f7e12": 7), -1 for a ref
// of the top document ("e12") and for no ref (""): a target of another
// kind is looked for in the document the command names.
func refFrame(ref string) int {
	if n, ok := strings.CutPrefix(ref, "f"); ok {
		if i := strings.IndexByte(n, 'e'); i > 0 {
			if v, err := strconv.Atoi(n[:i]); err == nil && v > 0 {
				return v
			}
		}
	}
	return -1
}

// maxFormFields bounds fill_form's fields.
const maxFormFields = 50

// fillFormArgs fill several fields of one document (the top one, or
// frame's) and settle once.
type fillFormArgs struct {
	Fields []formField `json:"fields" required:"true"`
	Frame  string      `json:"frame,omitempty" list:"-"`
	tabArg
	settleArgs `list:"-"`
}

// formField is one field of fill_form: its target and its value, a string
// (text, or a select's option), a list of strings (a multiple select), or
// a boolean (checkbox, radio, switch; "checked" and "unchecked" too).
type formField struct {
	Target json.RawMessage `json:"target"`
	Value  json.RawMessage `json:"value"`
	kinds  []string        // the kinds of target the field named (check refuses more than one)
	ref    string          // its flat ref, checked by check
}

// UnmarshalJSON takes a field's target in every form other actions take:
// target, or flat ref, selector, role (with name) or text, which it turns
// into target (the extension reads only target).
func (f *formField) UnmarshalJSON(b []byte) error {
	var w struct {
		Target   json.RawMessage `json:"target"`
		Value    json.RawMessage `json:"value"`
		Ref      string          `json:"ref"`
		Selector string          `json:"selector"`
		Role     string          `json:"role"`
		Name     string          `json:"name"`
		Text     string          `json:"text"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*f = formField{Target: w.Target, Value: w.Value, ref: w.Ref}
	t := targetArgs{Target: w.Target, Ref: w.Ref, Selector: w.Selector, Role: w.Role, Name: w.Name, Text: w.Text}
	f.kinds = t.kinds(false)
	if w.Name != "" && w.Role == "" {
		f.kinds = append(f.kinds, "name without role")
	}
	if len(f.kinds) != 1 || f.kinds[0] == "target" {
		return nil
	}
	var v any
	switch f.kinds[0] {
	case "ref":
		v = w.Ref
	case "selector":
		v = w.Selector
	case "role":
		o := map[string]string{"role": w.Role}
		if w.Name != "" {
			o["name"] = w.Name
		}
		v = o
	case "text":
		v = map[string]string{"text": w.Text}
	}
	f.Target, _ = json.Marshal(v)
	return nil
}

// normalize gives each field's target canonically (canonicalTarget).
func (a *fillFormArgs) normalize() {
	for i := range a.Fields {
		a.Fields[i].Target = canonicalJSON(a.Fields[i].Target)
	}
}

func (a fillFormArgs) check() error {
	if len(a.Fields) > maxFormFields {
		return mcp.Errorf("invalid_arguments", fmt.Sprintf("split the form into calls of at most %d fields", maxFormFields),
			"fill_form got %d fields", len(a.Fields))
	}
	for i, f := range a.Fields {
		if len(f.kinds) > 1 {
			return mcp.Errorf("invalid_arguments", "pass one: "+targetHint, "fill_form: field %d names more than one target: %v", i, f.kinds)
		}
		if f.ref != "" && !refPattern.MatchString(f.ref) {
			return mcp.Errorf("invalid_arguments", `refs look like "e12" (from analyze({what:"dom"}) or query); a CSS selector goes in selector`, "fill_form: field %d: %q is not a ref", i, f.ref)
		}
		if len(f.Target) == 0 || string(f.Target) == "null" {
			return mcp.Errorf("invalid_arguments", "each field is {target, value} (or flat: {ref|selector|text, value}, {role, name, value}); "+targetHint, "fill_form: field %d has no target", i)
		}
		if err := checkTargetValue(fmt.Sprintf("fill_form field %d", i), f.Target); err != nil {
			return err
		}
		if refFrame(canonicalOf(f.Target).Ref) > 0 && a.Frame == "" {
			return mcp.Errorf("invalid_arguments", "pass frame (the iframe's CSS selector) and fill that frame's fields in their own call",
				"fill_form: field %d's ref %s is in an iframe", i, canonicalOf(f.Target).Ref)
		}
		if !formValue(f.Value) {
			return mcp.Errorf("invalid_arguments", `a value is text, an option (or a list of options for a multiple select), or true/false for a checkbox or radio`,
				"fill_form: field %d's value %s is not a string, a list of strings or a boolean", i, orMissing(f.Value))
		}
	}
	return nil
}

// formValue says whether raw is a value fill_form can set.
func formValue(raw json.RawMessage) bool {
	var s string
	var b bool
	var list []string
	return json.Unmarshal(raw, &s) == nil && string(raw) != "null" ||
		json.Unmarshal(raw, &b) == nil && string(raw) != "null" ||
		json.Unmarshal(raw, &list) == nil && string(raw) != "null"
}

func orMissing(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(missing)"
	}
	return string(raw)
}

// resizeArgs size the window of a tab so that its viewport has width ×
// height CSS pixels. The largest size is the screen's (Chrome keeps at
// least half of a window on it), which only the extension knows; below
// 100 px a page is not worth looking at.
type resizeArgs struct {
	Width  int `json:"width" required:"true" min:"100"`
	Height int `json:"height" required:"true" min:"100"`
	tabArg
}
