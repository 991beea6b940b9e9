package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// An action is one action of interact or configure, or one mode of observe,
// declared once by its constructor: its name and policy (correlation id
// prefix, idempotency, waits, user-driven), a one-line summary, its
// arguments (from a typed struct), what the extension gets, how its result
// is presented, and what it does. The tool's enum, input schema and
// description, internal/toolpolicy's table, the argument checks of
// decodeArgs and the extension's contract (extension/contract.js) are
// generated from the declarations.
type action struct {
	toolpolicy.Action
	summary string  // what it does, in a few words; "" when the name says it
	fields  []field // its arguments as tools/list shows them, in schema order
	// args are every argument it accepts, with their tags' rules: what
	// decodeArgs enforces. fields is args unless the constructor trims
	// the schema (an alias, a mode described elsewhere).
	args []field
	key  string // the tool's key argument ("action" or "what"), set by tool.actions
	// sent is the struct the extension gets as the command's params
	// (browser actions); extension/contract.js is generated from it.
	sent reflect.Type
	// present shapes the inline result of its complete commands (those
	// named command, or the action's name); nil leaves the extension's
	// report as it is.
	present func(t *Tools, c tracker.Command, v *commandView)
	// page is how the extension runs a DOM action (interact_dom.go): its
	// one generic path, or a worker handler of the action's own; nil for
	// actions that are not DOM actions.
	page *pageVerb
	// replay is what analyze test does with the agent's calls of a DOM
	// action: "" replays them (internal/testgen knows how), replayNothing
	// leaves them out (they change nothing a test replays), any other text
	// is the note saying why one is not replayed.
	replay  string
	command string
	// parse decodes and checks a call's arguments (decodeArgs of its
	// argument struct); run starts with it.
	parse func(act *action, in *arguments) (any, error)
	// run serves one call of act by client with its arguments and returns
	// its result view.
	run func(t *Tools, ctx context.Context, act *action, client string, in *arguments) (any, error)
	// long tells the calls (by their raw arguments) that run for many
	// seconds without a browser command (analyze test's verify): a client
	// that can follow a task gets them as tasks (mcp.Tool.Long). nil: none.
	long func(raw json.RawMessage) bool
}

// A field is one argument property, read from a struct field by fieldsOf.
// Its tags:
//
//	json:"name"       the property name
//	desc:"…"          what it is; written once per tool, on its first declaration
//	required:"true"   the action needs it (not null; a string or array
//	                  not empty)
//	min:"0" max:"9"   numeric bounds
//	enum:"a,b"        the values it takes
//	use:"slice"       says which actions use it, instead of their names
//	list:"-"          hides it in the actions' argument lists (the
//	                  preamble says who takes it)
//
// An embedded struct contributes its fields; a list:"label" tag on it shows
// them as label in the action's argument list, list:"-" hides them there.
// decodeArgs enforces required, min, max and enum on every call, and
// extension/contract.js carries them to the extension: a rule these tags
// can say needs no check() of its own.
type field struct {
	name     string
	typ      string   // JSON Schema type; "" for a json.RawMessage, which types names
	types    []string // a json.RawMessage's JSON Schema types, from its types tag
	items    string   // the JSON Schema type of an array's elements
	enum     []string
	min, max *float64
	desc     string
	use      string
	required bool
	list     string // how the argument list shows it; "" shows the name
}

// fieldsOf returns the argument properties of the struct type A.
func fieldsOf[A any]() []field {
	return structFields(reflect.TypeFor[A](), "")
}

func structFields(t reflect.Type, list string) []field {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tools: argument type %v is not a struct", t))
	}
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous && name == "" {
			inner := list
			if l, ok := sf.Tag.Lookup("list"); ok {
				inner = l
			}
			out = append(out, structFields(sf.Type, inner)...)
			continue
		}
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			panic(fmt.Sprintf("tools: argument field %s.%s has no json name", t, sf.Name))
		}
		f := field{name: name, typ: jsonType(sf.Type), desc: sf.Tag.Get("desc"), use: sf.Tag.Get("use"),
			required: sf.Tag.Get("required") == "true", list: list}
		if f.typ == "array" {
			f.items = jsonType(sf.Type.Elem())
		}
		if f.typ == "" {
			// Each type on its own in anyOf: clients with single-type
			// schema dialects refuse a list of types.
			types := sf.Tag.Get("types")
			if types == "" {
				panic(fmt.Sprintf("tools: argument %s.%s takes any JSON: say which types with a types tag", t, sf.Name))
			}
			f.types = strings.Split(types, ",")
		}
		if sf.Tag.Get("list") == "-" {
			f.list = "-"
		}
		if e := sf.Tag.Get("enum"); e != "" {
			f.enum = strings.Split(e, ",")
		}
		f.min, f.max = number(sf.Tag.Get("min")), number(sf.Tag.Get("max"))
		out = append(out, f)
	}
	return out
}

