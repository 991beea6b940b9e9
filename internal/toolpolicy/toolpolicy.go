// Package toolpolicy says, for every call of gasoline's MCP tools, what a
// relay must know without running it: whether it is safe to repeat, whether
// it needs the browser, and how long it may hold its answer. Its table
// (table.go) is generated from the declarations in internal/tools, where
// every action is declared once; the bridge reads it. The package uses the
// standard library only, so that the bridge stays thin.
package toolpolicy

import (
	"strings"
	"time"
)

// Action is the policy of one action of a tool (interact, configure) or one
// mode (observe, analyze).
type Action struct {
	Tool string // the tool
	Name string // the action or mode
	// Prefix starts the correlation ids of the commands it queues ("exec");
	// "" when it queues none.
	Prefix string
	// Idempotent: running it twice is harmless, so a relay may replay it on
	// a stale connection and retry it after a daemon restart.
	Idempotent bool
	// BrowserBound: it queues a command for the browser.
	BrowserBound bool
	// UserDriven: its command waits for the user (a draw-mode session), not
	// for the extension; it lives long and is never delivered.
	UserDriven bool
	// MaxWait is the longest wait_ms it honours; 0 when it never blocks.
	MaxWait time.Duration
	// DefaultWait is how long it blocks without wait_ms. interact's default
	// is the daemon's --inline-wait-ms, which the table cannot know: 0.
	DefaultWait time.Duration
	// UserDrivenWait, when set, replaces DefaultWait when the call's
	// correlation_id names a user-driven command (command_result on a
	// draw-mode session).
	UserDrivenWait time.Duration
}

// Blocks reports whether the call may hold its answer for its wait.
func (a Action) Blocks() bool { return a.MaxWait > 0 }

// Tool is the policy of one tool: the argument that names its action and
// its actions.
type Tool struct {
	Name    string
	Key     string // "action" or "what"
	Actions []Action
}

// Table is a policy table, indexed for lookups. Its methods are safe for
// concurrent use.
type Table struct {
	tools      []Tool
	byTool     map[string]*Tool
	byName     map[[2]string]Action
	userDriven map[string]bool // by id prefix
}

// Default is the table of gasoline's tools, generated from internal/tools.
var Default = NewTable(tools)

// NewTable indexes tools, which it keeps: the caller must not modify them.
func NewTable(tools []Tool) *Table {
	t := &Table{tools: tools, byTool: map[string]*Tool{}, byName: map[[2]string]Action{}, userDriven: map[string]bool{}}
	for i := range tools {
		tl := &tools[i]
		t.byTool[tl.Name] = tl
		for _, a := range tl.Actions {
			t.byName[[2]string{tl.Name, a.Name}] = a
			if a.Prefix != "" && a.UserDriven {
				t.userDriven[a.Prefix] = true
			}
		}
	}
	return t
}

// Tools returns the policy of every tool. The caller must not modify it.
func (t *Table) Tools() []Tool { return t.tools }

// Key returns the argument that names tool's action ("action" or "what"),
// or "" for an unknown tool.
func (t *Table) Key(tool string) string {
	if tl := t.byTool[tool]; tl != nil {
		return tl.Key
	}
	return ""
}

// Lookup returns the policy of tool's action (or mode) name. For an unknown
// tool or action ok is false and the policy is the safest one for the
// tool: not idempotent (a newer daemon may know the action), browser-bound
// if any of its actions is, not blocking.
func (t *Table) Lookup(tool, name string) (a Action, ok bool) {
	if a, ok := t.byName[[2]string{tool, name}]; ok {
		return a, true
	}
	a = Action{Tool: tool, Name: name}
	if tl := t.byTool[tool]; tl != nil {
		for _, x := range tl.Actions {
			a.BrowserBound = a.BrowserBound || x.BrowserBound
		}
	}
	return a, false
}

// UserDrivenID reports whether correlation id id names a command of a
// user-driven action, by the prefix the table gives those actions.
func (t *Table) UserDrivenID(id string) bool {
	prefix, _, ok := strings.Cut(id, "_")
	return ok && t.userDriven[prefix]
}
