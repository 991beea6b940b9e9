package bridge

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path/filepath"
	"sync"
)

// rootsID is the id of the bridge's own roots/list requests to the client.
const rootsID = `"gasoline-mcp:roots"`

// roots are the folders the client says it works in (MCP roots), asked of
// a client that declared the roots capability once it is initialized, and
// again whenever it says they changed. The zero value knows none.
type roots struct {
	mu       sync.Mutex
	declared bool     // the client declared the roots capability; guarded by mu
	dirs     []string // the file: roots' folders, as last listed; guarded by mu
}

// take handles what of a client message concerns its roots and reports
// whether the message was the answer to the bridge's own roots/list, which
// goes no further. ask sends a roots/list request to the client.
func (r *roots) take(line []byte, m *message, ask func([]byte)) (own bool) {
	switch {
	case m.Method == "initialize":
		var msg struct {
			Params struct {
				Capabilities struct {
					Roots json.RawMessage `json:"roots"`
				} `json:"capabilities"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &msg) == nil {
			got := msg.Params.Capabilities.Roots
			r.mu.Lock()
			r.declared = len(got) > 0 && !bytes.Equal(got, []byte("null"))
			r.mu.Unlock()
		}
	case m.Method == "notifications/initialized" || m.Method == "notifications/roots/list_changed":
		r.mu.Lock()
		declared := r.declared
		r.mu.Unlock()
		if declared {
			ask([]byte(`{"jsonrpc":"2.0","id":` + rootsID + `,"method":"roots/list"}`))
		}
	case m.Method == "" && bytes.Equal(bytes.TrimSpace(m.ID), []byte(rootsID)):
		var resp struct {
			Result struct {
				Roots []struct {
					URI string `json:"uri"`
				} `json:"roots"`
			} `json:"result"`
		}
		if json.Unmarshal(line, &resp) == nil {
			var dirs []string
			for _, root := range resp.Result.Roots {
				if u, err := url.Parse(root.URI); err == nil && u.Scheme == "file" && filepath.IsAbs(u.Path) {
					dirs = append(dirs, filepath.Clean(u.Path))
				}
			}
			r.mu.Lock()
			r.dirs = dirs
			r.mu.Unlock()
		}
		return true
	}
	return false
}

// folders are the client's roots, as last listed.
func (r *roots) folders() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dirs
}
