package tools

import (
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
)

// TestPolicyTable fails while internal/toolpolicy's table is not the policy
// the actions declare: run go generate ./internal/tools (or make generate).
func TestPolicyTable(t *testing.T) {
	checkGenerated(t, policyTable)
}

// TestPolicyConsistent checks the rules the bridge relies on: a correlation
// id prefix is user-driven for every action that uses it or for none, only
// browser actions queue commands, and the table the bridge reads agrees
// with the declarations.
func TestPolicyConsistent(t *testing.T) {
	userDriven := map[string]bool{}
	for _, tl := range all {
		for _, a := range tl.actions() {
			if a.Prefix == "" {
				if a.BrowserBound || a.UserDriven {
					t.Errorf("%s.%s is browser-bound or user-driven but queues no command (no prefix)", a.Tool, a.Name)
				}
				continue
			}
			if ud, seen := userDriven[a.Prefix]; seen && ud != a.UserDriven {
				t.Errorf("prefix %q is user-driven for some actions and not for %s.%s", a.Prefix, a.Tool, a.Name)
			}
			userDriven[a.Prefix] = a.UserDriven
			if got, ok := toolpolicy.Default.Lookup(a.Tool, a.Name); !ok || got != a.Action {
				t.Errorf("toolpolicy.Lookup(%s, %s) = %+v, %v; want %+v (run go generate ./internal/tools)", a.Tool, a.Name, got, ok, a.Action)
			}
		}
	}
}
