package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
)

// An action is one action of interact or configure, or one mode of observe,
// declared once by its constructor: its name and policy (correlation id
// prefix, idempotency, waits, user-driven), a one-line summary, its
// arguments (from a typed struct) and what it does. The tool's enum, input
// schema and description, and internal/toolpolicy's table, are generated
// from the declarations.
type action struct {
	toolpolicy.Action
	summary string  // what it does, in a few words; "" when the name says it
	fields  []field // its arguments, in schema order
	// run serves one call of act by client with its raw arguments (a JSON
	// object) and returns its result view.
	run func(t *Tools, ctx context.Context, act *action, client string, raw json.RawMessage) (any, error)
}

// A field is one argument property, read from a struct field by fieldsOf.
// Its tags:
//
//	json:"name"       the property name
//	desc:"…"          what it is; written once per tool, on its first declaration
//	required:"true"   the action needs it
//	min:"0" max:"9"   numeric bounds
//	enum:"a,b"        the values it takes
//	use:"slice"       says which actions use it, instead of their names
//	list:"-"          hides it in the actions' argument lists (the
//	                  preamble says who takes it)
//
// An embedded struct contributes its fields; a list:"label" tag on it shows
// them as label in the action's argument list, list:"-" hides them there.
type field struct {
	name     string
	typ      string // JSON Schema type; "" for any JSON value
	items    string // the JSON Schema type of an array's elements
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

// decode reads raw, a call's arguments, into a fresh A. A wrong type gives
// the agent an invalid_arguments error naming the argument.
func decode[A any](raw json.RawMessage) (A, error) {
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// Arguments are flat: the last element of the path is the
			// argument (the others name embedded Go structs).
			name := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
			return a, mcp.Errorf("invalid_arguments", "check the tool's input schema",
				"argument %q must be of type %s, got %s", name, jsonTypeName(te.Type), te.Value)
		}
		return a, mcp.Errorf("invalid_arguments", "arguments must be a JSON object", "invalid arguments: %v", err)
	}
	return a, nil
}

// jsonTypeName names t as the schema does where it can.
func jsonTypeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.String()
}

// checker is an argument struct that checks itself; its errors are
// agent-facing (mcp.Errorf).
type checker interface{ check() error }

// handler declares a daemon-side action of tool: A is its argument struct
// and run (a method of Tools) serves it with the arguments decoded and,
// when A is a checker, checked; R is its result view.
func handler[A, R any](tool, name, summary string, run func(t *Tools, ctx context.Context, client string, a A) (R, error)) action {
	return action{
		Action:  toolpolicy.Action{Tool: tool, Name: name},
		summary: summary,
		fields:  fieldsOf[A](),
		run: func(t *Tools, ctx context.Context, _ *action, client string, raw json.RawMessage) (any, error) {
			a, err := decodeChecked[A](raw)
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

// decodeChecked decodes A from raw and checks it when it is a checker.
func decodeChecked[A any](raw json.RawMessage) (A, error) {
	a, err := decode[A](raw)
	if err != nil {
		return a, err
	}
	if c, ok := any(a).(checker); ok {
		if err := c.check(); err != nil {
			return a, err
		}
	}
	return a, nil
}
