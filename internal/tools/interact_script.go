package tools

import "github.com/gasoline-mcp/gasoline/internal/mcp"

// scriptActions run the agent's JavaScript.
func scriptActions() []action { return []action{executeJS()} }

func executeJS() action {
	return browser[executeJSArgs]("execute_js", "exec",
		`an expression ("document.title") or a function body with return`)
}

type executeJSArgs struct {
	Script string `json:"script" required:"true" desc:"JavaScript; await works"`
	tabArg
}

func (a executeJSArgs) check() error {
	if a.Script == "" {
		return mcp.Errorf("invalid_arguments", "pass the JavaScript to run, e.g. {action:\"execute_js\", script:\"document.title\"}", "\"script\" is required for execute_js")
	}
	return nil
}

// tabArg names the tab an action works in; without it the extension
// chooses the client's own (extension/tabs/owners.js). interact's preamble
// says that every action on a page takes it.
type tabArg struct {
	TabID *int64 `json:"tab_id,omitempty" list:"-"`
}
