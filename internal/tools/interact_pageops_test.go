package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPageOpsHandled: every op pageOps declares has its handler in the DOM
// runtime's OPS table (extension/actions/runtime/ops.js), and the runtime
// handles no op the table does not declare; extension/page-ops.js, which
// both sides of the messages check against, is fresh.
func TestPageOpsHandled(t *testing.T) {
	checkGenerated(t, pageOpsFile)
	src, err := os.ReadFile(filepath.Join(extensionDir, "actions", "runtime", "ops.js"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\nconst OPS = {\n")
	table, _, ok2 := strings.Cut(table, "\n};\n")
	if !ok || !ok2 {
		t.Fatal("actions/runtime/ops.js has no `const OPS = {` ... `};` table of the ops it handles")
	}
	// An op is a key at the table's indentation: "  act,", "  frame: frameOf,", "  async scroll(msg) {".
	key := regexp.MustCompile(`(?m)^  (?:async )?([a-z_]+)\b`)
	var handled []string
	for _, m := range key.FindAllStringSubmatch(table, -1) {
		handled = append(handled, m[1])
	}
	var declared []string
	for _, op := range pageOps {
		declared = append(declared, op.Op)
		if !slices.Contains(handled, op.Op) {
			t.Errorf("page op %s is declared (interact_pageops.go) but the runtime's OPS (actions/runtime/ops.js) has no handler for it", op.Op)
		}
	}
	for _, op := range handled {
		if !slices.Contains(declared, op) {
			t.Errorf("the runtime handles op %s, which pageOps (interact_pageops.go) does not declare", op)
		}
	}
	if len(handled) < 10 {
		t.Errorf("found %d ops in the runtime's OPS table (%v): the test no longer reads it right", len(handled), handled)
	}
}

// TestPageOpsFields: each op's fields are declared once, with a JSON type
// (renderPageOps panics or fails otherwise), and only act's opts carry
// the options of an action's page verb.
func TestPageOpsFields(t *testing.T) {
	for _, op := range pageOps {
		fields, _, err := opFields(op.Op, op.msg)
		if err != nil {
			t.Fatal(err)
		}
		for name, f := range fields {
			if f.Params != "" && (op.Op != "act" || name != "opts" || f.Params != "action") {
				t.Errorf("op %s: field %s holds an action's options (params %q): only act's opts do", op.Op, name, f.Params)
			}
			if f.Type == nil {
				t.Errorf("op %s: field %s has no type", op.Op, name)
			}
		}
	}
}
