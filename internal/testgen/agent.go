package testgen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// AgentAction is an agent's completed interact command in the tab: the
// extension dispatches its events itself (untrusted), so the recorder does
// not see it, and Generate replays it from its arguments.
type AgentAction struct {
	ID     string          // the correlation id
	Action string          // click, fill, type, select, check, uncheck, key_press
	Params json.RawMessage // its arguments as the extension got them
	TS     int64           // ms since the epoch, when it was created
	// Result is what the command answered (nil when not known): fill_form's
	// says which kind of control each field was (checked, selected, or
	// filled); a fill or type into a secret field says "secret": true.
	Result json.RawMessage
	// NotReplayed, when not empty, says why the action is not replayed
	// (its declaration's word, internal/tools): Generate notes it.
	NotReplayed string
}

// Replays says whether Generate replays the agent's action of that name
// (fill_form one step a field, as its result says): internal/tools checks
// that each DOM action it declares is replayed or says why not.
func Replays(action string) bool {
	switch action {
	case "click", "fill", "type", "select", "check", "uncheck", "key_press", "fill_form", "click_at", "scroll_by":
		return true
	}
	return false
}

// secretWords are what a target names when it is likely a secret field; a
// fill whose result is unknown is redacted when its target has one.
var secretWords = regexp.MustCompile(`(?i)pass|pwd|secret|one-time|otp|cc-|card|cvc|cvv`)

// secret says whether a's fill or type went into a secret field, as its
// result says: "secret": true, or the field's "value" when it is not. With
// neither (no result kept, or the page went away before answering) the
// target's words decide, since a missed secret would be written into the
// test in plain text.
func secret(a AgentAction, p agentParams) bool {
	var r struct {
		Secret bool            `json:"secret"`
		Value  json.RawMessage `json:"value"`
	}
	if json.Unmarshal(a.Result, &r) == nil && (r.Secret || r.Value != nil) {
		return r.Secret
	}
	return secretWords.MatchString(p.Selector + " " + p.Name)
}

// secretSelect is secret for a select: its result says "secret": true, or
// gives the "selected" options when it is not; with neither, the target's
// words decide.
func secretSelect(a AgentAction, p agentParams) bool {
	var r struct {
		Secret   bool            `json:"secret"`
		Selected json.RawMessage `json:"selected"`
	}
	if json.Unmarshal(a.Result, &r) == nil && (r.Secret || r.Selected != nil) {
		return r.Secret
	}
	return secretWords.MatchString(p.Selector + " " + p.Name)
}

// agentParams are the arguments of interact's DOM actions Generate reads.
type agentParams struct {
	Target    json.RawMessage `json:"target"`
	Ref       string          `json:"ref"`
	Selector  string          `json:"selector"`
	Text      string          `json:"text"`
	Role      string          `json:"role"`
	Name      string          `json:"name"`
	Values    []string        `json:"values"`
	Key       string          `json:"key"`
	Modifiers []string        `json:"modifiers"`
	// X and Y are click_at's point in the viewport, Frame the frame whose
	// viewport it is in; DX and DY are scroll_by's pixels.
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Frame string  `json:"frame"`
	DX    float64 `json:"dx"`
	DY    float64 `json:"dy"`
}

var agentRef = regexp.MustCompile(`^(?:f\d+)?e\d+$`)

// agentView turns a into the action the recorder would have written, its
// locator from the target the agent gave; ok is false for an action that
// is not replayed or a target only the page's outline knew (a ref).
func agentView(a AgentAction) (v *capture.ActionView, note string, ok bool) {
	var p agentParams
	if json.Unmarshal(a.Params, &p) != nil {
		return nil, "", false
	}
	if len(p.Target) > 0 {
		// The daemon sends the canonical target ({ref}, {selector},
		// {role, name?} or {text}); a fill_form field's is as the agent
		// gave it (a string, {role, name?} or {text}).
		var s string
		var o struct{ Ref, Selector, Role, Name, Text string }
		if json.Unmarshal(p.Target, &s) == nil {
			if agentRef.MatchString(s) {
				p.Ref = s
			} else {
				p.Selector = s
			}
		} else if json.Unmarshal(p.Target, &o) == nil {
			p.Ref, p.Selector, p.Role, p.Name = o.Ref, o.Selector, o.Role, o.Name
			if o.Text != "" && o.Role == "" {
				p.Role, p.Name = "", ""
				p.Text = o.Text
			}
		}
	}
	if a.Action == "click_at" {
		if p.Frame != "" {
			return nil, fmt.Sprintf("agent command %s (click_at) clicked a point in the frame %s, whose viewport page.mouse does not know; not replayed: add the click to the test by hand", a.ID, p.Frame), false
		}
		return &capture.ActionView{Head: capture.Head{TS: a.TS}, Type: "click_at", Selector: a.ID, Value: jsNumbers(p.X, p.Y)}, "", true
	}
	var loc *apitype.Locator
	switch {
	case p.Role != "":
		loc = &apitype.Locator{By: "role", Role: p.Role, Name: p.Name}
	case p.Selector != "":
		loc = &apitype.Locator{By: "css", Selector: p.Selector}
	case p.Ref != "" || (p.Text != "" && (a.Action == "click" || a.Action == "scroll_by")):
		return nil, fmt.Sprintf("agent command %s (%s) targeted a ref or a text; not replayed: target it by selector or role and name", a.ID, a.Action), false
	case a.Action == "scroll_by" && p.Ref == "" && p.Text == "":
		// No target: the page scrolls.
	case a.Action != "key_press":
		return nil, "", false
	}
	v = &capture.ActionView{Head: capture.Head{TS: a.TS}, Locator: loc, Selector: a.ID, Modifiers: p.Modifiers}
	if a.Action == "scroll_by" {
		// The page verb scrolls the element, or the page with none, at
		// once (no wheel event): the test does as it did.
		v.Type = "scroll_by"
		v.Value = fmt.Sprintf("{ left: %s, top: %s, behavior: 'instant' }", jsNumbers(p.DX), jsNumbers(p.DY))
		return v, "", true
	}
	if loc == nil {
		v.Locator = &apitype.Locator{By: "css", Selector: "body"}
	}
	switch a.Action {
	case "click":
		v.Type = "click"
	case "fill", "type":
		v.Type, v.Value = "input", p.Text
		if secret(a, p) { // the generator writes an environment variable for it, never the text
			v.Value, v.Name = "[redacted]", cmp.Or(p.Name, p.Selector)
		}
	case "select":
		v.Type, v.Value, v.Role = "change", strings.Join(p.Values, ","), "combobox"
		if secretSelect(a, p) { // as a fill's: an environment variable, never the option
			v.Value, v.Name = "[redacted]", cmp.Or(p.Name, p.Selector)
		}
	case "check":
		v.Type, v.Value = "change", "checked"
	case "uncheck":
		v.Type, v.Value = "change", "unchecked"
	case "key_press":
		v.Type, v.Key = "keydown", p.Key
	default:
		return nil, "", false
	}
	return v, "", true
}

