package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A pageOp is one message the extension's worker sends the DOM runtime of a
// document ({gasoline: "dom", op, ...}, chrome.tabs.sendMessage), declared
// here once: extension/page-ops.js is generated from pageOps, the worker
// builds every such message through pageMessage (extension/actions/page.js),
// which checks it against that table, and the runtime's handle
// (extension/actions/runtime/ops.js) refuses an op or a field the table
// does not declare. TestPageOpsHandled fails while the runtime's ops and
// the table differ.
type pageOp struct {
	Op     string
	doc    string       // what the op does, for page-ops.js
	msg    reflect.Type // its fields besides gasoline and op; nil: none
	answer reflect.Type // the fields of its {ok: true} answer; nil: none
	// verbResult says the answer holds the page verb's own result too
	// (op act: each verb answers its own fields).
	verbResult bool
}

// pageOps are the ops the DOM runtime answers, in the order page-ops.js
// lists them.
var pageOps = []pageOp{
	{Op: "act", doc: "runs the page verb action on target (once it is actionable) with the verb's options", msg: reflect.TypeFor[actMsg](), answer: reflect.TypeFor[actAnswer](), verbResult: true},
	{Op: "changed", doc: "what the last act changed (actions/changed.js), once", msg: reflect.TypeFor[changedMsg](), answer: reflect.TypeFor[changedAnswer]()},
	{Op: "wait", doc: "waits until target is in state, or text shows (or is gone), within timeout_ms", msg: reflect.TypeFor[waitMsg](), answer: reflect.TypeFor[waitAnswer]()},
	{Op: "outline", doc: "the document's (or scope's) outline, with a line and a nonce posted into each iframe's document", msg: reflect.TypeFor[outlineMsg](), answer: reflect.TypeFor[outlineAnswer]()},
	{Op: "summary", doc: "a short account of the page: headings, landmarks, forms, counts, a text excerpt", msg: reflect.TypeFor[prefixMsg](), answer: reflect.TypeFor[summaryAnswer]()},
	{Op: "frame", doc: "posts nonce into the document of the iframe selector names", msg: reflect.TypeFor[frameMsg](), answer: reflect.TypeFor[frameAnswer]()},
	{Op: "probe", doc: "whether this document's parent posted nonce to it", msg: reflect.TypeFor[probeMsg](), answer: reflect.TypeFor[probeAnswer]()},
	{Op: "probed", doc: "the nonce this document's parent last posted to it", answer: reflect.TypeFor[probedAnswer]()},
	{Op: "metrics", doc: "the viewport's and the page's size and scroll position, in CSS pixels", answer: reflect.TypeFor[metricsAnswer]()},
	{Op: "scroll", doc: "scrolls the page to y and waits two frames", msg: reflect.TypeFor[scrollMsg](), answer: reflect.TypeFor[scrollAnswer]()},
	{Op: "ping", doc: "whether the runtime is there (and not frozen)", answer: reflect.TypeFor[pingAnswer]()},
}

// prefixArg is the ref prefix of the frame the message goes to ("e" in
// the top document, "f7e" in frame 7): the refs the answer gives out carry
// it. The runtime takes "e" when it is absent.
type prefixArg struct {
	Prefix string `json:"prefix,omitempty"`
}

// actMsg is op act: Opts are the page verb's options, the params the Go
// declaration of action gives it (CONTRACT[action] without the params
// that say where it runs: extension/actions/verb.js ADDRESS), not
// declared again here.
type actMsg struct {
	Action    string           `json:"action" required:"true"`
	Target    *canonicalTarget `json:"target,omitempty"`
	Opts      map[string]any   `json:"opts,omitempty" params:"action"`
	TimeoutMS float64          `json:"timeout_ms" required:"true" min:"0"`
	prefixArg
	flushArg
}

