package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// object is a JSON object that keeps its keys in their original order, so
// that rewriting a user's config file moves nothing but what changed. Values
// are kept as they were written.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// parseObject decodes data, which must be one JSON object. Empty or blank
// data is an empty object (a config file the client created empty).
func parseObject(data []byte) (*object, error) {
	o := newObject()
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, notPlainJSON(err)
	}
	if tok != json.Delim('{') {
		return nil, errors.New("the file is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notPlainJSON(err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, notPlainJSON(err)
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, notPlainJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the file holds more than one JSON value")
	}
	return o, nil
}

func notPlainJSON(err error) error {
	return fmt.Errorf("the file is not plain JSON (comments or trailing commas?): %w", err)
}

// set replaces key's value in place, or appends key.
func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := marshalEntry(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// indent renders the object indented by unit, ending in a newline.
func (o *object) indent(unit string) (string, error) {
	raw, err := o.marshal()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", unit); err != nil {
		return "", err
	}
	b.WriteByte('\n')
	return b.String(), nil
}

// marshalEntry encodes v compactly without HTML escaping, so paths read as
// written.
func marshalEntry(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// mergeJSONServer sets serverName's entry under key in the JSON config
// file content old, keeping every other key, server and their order. It
// reports whether anything changed.
func mergeJSONServer(old []byte, key string, entry []byte) ([]byte, bool, error) {
	doc, err := parseObject(old)
	if err != nil {
		return nil, false, err
	}
	servers := newObject()
	if raw, ok := doc.vals[key]; ok && string(bytes.TrimSpace(raw)) != "null" {
		if servers, err = parseObject(raw); err != nil {
			return nil, false, fmt.Errorf("%q is not an object of servers: %w", key, err)
		}
	}
	if prev, ok := servers.vals[serverName]; ok && sameJSON(prev, entry) {
		return old, false, nil
	}
	servers.set(serverName, entry)
	sb, err := servers.marshal()
	if err != nil {
		return nil, false, err
	}
	doc.set(key, sb)
	text, err := doc.indent(indentOf(old))
	if err != nil {
		return nil, false, err
	}
	return []byte(text), true, nil
}

// sameJSON reports whether a and b encode the same value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// indentOf guesses a JSON file's indentation unit from its first indented
// line; two spaces when it has none.
func indentOf(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if n := len(line) - len(trimmed); n > 0 && trimmed != "" {
			return line[:n]
		}
	}
	return "  "
}

// codexToolTimeout is Codex's tool_timeout_sec for gasoline: observe may
// block 55 s and the bridge allows 65 s; Codex's default is 60.
const codexToolTimeout = 70

// codexTable renders gasoline's [mcp_servers.gasoline] table for Codex's
// config.toml.
func codexTable(s launch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", serverName)
	fmt.Fprintf(&b, "command = %s\n", tomlString(s.Command))
	if len(s.Args) > 0 {
		quoted := make([]string, len(s.Args))
		for i, a := range s.Args {
			quoted[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(quoted, ", "))
	}
	fmt.Fprintf(&b, "tool_timeout_sec = %d\n", codexToolTimeout)
	if len(s.Env) > 0 {
		pairs := make([]string, 0, len(s.Env))
		for _, k := range sortedKeys(s.Env) {
			pairs = append(pairs, k+" = "+tomlString(s.Env[k]))
		}
		fmt.Fprintf(&b, "env = { %s }\n", strings.Join(pairs, ", "))
	}
	return b.String()
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var (
	// tomlHeader matches a table or array-of-tables header line.
	tomlHeader = regexp.MustCompile(`^\s*\[`)
	// ourTable matches the header of gasoline's table or one of its
	// sub-tables ([mcp_servers.gasoline.env]), the name bare or quoted.
	ourTable = regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*(?:gasoline|"gasoline"|'gasoline')\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$`)
	// ourOtherForms matches gasoline defined some other way: dotted keys
	// (mcp_servers.gasoline.command = …) or an inline table under
	// [mcp_servers] (gasoline = { … }), which a text merge cannot replace.
	ourOtherForms = regexp.MustCompile(`(?m)^\s*(?:mcp_servers\s*\.\s*)?(?:gasoline|"gasoline"|'gasoline')\s*[.=]`)
)

// mergeCodexTable puts table in place of gasoline's table (and its
// sub-tables) in the config.toml content old, or appends it, keeping every
// other line, comments included. It reports whether anything changed.
func mergeCodexTable(old, table string) (string, bool, error) {
	lines := strings.SplitAfter(old, "\n")
	var kept []string
	at := -1 // where gasoline's first table was
	ours := false
	for _, line := range lines {
		if tomlHeader.MatchString(line) {
			ours = ourTable.MatchString(line)
			if ours && at < 0 {
				at = len(kept)
			}
		}
		if !ours {
			kept = append(kept, line)
		}
	}
	if ourOtherForms.MatchString(strings.Join(kept, "")) {
		return "", false, errors.New("it defines gasoline with dotted keys or an inline table; replace that definition by hand")
	}
	var b strings.Builder
	if at < 0 {
		b.WriteString(strings.Join(kept, ""))
		if b.Len() > 0 {
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		}
		b.WriteString(table)
	} else {
		b.WriteString(strings.Join(kept[:at], ""))
		b.WriteString(table)
		if rest := strings.Join(kept[at:], ""); rest != "" {
			b.WriteByte('\n')
			b.WriteString(rest)
		}
	}
	updated := b.String()
	if normaliseBlank(updated) == normaliseBlank(old) {
		return old, false, nil
	}
	return updated, true, nil
}

// normaliseBlank drops blank lines, so an unchanged table in a file spaced
// differently counts as unchanged.
func normaliseBlank(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString(strings.TrimRight(line, " \t\r"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}