func number(s string) *float64 {
	if s == "" {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("tools: bad numeric tag " + strconv.Quote(s))
	}
	return &v
}

func jsonType(t reflect.Type) string {
	if t == reflect.TypeFor[json.RawMessage]() {
		return "" // any JSON value
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	panic(fmt.Sprintf("tools: argument type %v has no JSON Schema type", t))
}

// decode reads raw, a call's arguments, into a fresh A, without checking
// them (decodeArgs checks its A after). A wrong type gives the agent an
// invalid_arguments error naming the argument.
func decode[A any](raw json.RawMessage) (A, error) {
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, argumentError(err, "")
	}
	return a, nil
}

// argumentError is the agent's error for err, from decoding the argument
// name, or the arguments' object when name is "": a wrong type names the
// argument.
func argumentError(err error, name string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && (te.Field != "" || name != "") {
		if te.Field != "" {
			// Arguments are flat: the last element of the path is the
			// argument (the others name embedded Go structs), or a
			// member of an argument that is an object.
			name = te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		}
		return mcp.Errorf("invalid_arguments", "check the tool's input schema",
			"argument %q must be of type %s, got %s", name, jsonTypeName(te.Type), te.Value)
	}
	return mcp.Errorf("invalid_arguments", "arguments must be a JSON object", "invalid arguments: %v", err)
}

// arguments are one call's arguments, decoded once by the tool's dispatch
// (served.handle): the JSON object as sent, which an action's argument
// struct is decoded from, and its members by name, which the tool's key,
// the check for unknown arguments, the tags' rules and the arguments every
// browser action takes are read from without decoding the object again
// (issue 33).
type arguments struct {
	raw json.RawMessage
	obj map[string]json.RawMessage // nil for null, which has no members
}

// argumentsOf splits raw, a call's arguments, into its members: anything
// but an object (or null) is an invalid_arguments error. raw is valid JSON
// as the transport hands it over (it decoded the request raw came in), so
// the members are found by a scan of the object's top level (members), not
// decoded again; decodeArgs decodes the whole object into the argument
// struct before it reads a member's value.
func argumentsOf(raw json.RawMessage) (*arguments, error) {
	if ms, ok := members(raw); ok {
		in := &arguments{raw: raw, obj: make(map[string]json.RawMessage, len(ms))}
		for _, m := range ms {
			name, plain := plainString(m.key)
			if !plain && json.Unmarshal(m.key, &name) != nil {
				return decodeArguments(raw)
			}
			in.obj[name] = m.val
		}
		return in, nil
	}
	return decodeArguments(raw)
}

// decodeArguments is argumentsOf by encoding/json, for what is not an
// object it can split: null, or the error.
func decodeArguments(raw json.RawMessage) (*arguments, error) {
	in := &arguments{raw: raw}
	if err := json.Unmarshal(raw, &in.obj); err != nil {
		return nil, mcp.Errorf("invalid_arguments", "arguments must be a JSON object", "invalid arguments: %v", err)
	}
	return in, nil
}

// member decodes the argument name into v, which it leaves as it is when
// the call has no such argument. A wrong type names the argument, as
// decode does.
func (in *arguments) member(name string, v any) error {
	raw, ok := in.obj[name]
	if !ok {
		return nil
	}
	if p, isString := v.(*string); isString {
		if s, plain := plainString(raw); plain {
			*p = s
			return nil
		}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return argumentError(err, name)
	}
	return nil
}

// plainString returns the string raw encodes when it is a JSON string of
// printable ASCII without escapes, which decodes to its bytes as they are
// (an action's name, an id); false for any other value.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(raw[1 : len(raw)-1]), true
}

// jsonTypeName names t as the schema does where it can.
func jsonTypeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.String()
}

// normalizer is an argument struct that puts itself, once checked, in the
// one form the extension gets: defaults applied, one canonical target
// (targetArgs). The extension only decodes it.
type normalizer interface{ normalize() }

