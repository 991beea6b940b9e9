package tools

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// domActions act on one element of the page the way a user would, or read
// it: the extension's DOM runtime (extension/actions/) finds the element by
// target, waits until it can act, and reports what happened. The built-in
// ones come first, then those declared in a file of their own
// (pageActions), in file order.
func domActions() []action {
	acts := []action{
		dom[clickArgs]("click", "", false),
		dom[targetOnly]("hover", "", false).notReplayed("add the hover to the test by hand"),
		dom[fillArgs]("fill", "", false),
		dom[fillArgs]("type", "", false),
		dom[selectArgs]("select", "", false),
		dom[targetOnly]("check", "", false),
		dom[targetOnly]("uncheck", "", false),
		dom[keyArgs]("key_press", "", false),
		dom[targetOnly]("scroll_to", "", true).notReplayed(replayNothing),
		// wait_for keeps a worker handler of its own (extension/actions/dom.js
		// waitFor): its url and network_idle conditions are the worker's
		// (chrome.tabs, chrome.webRequest), not a page's, and it waits on
		// across navigations in the next document, where the generic path
		// takes a document going away as the action's own navigation.
		dom[waitForArgs]("wait_for", "", true).ownHandler().notReplayed(replayNothing),
		dom[getTextArgs]("get_text", "", true).notReplayed(replayNothing),
		dom[queryArgs]("query", "", true).notReplayed(replayNothing),
	}
	for _, declare := range pageActions {
		a := declare()
		a.page.File = pageVerbDir + a.page.Verb + ".js"
		acts = append(acts, a)
	}
	return acts
}

// pageActions are the DOM actions declared each in a file of their own
// (interact_click_at.go, interact_scroll_by.go): the file adds its
// constructor with addPageAction, so that a new action is one Go file and
// one page verb (extension/actions/verbs/). Written only by package
// initialisation.
var pageActions []func() action

// addPageAction adds declare to pageActions; it returns true, for use as
// a package-level var initialiser.
func addPageAction(declare func() action) bool {
	pageActions = append(pageActions, declare)
	return true
}

// dom declares a DOM action: a browser action with the "act" prefix whose
// result carries the effects the capture buffers saw (effects.go). Reads
// are idempotent; acting twice is not. The extension runs it through its
// generic path (extension/actions/verb.js), which sends the page the verb
// of the same name (runtime.js, or extension/actions/verbs/<name>.js).
func dom[A any](name, summary string, idempotent bool) action {
	a := browser[A](name, "act", summary)
	a.Idempotent = idempotent
	a.present = (*Tools).presentEffects
	a.page = &pageVerb{Verb: name, Target: targetMode(reflect.TypeFor[A]())}
	return a
}

// ownHandler says the extension runs the DOM action a with a worker
// handler of its own (commands.js ACTIONS), not the generic path.
func (a action) ownHandler() action {
	p := *a.page
	p.own = true
	a.page = &p
	return a
}

// notReplayed says what analyze test does instead of replaying a: why
// (said in the test's notes), or replayNothing.
func (a action) notReplayed(why string) action {
	a.replay = why
	return a
}

// replayNothing marks an action analyze test has nothing to replay for
// (it reads, or it scrolls, which a test's actions do themselves).
const replayNothing = "-"

// A pageVerb is how the extension's generic path runs a DOM action, as
// extension/contract.js's DOM_ACTIONS gives it: the runtime's verb, whether
// the action names an element (target: "required", "optional" or "none"),
// and the verb's own file.
type pageVerb struct {
	Verb   string `json:"verb"`
	Target string `json:"target"`
	File   string `json:"file,omitempty"` // the verb's file, under pageVerbDir; "": runtime.js has it
	own    bool   // the extension has a worker handler of its own for it (ownHandler)
}

// pageVerbDir holds the page verbs declared a file each, relative to the
// extension's folder: the worker injects them after the runtime.
const pageVerbDir = "actions/verbs/"

// The values of pageVerb.Target.
const (
	targetRequired = "required"
	targetOptional = "optional"
	targetNone     = "none"
)

// targetMode is whether the argument struct t names an element: by its
// embedded targetArgs, whose list tag shows the target as the action
// takes it ("target?": optional).
func targetMode(t reflect.Type) string {
	sf, ok := targetField(t)
	switch {
	case !ok:
		return targetNone
	case strings.HasPrefix(sf.Tag.Get("list"), "target?"):
		return targetOptional
	}
	return targetRequired
}