// flushArg asks the runtime to flush its document's capture once the op
// is done, in the same message (the relay's flush, which the runtime
// reaches in its world: capture/relay/flush.js flushAnswer), instead of
// the worker asking the relay in a round trip of its own (issue 33).
// Polls are the long polls the worker knows of the document's origin
// (capture/polls.js). The answer's Flushed is the relay's flush answer,
// absent without a relay.
type flushArg struct {
	Flush *flushAsk `json:"flush,omitempty"`
}

type flushAsk struct {
	Polls []map[string]any `json:"polls"`
}

type flushedAnswer struct {
	Flushed map[string]any `json:"flushed,omitempty"`
}

type actAnswer struct {
	Target  *briefElement    `json:"target,omitempty"`
	Dialogs []map[string]any `json:"dialogs,omitempty"`
	flushedAnswer
}

type changedMsg struct {
	flushArg
}

// briefElement is how the runtime names an element in its answers.
type briefElement struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	Name string `json:"name"`
}

type changedAnswer struct {
	Changed map[string]any `json:"changed"` // null: nothing changed, or no act since
	flushedAnswer
}

type waitMsg struct {
	Target    *canonicalTarget `json:"target,omitempty"`
	State     string           `json:"state,omitempty" enum:"attached,visible,hidden,detached"`
	Text      string           `json:"text,omitempty"`
	Gone      bool             `json:"gone,omitempty"`
	TimeoutMS float64          `json:"timeout_ms" required:"true" min:"0"`
	prefixArg
}

type waitAnswer struct {
	Target *briefElement `json:"target,omitempty"`
}

// outlineMsg is op outline: Scope is {ref} or {selector}.
type outlineMsg struct {
	Scope           map[string]any `json:"scope,omitempty"`
	InteractiveOnly bool           `json:"interactive_only,omitempty"`
	MaxChars        int            `json:"max_chars" required:"true" min:"1"`
	TimeoutMS       float64        `json:"timeout_ms,omitempty" min:"0"`
	prefixArg
}

type outlineAnswer struct {
	Text        string           `json:"text"`
	Lines       int              `json:"lines"`
	Chars       int              `json:"chars"`
	Interactive int              `json:"interactive"`
	Truncated   bool             `json:"truncated"`
	Clipped     int              `json:"clipped"`
	Frames      []map[string]any `json:"frames"` // [{line, nonce}]
}

type prefixMsg struct {
	prefixArg
}

type summaryAnswer struct {
	Headings  []string         `json:"headings"`
	Landmarks []string         `json:"landmarks"`
	Forms     []map[string]any `json:"forms"`
	Counts    map[string]int   `json:"counts"`
	Text      string           `json:"text"`
	TextChars int              `json:"text_chars"`
}

type frameMsg struct {
	Selector string `json:"selector" required:"true"`
	Nonce    string `json:"nonce" required:"true"`
}

type frameAnswer struct {
	Src string `json:"src"`
}

type probeMsg struct {
	Nonce string `json:"nonce" required:"true"`
}

type probeAnswer struct {
	Match bool `json:"match"`
}

type probedAnswer struct {
	Nonce string `json:"nonce"`
}

type metricsAnswer struct {
	Width        float64 `json:"width"`
	Height       float64 `json:"height"`
	ScrollHeight float64 `json:"scroll_height"`
	ScrollY      float64 `json:"scroll_y"`
}

type scrollMsg struct {
	Y float64 `json:"y" required:"true"`
}

type scrollAnswer struct {
	Y float64 `json:"y"`
}

type pingAnswer struct {
	Counter int `json:"counter"`
}

// opField is one field of a page op's message or answer as page-ops.js
// declares it: a param's spec, and for act's opts the param whose
// action's declared params it holds (params: "action").
type opField struct {
	paramSpec
	Params string `json:"params,omitempty"`
}

