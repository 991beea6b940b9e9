package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// pageFields are the JSON names of fields whose value a page writes or
// chooses: its URL (history.replaceState), its title, its text and
// elements' names, labels and values, and what it logs or throws.
var pageFields = map[string]bool{
	"url": true, "title": true, "text": true, "name": true, "label": true, "value": true,
	"message": true, "selector": true, "reason": true, "stack": true, "snippet": true, "from": true, "to": true,
}

// ownMembers are top-level members named like page fields that hold
// gasoline's own words, with why.
var ownMembers = map[string]string{
	"message":   "gasoline's note on the result (what to do next)",
	"reason":    "the tracker's reason a command ended (timeout, cancelled)",
	"completed": "command lists: an entry's reason is the tracker's",
	"pending":   "command lists: an entry's reason is the tracker's",
	"failed":    "command lists: an entry's reason is the tracker's; its error is fenced (listMembers)",
	"added":     "a noise rule: the agent's own pattern",
	"rules":     "noise rules: the agent's own patterns",
}

// ownStructs are result types, reached from a result, whose page-looking
// fields are gasoline's own words, with why.
var ownStructs = map[string]string{
	"capture.Frames": "the extension's frame-capture state",
}

// TestResultsFencePageFields walks the type of every tool result (the
// first result of each (*Tools) handler, and every *View type) through
// the structs it holds, in internal/tools, internal/capture and
// internal/apitype: a top-level member that holds a page field at any
// depth must be one the fence moves behind its markers (isPage), so a new
// result cannot show a title or URL outside the fence.
func TestResultsFencePageFields(t *testing.T) {
	structs := map[string]*ast.StructType{}
	var roots []string
	for pkg, dir := range map[string]string{"tools": ".", "capture": "../capture", "apitype": "../apitype", "result": "../result"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok {
							if st, ok := ts.Type.(*ast.StructType); ok {
								structs[pkg+"."+ts.Name.Name] = st
								if pkg == "tools" && strings.HasSuffix(ts.Name.Name, "View") {
									roots = append(roots, pkg+"."+ts.Name.Name)
								}
							}
						}
					}
				case *ast.FuncDecl:
					if pkg != "tools" || d.Recv == nil || d.Type.Results == nil || len(d.Type.Results.List) != 2 || len(d.Type.Params.List) != 3 {
						continue
					}
					if r, ok := typeName(d.Type.Results.List[0].Type, pkg); ok {
						roots = append(roots, r)
					}
				}
			}
		}
	}
	if len(roots) < 20 || !slices.Contains(roots, "tools.tabsView") || !slices.Contains(roots, "capture.Tab") {
		t.Fatalf("found %d result types %v: the walk no longer finds the handlers' results", len(roots), roots)
	}
	// holds reports the page field a type holds at any depth, "" for none.
	var holds func(name string, seen map[string]bool) string
	fieldsOf := func(name string) []*ast.Field {
		if st := structs[name]; st != nil {
			return st.Fields.List
		}
		return nil
	}
	holds = func(name string, seen map[string]bool) string {
		if seen[name] || ownStructs[name] != "" {
			return ""
		}
		seen[name] = true
		pkg, _, _ := strings.Cut(name, ".")
		for _, f := range fieldsOf(name) {
			j := jsonName(f)
			if j == "-" {
				continue
			}
			if pageFields[j] {
				return j
			}
			if inner, ok := typeName(f.Type, pkg); ok {
				if p := holds(inner, seen); p != "" {
					return j + "." + p
				}
			}
		}
		return ""
	}
	slices.Sort(roots)
	for _, root := range slices.Compact(roots) {
		var top func(name string)
		top = func(name string) {
			pkg, _, _ := strings.Cut(name, ".")
			for _, f := range fieldsOf(name) {
				j := jsonName(f)
				inner, named := typeName(f.Type, pkg)
				if j == "" && named { // embedded: its members are the result's
					top(inner)
					continue
				}
				if j == "-" || j == "" {
					continue
				}
				p := ""
				if pageFields[j] {
					p = j
				} else if named {
					p = holds(inner, map[string]bool{})
				}
				if p != "" && !pageMembers[j] && ownMembers[j] == "" {
					t.Errorf("%s: member %q holds page text (%s) outside the page fence: add it to pageMembers (fence.go)", root, j, p)
				}
			}
		}
		top(root)
	}
}

// jsonName is a struct field's JSON name: "" for an embedded struct
// without a tag, "-" for one never encoded or unexported.
func jsonName(f *ast.Field) string {
	tag := ""
	if f.Tag != nil {
		tag = reflect.StructTag(strings.Trim(f.Tag.Value, "`")).Get("json")
	}
	name, _, _ := strings.Cut(tag, ",")
	if len(f.Names) == 0 {
		return name
	}
	if !f.Names[0].IsExported() {
		return "-"
	}
	if name == "" {
		return f.Names[0].Name
	}
	return name
}

// typeName is the package-qualified name of the struct type expr names,
// through pointers, slices and maps' values.
func typeName(expr ast.Expr, pkg string) (string, bool) {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return typeName(e.X, pkg)
	case *ast.ArrayType:
		return typeName(e.Elt, pkg)
	case *ast.MapType:
		return typeName(e.Value, pkg)
	case *ast.Ident:
		if e.IsExported() || e.Obj != nil || strings.ToLower(e.Name[:1]) == e.Name[:1] {
			return pkg + "." + e.Name, true
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name, true
		}
	}
	return "", false
}
