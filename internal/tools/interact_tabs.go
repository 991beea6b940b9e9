package tools

import (
	"net/url"
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// tabActions move tabs between pages and open, focus and close tabs.
func tabActions() []action {
	return []action{navigate(), refresh(), back(), forward(), newTab(), switchTab(), closeTab()}
}

func navigate() action {
	return browser[navigateArgs]("navigate", "nav", "waits for the load and what it starts")
}

func refresh() action { return browser[tabArg]("refresh", "nav", "") }

func back() action { return browser[tabArg]("back", "nav", "") }

func forward() action { return browser[tabArg]("forward", "nav", "") }

func newTab() action { return browser[newTabArgs]("new_tab", "tab", "") }

func switchTab() action { return browser[switchTabArgs]("switch_tab", "tab", "") }

func closeTab() action { return browser[closeTabArgs]("close_tab", "tab", "") }

type navigateArgs struct {
	URL string `json:"url" required:"true" desc:"http(s), file or about:blank"`
	tabArg
}

type closeTabArgs struct {
	tabArg
}

// forceArg lets an action with tab_id work in a tab another agent owns,
// which the extension otherwise refuses, naming the owner
// (extension/tabs/owners.js); tabs no agent owns need none.
type forceArg struct {
	Force bool `json:"force,omitempty" list:"-" desc:"on another agent's tab"`
}

func (a navigateArgs) check() error { return checkURL(a.URL) }

type newTabArgs struct {
	URL    string `json:"url,omitempty"`
	Active *bool  `json:"active,omitempty" desc:"shown in its window (default true)"`
}

func (a newTabArgs) check() error { return checkURL(a.URL) }

type switchTabArgs struct {
	TabID *int64 `json:"tab_id" required:"true"`
}

// urlRule is what an agent may open: an http(s) URL with a host, a file
// URL, or one of exact. checkURL applies it, and extension/contract.js
// carries it to the extension's navigate and new_tab (params.js), so the
// two cannot differ; testdata/urls.json holds cases both must agree on.
var urlRule = struct {
	Hosted  []string `json:"hosted"`  // schemes allowed with a host
	Schemes []string `json:"schemes"` // schemes allowed as they are
	Exact   []string `json:"exact"`   // whole URLs allowed
}{Hosted: []string{"http", "https"}, Schemes: []string{"file"}, Exact: []string{"about:blank"}}

// checkURL accepts the URLs urlRule allows; "" is no URL (url's required
// tag says where one is needed).
func checkURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return mcp.Errorf("invalid_arguments", "pass an absolute URL such as http://localhost:3000/", "invalid url %q: %v", raw, err)
	}
	switch {
	case slices.Contains(urlRule.Hosted, u.Scheme) && u.Host != "":
	case slices.Contains(urlRule.Schemes, u.Scheme), slices.Contains(urlRule.Exact, raw):
	default:
		return mcp.Errorf("invalid_arguments", "use an http(s) or file URL, or about:blank", "unsupported url %q", raw)
	}
	return nil
}
