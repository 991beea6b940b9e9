package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// extensionDir holds the extension whose ACTIONS table must match the
// browser actions declared here.
const extensionDir = "../../extension"

// extensionOnly are actions the extension implements for its own use,
// which the daemon never offers agents.
var extensionOnly = []string{"draw_mode_show", "har_bodies", "release_capture"}

// objectLiteral matches the start of `export const NAME = {`.
var objectLiteral = regexp.MustCompile(`(?m)^export const ([A-Za-z_$][\w$]*)\s*=\s*\{`)

// extensionObjects returns the keys of every exported object literal of the
// extension's modules, by name. Keys are `key: value` or shorthand `key`
// entries; `...other` spreads another exported object's keys.
func extensionObjects(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(extensionDir, "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no extension modules in %s: %v", extensionDir, err)
	}
	more, _ := filepath.Glob(filepath.Join(extensionDir, "*", "*.js"))
	objs := map[string][]string{}
	for _, f := range append(files, more...) {
		if strings.Contains(f, string(filepath.Separator)+"test"+string(filepath.Separator)) {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range objectLiteral.FindAllSubmatchIndex(src, -1) {
			name := string(src[m[2]:m[3]])
			body, ok := braced(string(src[m[1]-1:]))
			if !ok {
				t.Fatalf("%s: the object %s does not close", f, name)
			}
			objs[name] = entries(body)
		}
	}
	return objs
}

// braced returns the text inside the braces s starts with.
func braced(s string) (string, bool) {
	depth := 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], true
			}
		}
	}
	return "", false
}

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	entryKey     = regexp.MustCompile(`^(\.\.\.)?\s*['"]?([A-Za-z_$][\w$]*)['"]?\s*(:|$)`)
)

// entries returns the top-level keys of an object literal's body.
func entries(body string) []string {
	body = blockComment.ReplaceAllString(lineComment.ReplaceAllString(body, ""), "")
	var keys []string
	depth, start := 0, 0
	split := func(end int) {
		if m := entryKey.FindStringSubmatch(strings.TrimSpace(body[start:end])); m != nil {
			keys = append(keys, m[1]+m[2])
		}
	}
	for i, c := range body {
		switch c {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		case ',':
			if depth == 0 {
				split(i)
				start = i + 1
			}
		}
	}
	split(len(body))
	return keys
}

// builtFrom names the extension's objects built at load time from an
// object literal with the same keys: VERB_ACTIONS has a handler for each
// action of the generated DOM_ACTIONS (extension/actions/verb.js).
var builtFrom = map[string]string{"VERB_ACTIONS": "DOM_ACTIONS"}

// extensionActions returns the keys of the extension's ACTIONS table,
// following spreads.
func extensionActions(t *testing.T) []string {
	t.Helper()
	objs := extensionObjects(t)
	var expand func(name string, depth int) []string
	expand = func(name string, depth int) []string {
		if from, ok := builtFrom[name]; ok {
			name = from
		}
		keys, ok := objs[name]
		if !ok || depth > 8 {
			t.Fatalf("the extension exports no object %s", name)
		}
		var out []string
		for _, k := range keys {
			if spread, ok := strings.CutPrefix(k, "..."); ok {
				out = append(out, expand(spread, depth+1)...)
				continue
			}
			out = append(out, k)
		}
		return out
	}
	return expand("ACTIONS", 0)
}

// TestExtensionImplementsTheActions checks the action table against the
// extension's ACTIONS table, so neither side can offer what the other does
// not: every browser action agents are offered runs in the extension
// (user-driven ones are completed by the daemon instead), and every action
// the extension runs is offered, unless it is listed in extensionOnly.
func TestExtensionImplementsTheActions(t *testing.T) {
	ext := extensionActions(t)
	if len(ext) == 0 {
		t.Fatal("found no actions in the extension's ACTIONS table")
	}
	offered := map[string]bool{}
	for _, tl := range all {
		for _, a := range tl.actions() {
			if !a.BrowserBound || a.UserDriven {
				continue
			}
			offered[a.Name] = true
			if !slices.Contains(ext, a.Name) {
				t.Errorf("%s offers %s, but the extension's ACTIONS table has no %s: add its handler to the extension", tl.name, a.Name, a.Name)
			}
		}
	}
	for _, name := range ext {
		if !offered[name] && !slices.Contains(extensionOnly, name) {
			t.Errorf("the extension runs %s, but no tool offers it: declare it (e.g. in internal/tools/interact_tabs.go) or list it in extensionOnly", name)
		}
	}
}

func TestObjectEntries(t *testing.T) {
	got := entries(`
  execute_js: executeJs, // a comment, with a comma
  navigate,
  'new_tab': newTab,
  /* refresh, */ back: (p, s) => step(p, s, { a: 1, b: 2 }),
  ...more,
`)
	want := []string{"execute_js", "navigate", "new_tab", "back", "...more"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