// textIsValue says whether text is what the action enters (list tag
// "target, text"), not a target.
func textIsValue(t reflect.Type) bool {
	sf, ok := targetField(t)
	return ok && strings.Contains(sf.Tag.Get("list"), ", text")
}

// targetField is the targetArgs embedded in the struct t.
func targetField(t reflect.Type) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if sf := t.Field(i); sf.Anonymous && sf.Type == reflect.TypeFor[targetArgs]() {
			return sf, true
		}
	}
	return reflect.StructField{}, false
}

// targetArgs name the element an action works on: target (a ref, a CSS
// selector, or {role, name?, exact?} / {text, exact?}), or one of the older
// flat forms ref, selector, text, or role with name; frame picks an iframe
// of the top document. The extension reads target (extension/actions/target.js).
type targetArgs struct {
	Target   json.RawMessage `json:"target,omitempty" types:"string,object" desc:"ref \"e5\", CSS selector, {role, name} or {text}"`
	Ref      string          `json:"ref,omitempty"`
	Selector string          `json:"selector,omitempty"`
	Text     string          `json:"text,omitempty" desc:"visible text; fill, type, dialog: text to enter"`
	Role     string          `json:"role,omitempty"`
	Name     string          `json:"name,omitempty"`
	Frame    string          `json:"frame,omitempty"`
	tabArg
}

// refPattern is a ref as the outline gives it out: e12, or f7e12 in frame 7.
var refPattern = regexp.MustCompile(`^(?:f\d+)?e\d+$`)

// targetObject is the object form of target.
type targetObject struct {
	Role  *string `json:"role"`
	Name  *string `json:"name"`
	Text  *string `json:"text"`
	Exact bool    `json:"exact"`
}

// targetHint says what target takes, for its errors.
const targetHint = `target is a ref ("e5" from analyze({what:"dom"}) or query), a CSS selector ("#save"), {role:"button", name:"Save"} or {text:"Save"}`

// checkTargetValue checks the target argument's form: a non-empty string
// (a ref when it looks like one, else a selector), or an object with role
// (and name) or text, never both and nothing else.
func checkTargetValue(action string, raw json.RawMessage) error {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return mcp.Errorf("invalid_arguments", targetHint, "%s: target is empty", action)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var o targetObject
	if err := dec.Decode(&o); err != nil {
		return mcp.Errorf("invalid_arguments", targetHint, "%s: target %s is not a string or {role, name} / {text} object (%v)", action, raw, err)
	}
	has := func(p *string) bool { return p != nil && *p != "" }
	switch {
	case has(o.Role) && has(o.Text):
		return mcp.Errorf("invalid_arguments", targetHint, "%s: target has both role and text; pass one", action)
	case !has(o.Role) && !has(o.Text):
		return mcp.Errorf("invalid_arguments", targetHint, "%s: target object needs role (with name) or text", action)
	case has(o.Name) && !has(o.Role):
		return mcp.Errorf("invalid_arguments", targetHint, "%s: target's name goes with role", action)
	}
	return nil
}