// opFields returns the fields of t (nil: none) as page-ops.js declares them.
func opFields(op string, t reflect.Type) (map[string]opField, []string, error) {
	out := map[string]opField{}
	var order []string
	if t == nil {
		return out, order, nil
	}
	for _, f := range structFields(t, "") {
		if _, dup := out[f.name]; dup {
			return nil, nil, fmt.Errorf("page op %s: field %s declared twice", op, f.name)
		}
		s := opField{paramSpec: paramSpec{Items: f.items, Enum: f.enum, Min: f.min, Max: f.max, Required: f.required}}
		if f.typ != "" {
			s.Type = &f.typ
		}
		if sf, ok := fieldByJSON(t, f.name); ok {
			s.Params = sf.Tag.Get("params")
		}
		out[f.name] = s
		order = append(order, f.name)
	}
	return out, order, nil
}

// fieldByJSON finds the field of t (or of a struct it embeds) whose json
// name is name.
func fieldByJSON(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous && len(tag) == 0 {
			if f, ok := fieldByJSON(sf.Type, name); ok {
				return f, true
			}
			continue
		}
		if tag == name {
			return sf, true
		}
	}
	return reflect.StructField{}, false
}

// renderPageOps returns extension/page-ops.js: PAGE_OPS, the fields of
// each op's message, which the worker's pageMessage and the runtime's
// handle check messages against, and PAGE_ANSWERS, the fields of each op's
// answer. It is a file of its own, not a part of contract.js, because the
// runtime is bundled with what it imports and every document an agent
// acts in loads it: the page keeps PAGE_OPS alone (each table is made by a
// call marked pure, which the bundler drops when nothing uses its value).
func renderPageOps() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by %q from the page ops' declaration
// (internal/tools/interact_pageops.go); DO NOT EDIT.

/** frozen freezes o and every object in it, and returns o. */
function frozen(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') frozen(v);
  return Object.freeze(o);
}
`, generator)
	var verbResult []string
	for _, part := range []struct {
		name, doc string
		of        func(pageOp) reflect.Type
	}{
		{"PAGE_OPS", `/**
 * PAGE_OPS maps each op of the worker's messages to a document's DOM
 * runtime ({gasoline: "dom", op, ...fields}) to the fields its message may
 * carry, each {type, items?, enum?, min?, max?, required?, params?} (type
 * null: any JSON value). params "action" says the field holds the page
 * verb's options: the params CONTRACT declares for the message's action
 * (contract.js), less those that say where it runs (actions/page-message.js
 * ADDRESS). actions/page-message.js builds messages against it, and the
 * runtime (actions/runtime/ops.js) refuses what it does not declare.
 */`, func(op pageOp) reflect.Type { return op.msg }},
		{"PAGE_ANSWERS", `/**
 * PAGE_ANSWERS maps each op to the fields of its {ok: true} answer, as
 * PAGE_OPS declares fields; the answers of the ops of VERB_RESULT_OPS
 * carry the page verb's own result too.
 */`, func(op pageOp) reflect.Type { return op.answer }},
	} {
		fmt.Fprintf(&b, "\n%s\nexport const %s = /* @__PURE__ */ frozen({\n", part.doc, part.name)
		for _, op := range pageOps {
			fields, order, err := opFields(op.Op, part.of(op))
			if err != nil {
				return nil, err
			}
			if part.name == "PAGE_OPS" {
				fmt.Fprintf(&b, "  // %s\n", op.doc)
				if op.verbResult {
					verbResult = append(verbResult, op.Op)
				}
			}
			if len(order) == 0 {
				fmt.Fprintf(&b, "  %s: {},\n", op.Op)
				continue
			}
			fmt.Fprintf(&b, "  %s: {\n", op.Op)
			for _, name := range order {
				js, err := json.Marshal(fields[name])
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(&b, "    %s: %s,\n", name, js)
			}
			b.WriteString("  },\n")
		}
		b.WriteString("});\n")
	}
	js, err := json.Marshal(verbResult)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "\n/** VERB_RESULT_OPS are the ops whose answer carries the page verb's result besides PAGE_ANSWERS's fields. */\nexport const VERB_RESULT_OPS = /* @__PURE__ */ frozen(%s);\n", js)
	return b.Bytes(), nil
}
