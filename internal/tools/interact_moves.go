package tools

import (
	"encoding/json"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// moveActions drag one element onto another, fill a form in one call and
// size the page's viewport: what a user does with the mouse and the window
// besides clicks and keys.
func moveActions() []action {
	fillForm := dom[fillFormArgs]("fill_form", "[{target, value}]", false)
	resize := browser[resizeArgs]("resize", "act", "the viewport")
	resize.Idempotent = true
	return []action{dom[dragArgs]("drag", "", false), fillForm, resize}
}

// dragArgs drag target onto to, another target of the same document: with
// pointer and mouse events, or HTML5 drag and drop when the element is
// draggable (extension/actions/runtime.js).
type dragArgs struct {
	targetArgs `list:"target"`
	To         json.RawMessage `json:"to" required:"true"`
	settleArgs `list:"-"`
}

func (a dragArgs) check() error {
	if err := a.checkTarget("drag", false, false); err != nil {
		return err
	}
	return checkTargetValue("drag's to", a.To)
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
}

func (a fillFormArgs) check() error {
	if len(a.Fields) > maxFormFields {
		return mcp.Errorf("invalid_arguments", fmt.Sprintf("split the form into calls of at most %d fields", maxFormFields),
			"fill_form got %d fields", len(a.Fields))
	}
	for i, f := range a.Fields {
		if len(f.Target) == 0 || string(f.Target) == "null" {
			return mcp.Errorf("invalid_arguments", "each field is {target, value}; "+targetHint, "fill_form: field %d has no target", i)
		}
		if err := checkTargetValue(fmt.Sprintf("fill_form field %d", i), f.Target); err != nil {
			return err
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