// canonicalTarget is the one form of a target the extension gets, as
// params.target (extension/actions/target.js decodes it): exactly one of
// ref, selector, role (lower case, with name when given) or text, and
// exact when true.
type canonicalTarget struct {
	Ref      string `json:"ref,omitempty"`
	Selector string `json:"selector,omitempty"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Text     string `json:"text,omitempty"`
	Exact    bool   `json:"exact,omitempty"`
}

// normalize puts a checked target in its canonical form (canonical).
func (a *targetArgs) normalize() { a.canonical(false) }

// canonical replaces the target a names, in whichever form the call gave
// it (target as a string or object, or the flat ref, selector, role with
// name, text), by its canonicalTarget in Target, and clears the flat
// forms; with textIsValue, Text is the text to enter and stays. a must
// have passed checkTarget.
func (a *targetArgs) canonical(textIsValue bool) {
	var c canonicalTarget
	switch {
	case len(a.Target) > 0 && string(a.Target) != "null":
		c = canonicalOf(a.Target)
	case a.Ref != "":
		c.Ref = a.Ref
	case a.Selector != "":
		c.Selector = a.Selector
	case a.Role != "":
		c.Role, c.Name = strings.ToLower(a.Role), a.Name
	case a.Text != "" && !textIsValue:
		c.Text = a.Text
	}
	a.Target = nil
	if c != (canonicalTarget{}) {
		a.Target, _ = json.Marshal(c) // a struct of strings and a bool: no error
	}
	a.Ref, a.Selector, a.Role, a.Name = "", "", "", ""
	if !textIsValue {
		a.Text = ""
	}
}

// canonicalOf is the canonical form of raw, a target value that passed
// checkTargetValue: a string (a ref when it looks like one, else a
// selector) or {role, name?, exact?} / {text, exact?}.
func canonicalOf(raw json.RawMessage) canonicalTarget {
	var c canonicalTarget
	var s string
	var o targetObject
	switch {
	case json.Unmarshal(raw, &s) == nil:
		if s = strings.TrimSpace(s); refPattern.MatchString(s) {
			c.Ref = s
		} else {
			c.Selector = s
		}
	case json.Unmarshal(raw, &o) == nil:
		if o.Role != nil && *o.Role != "" {
			c.Role = strings.ToLower(*o.Role)
			if o.Name != nil {
				c.Name = *o.Name
			}
		} else if o.Text != nil {
			c.Text = *o.Text
		}
		c.Exact = o.Exact
	}
	return c
}

// canonicalJSON is canonicalOf(raw) as JSON.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(canonicalOf(raw)) // a struct of strings and a bool: no error
	return b
}

// kinds lists the kinds of target a names.
func (a targetArgs) kinds(textIsValue bool) []string {
	var k []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"target", len(a.Target) > 0 && string(a.Target) != "null"}, {"ref", a.Ref != ""}, {"selector", a.Selector != ""}, {"role", a.Role != ""}, {"text", a.Text != "" && !textIsValue}} {
		if f.set {
			k = append(k, f.name)
		}
	}
	return k
}

// checkTarget checks that a names exactly one target (at most one when
// optional); with textIsValue, text is the value to enter, not a target.
func (a targetArgs) checkTarget(action string, optional, textIsValue bool) error {
	k := a.kinds(textIsValue)
	switch {
	case a.Name != "" && a.Role == "":
		return mcp.Errorf("invalid_arguments", `e.g. {role:"button", name:"Sign in"}, or target:{role:"button", name:"Sign in"}`, "%s: name goes with role", action)
	case len(k) > 1:
		return mcp.Errorf("invalid_arguments", "pass one: "+targetHint,
			"%s got more than one target: %v", action, k)
	case len(k) == 0 && !optional:
		return mcp.Errorf("invalid_arguments", "pass the element: "+targetHint, "%s needs a target", action)
	case len(k) == 1 && k[0] == "target":
		return checkTargetValue(action, a.Target)
	case len(k) == 1 && k[0] == "ref" && !refPattern.MatchString(a.Ref):
		return mcp.Errorf("invalid_arguments", `refs look like "e12" (from analyze({what:"dom"}) or query); a CSS selector goes in target or selector`, "%s: %q is not a ref", action, a.Ref)
	}
	return nil
}

// targetOnly are the arguments of an action that takes only a target.
type targetOnly struct {
	targetArgs `list:"target"`
	settleArgs `list:"-"`
}

// settleArgs bound how long an action follows what it started (a
// navigation, requests, short timers) before it reports (docs/agent-guide.md,
// "Acting on the page").
type settleArgs struct {
	SettleMS *int64 `json:"settle_ms,omitempty" min:"0" max:"30000" desc:"follow what the action started up to this (default 2000; 0: report at once)"`
}

func (a targetOnly) check() error { return a.checkTarget("this action", false, false) }

type clickArgs struct {
	targetArgs `list:"target"`
	Button     string   `json:"button,omitempty" enum:"left,middle,right"`
	ClickCount int      `json:"click_count,omitempty" min:"1" max:"3"`
	Modifiers  []string `json:"modifiers,omitempty"`
	dialogArgs `list:"dialog?"`
	settleArgs `list:"-"`
}

// dialogArgs say how the alert, confirm or prompt an action opens is
// answered (it never shows: it would block the page).
type dialogArgs struct {
	Dialog string `json:"dialog,omitempty" enum:"accept,dismiss"`
}

func (a clickArgs) check() error {
	if err := a.checkTarget("click", false, false); err != nil {
		return err
	}
	return checkModifiers(a.Modifiers)
}

func checkModifiers(m []string) error {
	for _, k := range m {
		if !slices.Contains([]string{"Control", "Shift", "Alt", "Meta"}, k) {
			return mcp.Errorf("invalid_arguments", "modifiers are Control, Shift, Alt and Meta", "unknown modifier %q", k)
		}
	}
	return nil
}

type fillArgs struct {
	targetArgs `list:"target, text"`
	settleArgs `list:"-"`
	textSet    bool // the call passed text, perhaps "" (fill's way to clear a field)
}

// UnmarshalJSON decodes fill's and type's arguments and notes whether
// text was passed, since text "" (clear the field) is a value here.
func (a *fillArgs) UnmarshalJSON(b []byte) error {
	type plain fillArgs
	if err := json.Unmarshal(b, (*plain)(a)); err != nil {
		return err
	}
	var has struct {
		Text *string `json:"text"`
	}
	json.Unmarshal(b, &has) // a wrong type was refused above
	a.textSet = has.Text != nil
	return nil
}

// MarshalJSON is the extension's params: text "" is sent, not dropped as
// the target's empty text would be, so fill with text "" clears the field.
func (a fillArgs) MarshalJSON() ([]byte, error) {
	type plain fillArgs
	b, err := json.Marshal(plain(a))
	if err != nil || !a.textSet || a.Text != "" {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["text"] = json.RawMessage(`""`)
	return json.Marshal(m)
}

func (a fillArgs) check() error {
	if !a.textSet {
		return mcp.Errorf("invalid_arguments", `pass text, the text to enter ("" clears the field with fill)`, "fill and type need text")
	}
	return checkEntry(a.targetArgs)
}

// normalize gives the target canonically; text stays, the text to enter.
func (a *fillArgs) normalize() { a.canonical(true) }

// checkEntry checks fill's and type's target (text is what they enter).
func checkEntry(a targetArgs) error {
	return a.checkTarget("fill and type", false, true)
}

type selectArgs struct {
	targetArgs `list:"target"`
	Values     []string `json:"values" required:"true"`
	settleArgs `list:"-"`
}

func (a selectArgs) check() error {
	return a.checkTarget("select", false, false)
}

type keyArgs struct {
	Key        string   `json:"key" required:"true"`
	Modifiers  []string `json:"modifiers,omitempty"`
	targetArgs `list:"target?"`
	dialogArgs `list:"dialog?"`
	settleArgs `list:"-"`
}

func (a keyArgs) check() error {
	if err := a.checkTarget("key_press", true, false); err != nil {
		return err
	}
	return checkModifiers(a.Modifiers)
}

type waitForArgs struct {
	targetArgs `list:"target|url|network_idle"`
	Gone       bool `json:"gone,omitempty"`
	waitElse   `list:"-"`
}

// waitElse are wait_for's conditions other than a target.
type waitElse struct {
	URL         string `json:"url,omitempty"`
	NetworkIdle bool   `json:"network_idle,omitempty"`
}

func (a waitForArgs) check() error {
	n := len(a.kinds(false))
	if a.URL != "" {
		n++
	}
	if a.NetworkIdle {
		n++
	}
	if n != 1 {
		return mcp.Errorf("invalid_arguments", `one of: a target (ref, selector, role with name), text (gone:true to wait until it disappears), url (substring or glob with *), network_idle:true`,
			"wait_for waits for exactly one thing")
	}
	return a.checkTarget("wait_for", true, false)
}

type getTextArgs struct {
	targetArgs `list:"target?"`
	MaxChars   int `json:"max_chars,omitempty" min:"1" max:"40000" desc:"default 8000"`
}

// defaultMaxChars is get_text's max_chars when the call gives none.
const defaultMaxChars = 8000

func (a *getTextArgs) normalize() {
	a.canonical(false)
	if a.MaxChars == 0 {
		a.MaxChars = defaultMaxChars
	}
}

func (a getTextArgs) check() error { return a.checkTarget("get_text", true, false) }

type queryArgs struct {
	targetArgs `list:"target"`
	Limit      int `json:"limit,omitempty" min:"1" max:"100"`
}

// defaultQueryLimit is query's limit when the call gives none.
const defaultQueryLimit = 10

func (a *queryArgs) normalize() {
	a.canonical(false)
	if a.Limit == 0 {
		a.Limit = defaultQueryLimit
	}
}

func (a queryArgs) check() error { return a.checkTarget("query", false, false) }