// checker is an argument struct that checks the rules its tags cannot say
// (one argument or another, a form, a length); its errors are agent-facing
// (mcp.Errorf).
type checker interface{ check() error }

// decodeArgs is the one decoder of an action's arguments, in. It refuses
// an argument act does not declare, naming the ones it takes; decodes A
// from the object, the one pass over it besides argumentsOf's (a wrong
// type names the argument); enforces the tags of act.args (required,
// enum, min, max), the same tags the schema shows, on in's members; and
// last runs A's check when A is a checker, then its normalize when *A is a
// normalizer.
func decodeArgs[A any](act *action, in *arguments) (A, error) {
	var zero A
	for name := range in.obj {
		if name != act.key && !slices.ContainsFunc(act.args, func(f field) bool { return f.name == name }) {
			return zero, mcp.Errorf("invalid_arguments", "remove it, or use one the action takes",
				"unknown argument %q for %s; allowed: %s", name, act.Name, strings.Join(act.allowed(), ", "))
		}
	}
	a, err := decode[A](in.raw)
	if err != nil {
		return a, err
	}
	for _, f := range act.args {
		if err := f.enforce(act, in.obj[f.name]); err != nil {
			return a, err
		}
	}
	if c, ok := any(a).(checker); ok {
		if err := c.check(); err != nil {
			return a, err
		}
	}
	if n, ok := any(&a).(normalizer); ok {
		n.normalize()
	}
	return a, nil
}

// parseAs is decodeArgs for action.parse.
func parseAs[A any](act *action, in *arguments) (any, error) { return decodeArgs[A](act, in) }

// allowed lists the arguments act takes, the tool's key first.
func (act *action) allowed() []string {
	names := []string{act.key}
	for _, f := range act.args {
		if !slices.Contains(names, f.name) {
			names = append(names, f.name)
		}
	}
	return names
}

// enforce checks raw, the value of f in a call of act (nil when absent),
// against f's tags. The type was checked by decoding; null is absence,
// except for an argument that takes any JSON value.
func (f field) enforce(act *action, raw json.RawMessage) error {
	absent := raw == nil || (f.typ != "" && string(raw) == "null")
	if !absent && f.required {
		switch f.typ {
		case "string":
			absent = string(raw) == `""`
		case "array":
			var v []json.RawMessage
			absent = json.Unmarshal(raw, &v) == nil && len(v) == 0
		}
	}
	if absent {
		if f.required {
			hint := act.Name + " takes " + act.signature()
			if f.desc != "" {
				hint = f.name + ": " + f.desc + "; " + hint
			}
			return mcp.Errorf("invalid_arguments", hint, "%q is required for %s", f.name, act.Name)
		}
		return nil
	}
	if len(f.enum) > 0 {
		var v string
		if json.Unmarshal(raw, &v) == nil && !slices.Contains(f.enum, v) {
			return unknownChoice(f.name, v, f.enum)
		}
	}
	if f.min != nil || f.max != nil {
		var v float64
		if json.Unmarshal(raw, &v) == nil && ((f.min != nil && v < *f.min) || (f.max != nil && v > *f.max)) {
			return mcp.Errorf("invalid_arguments", fmt.Sprintf("use %s to %s", bound(f.min, "any"), bound(f.max, "any")),
				"%s %s is out of range", f.name, raw)
		}
	}
	return nil
}

func bound(b *float64, none string) string {
	if b == nil {
		return none
	}
	return strconv.FormatFloat(*b, 'f', -1, 64)
}

// handler declares a daemon-side action of tool: A is its argument struct
// and run (a method of Tools) serves it with the arguments decoded and
// checked (decodeArgs); R is its result view.
func handler[A, R any](tool, name, summary string, run func(t *Tools, ctx context.Context, client string, a A) (R, error)) action {
	return action{
		Action:  toolpolicy.Action{Tool: tool, Name: name},
		summary: summary,
		fields:  fieldsOf[A](),
		args:    fieldsOf[A](),
		parse:   parseAs[A],
		run: func(t *Tools, ctx context.Context, act *action, client string, in *arguments) (any, error) {
			a, err := decodeArgs[A](act, in)
			if err != nil {
				return nil, err
			}
			r, err := run(t, ctx, client, a)
			if err != nil {
				return nil, err
			}
			return r, nil
		},
	}
}
