package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// A tool is one MCP tool: what tools/list says around its actions, and its
// actions, by family, in tools/list order.
type tool struct {
	name, title string
	key         string // the argument that names the action: "action" or "what"
	keyDesc     string // its description; "" for none
	preamble    string // the description's opening lines
	label       string // introduces the list of actions in the description
	annotations protocol.ToolAnnotations
	families    []func() []action
	// tasks: its calls start browser commands, which a 2025-11-25 client
	// may run as tasks (execution.taskSupport "optional").
	tasks bool
}

// actions returns the tool's actions in tools/list order. It panics on a
// duplicate name or an action declared for another tool: a programming
// error the package's tests catch.
func (tl *tool) actions() []action {
	var out []action
	seen := map[string]bool{}
	for _, family := range tl.families {
		for _, a := range family() {
			if a.Tool != tl.name || seen[a.Name] {
				panic(fmt.Sprintf("tools: action %s.%s declared twice or in the wrong tool", a.Tool, a.Name))
			}
			seen[a.Name] = true
			a.key = tl.key
			out = append(out, a)
		}
	}
	return out
}

// maxUsersNamed is how many actions a property's description names as its
// users; a property more actions use is described without names (each
// action's argument list in the tool description says what it takes).
const maxUsersNamed = 3

// def returns the tool's definition for tools/list, generated from acts:
// the enum of the key argument, one property per argument name however
// many actions use it, and a description that lists every action with its
// arguments and summary.
func (tl *tool) def(acts []action) protocol.Tool {
	names := make([]string, len(acts))
	for i, a := range acts {
		names[i] = a.Name
	}
	props := []prop{{name: tl.key, schema: propSchema{Type: "string", Enum: names, Description: tl.keyDesc}}}
	index := map[string]int{}
	for _, a := range acts {
		for _, f := range a.fields {
			i, ok := index[f.name]
			if !ok {
				index[f.name] = len(props)
				props = append(props, prop{name: f.name, field: f})
				i = len(props) - 1
			}
			props[i].merge(a.Name, f)
		}
	}
	var schema bytes.Buffer
	schema.WriteString(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			schema.WriteByte(',')
		}
		if i > 0 {
			p.schema = p.field.schema(p.describe(len(acts)))
		}
		k, _ := json.Marshal(p.name)
		v, _ := json.Marshal(p.schema)
		schema.Write(k)
		schema.WriteByte(':')
		schema.Write(v)
	}
	k, _ := json.Marshal([]string{tl.key})
	fmt.Fprintf(&schema, `},"required":%s}`, k)

	entries := make([]string, len(acts))
	for i, a := range acts {
		entries[i] = a.entry()
	}
	ann := tl.annotations
	ann.Title = tl.title
	def := protocol.Tool{
		Name:        tl.name,
		Title:       tl.title,
		Description: tl.preamble + "\n" + tl.label + ":\n" + strings.Join(entries, ";\n") + ".",
		InputSchema: json.RawMessage(schema.Bytes()),
		Annotations: &ann,
	}
	if tl.tasks {
		def.Execution = &protocol.ToolExecution{TaskSupport: "optional"}
	}
	return def
}

// entry is the action as the tool description lists it:
// name {arg, optional?}: summary.
func (a *action) entry() string {
	s := a.Name
	if sig := a.signature(); sig != "" {
		s += " " + sig
	}
	if a.summary != "" {
		s += ": " + a.summary
	}
	return s
}

// signature is the action's argument list as its entry shows it,
// "{arg, optional?}", or "" when it takes none.
func (a *action) signature() string {
	var args []string
	for _, f := range a.fields {
		arg := f.name
		switch {
		case f.list == "-":
			continue
		case f.list != "":
			arg = f.list
		case !f.required:
			arg += "?"
		}
		if !slices.Contains(args, arg) {
			args = append(args, arg)
		}
	}
	if len(args) == 0 {
		return ""
	}
	return "{" + strings.Join(args, ", ") + "}"
}

// prop is one property of a tool's input schema, with the actions using it.
type prop struct {
	name   string
	field  field      // its first declaration, with the description found
	schema propSchema // the key property's schema
	users  []string   // actions using it, "(required)" marked
}