// mergeAgent inserts the agent's actions into es by time: each before the
// first entry stamped after it.
func mergeAgent(es []capture.View, agent []AgentAction, notes *[]string) ([]capture.View, map[*capture.ActionView]string) {
	if len(agent) == 0 {
		return es, nil
	}
	from := map[*capture.ActionView]string{}
	out := slices.Clone(es)
	for _, a := range agent {
		for _, a := range agentSteps(a, notes) {
			v, note, ok := agentView(a)
			if note != "" {
				*notes = append(*notes, note)
			}
			if !ok {
				continue
			}
			from[v] = a.ID
			i := slices.IndexFunc(out, func(e capture.View) bool { return e.Header().TS > a.TS })
			if i < 0 {
				i = len(out)
			}
			out = slices.Insert(out, i, capture.View(v))
		}
	}
	return out, from
}

// agentSteps splits a into the single actions agentView replays: a
// fill_form into one fill, check, uncheck or select a field, by the kind
// of control its result says the field was; a drag into none, with a
// note, as a fill_form whose result does not say.
func agentSteps(a AgentAction, notes *[]string) []AgentAction {
	switch {
	case a.NotReplayed != "":
		*notes = append(*notes, fmt.Sprintf("agent command %s (%s) not replayed: %s", a.ID, a.Action, a.NotReplayed))
		return nil
	case a.Action != "fill_form":
		return []AgentAction{a}
	}
	var p struct {
		Fields []struct {
			Target json.RawMessage `json:"target"`
			Value  json.RawMessage `json:"value"`
		} `json:"fields"`
	}
	var r struct {
		Fields []json.RawMessage `json:"fields"`
	}
	if json.Unmarshal(a.Params, &p) != nil || json.Unmarshal(a.Result, &r) != nil || len(r.Fields) != len(p.Fields) {
		*notes = append(*notes, fmt.Sprintf("agent command %s (fill_form) not replayed: its result does not say what each field was; fill them in the test by hand", a.ID))
		return nil
	}
	var out []AgentAction
	for i, f := range p.Fields {
		// A field's result is as its single action's would be (a secret
		// field's says secret), so it stands as the step's.
		step := AgentAction{ID: a.ID, TS: a.TS, Result: r.Fields[i]}
		var got struct {
			Checked       *bool           `json:"checked"`
			Selected      json.RawMessage `json:"selected"`
			SelectedCount *int            `json:"selected_count"` // all a secret <select> says of itself
		}
		json.Unmarshal(r.Fields[i], &got)
		var text string
		var params any
		switch {
		case got.Checked != nil && *got.Checked:
			step.Action, params = "check", map[string]any{"target": f.Target}
		case got.Checked != nil:
			step.Action, params = "uncheck", map[string]any{"target": f.Target}
		case len(got.Selected) > 0 || got.SelectedCount != nil || json.Unmarshal(f.Value, &text) != nil:
			var values []string
			if json.Unmarshal(f.Value, &values) != nil {
				json.Unmarshal(f.Value, &text)
				values = []string{text}
			}
			step.Action, params = "select", map[string]any{"target": f.Target, "values": values}
		default:
			step.Action, params = "fill", map[string]any{"target": f.Target, "text": text}
		}
		step.Params, _ = json.Marshal(params)
		out = append(out, step)
	}
	return out
}

// jsNumbers is ns as the arguments of a JavaScript call: "120, 80".
func jsNumbers(ns ...float64) string {
	list := make([]string, len(ns))
	for i, n := range ns {
		list[i] = strconv.FormatFloat(n, 'f', -1, 64)
	}
	return strings.Join(list, ", ")
}
