package tools

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

// tabArg names the tab an action works in; without it the extension
// chooses the client's own (extension/tabs/owners.js). interact's preamble
// says that every action on a page takes it, and force with it.
type tabArg struct {
	TabID *int64 `json:"tab_id,omitempty" list:"-"`
	forceArg
}