// merge records that action declares f. Every declaration of a property
// must agree on its type and bounds, and its description is written once.
func (p *prop) merge(action string, f field) {
	if f.typ != p.field.typ || !slices.Equal(f.enum, p.field.enum) || !sameBound(f.min, p.field.min) || !sameBound(f.max, p.field.max) {
		panic(fmt.Sprintf("tools: %s declares argument %q unlike an earlier action", action, f.name))
	}
	switch {
	case p.field.desc == "":
		p.field.desc, p.field.use = f.desc, f.use
	case f.desc != "" && f.desc != p.field.desc:
		panic(fmt.Sprintf("tools: %s describes argument %q again, differently; describe it once (in a shared struct)", action, f.name))
	}
	u := action
	if f.required {
		u += " (required)"
	}
	p.users = append(p.users, u)
}

func sameBound(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// describe is the property's description: who uses it, when that is few
// of the tool's n actions, and what it is. A property declared without a
// description gets none.
func (p *prop) describe(n int) string {
	switch {
	case p.field.desc == "":
		return ""
	case p.field.use != "":
		return p.field.use + ": " + p.field.desc
	case len(p.users) <= maxUsersNamed && len(p.users) < n:
		return strings.Join(p.users, ", ") + ": " + p.field.desc
	}
	return p.field.desc
}

// propSchema is the JSON Schema of one property, its keys in the order
// agents read them.
type propSchema struct {
	Type        string        `json:"type,omitempty"`
	AnyOf       []*propSchema `json:"anyOf,omitempty"` // for an argument of several types, one each
	Items       *propSchema   `json:"items,omitempty"`
	Enum        []string      `json:"enum,omitempty"`
	Minimum     *float64      `json:"minimum,omitempty"`
	Maximum     *float64      `json:"maximum,omitempty"`
	Description string        `json:"description,omitempty"`
}

func (f field) schema(desc string) propSchema {
	s := propSchema{Type: f.typ, Enum: f.enum, Minimum: f.min, Maximum: f.max, Description: desc}
	switch {
	case f.typ == "":
		// Several types, each a schema of one type (some clients refuse a
		// list of types, or a property without one); an array of any
		// values says so with items, for the clients that want items on
		// every array.
		for _, t := range f.types {
			one := &propSchema{Type: t}
			if t == "array" {
				one.Items = &propSchema{}
			}
			s.AnyOf = append(s.AnyOf, one)
		}
	case f.items != "":
		s.Items = &propSchema{Type: f.items}
	}
	return s
}

// bare returns fields without descriptions: an alias's properties, which
// its summary explains.
func bare(fields []field) []field {
	out := slices.Clone(fields)
	for i := range out {
		out[i].desc, out[i].use = "", ""
	}
	return out
}

// served is a registered tool: its actions by name, for dispatch.
type served struct {
	tool   *tool
	names  []string
	byName map[string]*action
}

// keyArgs read the argument that names the action of a call, when
// actionOf must decode it as a struct field is decoded.
type (
	actionKey struct {
		Action string `json:"action"`
	}
	whatKey struct {
		What string `json:"what"`
	}
)

// long is mcp.Tool.Long for the tool: whether its action says the call
// runs long.
func (s *served) long(raw json.RawMessage) bool {
	var k struct {
		What   string `json:"what"`
		Action string `json:"action"`
	}
	json.Unmarshal(raw, &k)
	name := k.Action
	if s.tool.key == "what" {
		name = k.What
	}
	a, ok := s.byName[name]
	return ok && a.long != nil && a.long(raw)
}

// handle dispatches one call of the tool to its action. The arguments
// are decoded into their members once, here; the action reads them from
// there (arguments).
func (s *served) handle(t *Tools) mcp.Handler {
	return func(ctx context.Context, client string, raw json.RawMessage) (any, error) {
		in, err := argumentsOf(raw)
		if err != nil {
			return nil, err
		}
		name, err := s.actionOf(in)
		if err != nil {
			return nil, err
		}
		a, ok := s.byName[name]
		if !ok {
			return nil, unknownChoice(s.tool.key, name, s.names)
		}
		return a.run(t, ctx, a, client, in)
	}
}

// actionOf returns the value of the tool's key argument in the call's
// arguments in: the action's name, "" when absent or null. It reads it as
// decoding a struct with that one field would: a member whose name
// differs from the key only in case counts too (the last one wins), which
// the action's decodeArgs then refuses by its name.
func (s *served) actionOf(in *arguments) (string, error) {
	key := s.tool.key
	for k := range in.obj {
		if k != key && strings.EqualFold(k, key) {
			if key == "what" {
				kw, err := decode[whatKey](in.raw)
				return kw.What, err
			}
			ka, err := decode[actionKey](in.raw)
			return ka.Action, err
		}
	}
	var name string
	err := in.member(key, &name)
	return name, err
}
