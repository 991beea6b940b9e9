package result

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// One agent, its own things: every stored output belongs to the client
// whose command made it (or who read a network body into the store), and
// only that client reads it, by any path (command_result's modes,
// resources/read). Ownership outlives the command's retention, as the
// stored output does. The Keeper also remembers the tabs each client's
// commands acted in, which scope its capture reads.

// Bounds of what the ownership records keep.
const (
	// maxOwned bounds the output ids whose owner is kept; beyond it the
	// records of outputs the store no longer holds go first, then the oldest.
	maxOwned = 16384
	// maxActedTabs bounds the tabs remembered per client, most recent kept.
	maxActedTabs = 32
	// maxActedClients bounds the clients whose tabs are remembered.
	maxActedClients = 200
)

// owners is the Keeper's record of who owns what. Its zero value is ready.
type owners struct {
	mu      sync.Mutex
	byID    map[string]string  // output id -> client; guarded by mu
	order   []string           // ids, oldest first; guarded by mu
	acted   map[string][]int64 // client -> tabs, least recent first; guarded by mu
	clients []string           // keys of acted, least recent first; guarded by mu
}

// own records client as the owner of the output stored under id,
// replacing any earlier owner.
func (k *Keeper) own(id, client string) {
	o := &k.owners
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byID == nil {
		o.byID = make(map[string]string)
	}
	if _, ok := o.byID[id]; !ok {
		o.order = append(o.order, id)
	}
	o.byID[id] = tracker.ClientName(client)
	if len(o.order) <= maxOwned {
		return
	}
	kept := o.order[:0]
	for _, old := range o.order {
		if k.store != nil {
			if _, err := k.store.Handle(old); err != nil {
				delete(o.byID, old)
				continue
			}
		}
		kept = append(kept, old)
	}
	o.order = kept
	for len(o.order) > maxOwned {
		delete(o.byID, o.order[0])
		o.order = o.order[1:]
	}
}

// actedIn records that a command of client worked in tab.
func (k *Keeper) actedIn(client string, tab int64) {
	client = tracker.ClientName(client)
	o := &k.owners
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.acted == nil {
		o.acted = make(map[string][]int64)
	}
	tabs := slices.DeleteFunc(o.acted[client], func(t int64) bool { return t == tab })
	tabs = append(tabs, tab)
	if len(tabs) > maxActedTabs {
		tabs = tabs[len(tabs)-maxActedTabs:]
	}
	o.acted[client] = tabs
	o.clients = append(slices.DeleteFunc(o.clients, func(c string) bool { return c == client }), client)
	if len(o.clients) > maxActedClients {
		delete(o.acted, o.clients[0])
		o.clients = o.clients[1:]
	}
}

// ActedIn returns the tabs client's commands worked in (their results'
// tab_id), least recent first, at most 32.
func (k *Keeper) ActedIn(client string) []int64 {
	o := &k.owners
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.acted[tracker.ClientName(client)])
}

// noteTab records the tab a complete result names ({"tab_id": 3, …}) as
// one its client acted in.
func (k *Keeper) noteTab(c tracker.Command, result json.RawMessage, stored *Stored) {
	var raw json.RawMessage
	if stored != nil {
		raw = stored.Meta["tab_id"]
	} else if result = bytes.TrimSpace(result); len(result) > 0 && result[0] == '{' && mayNameTabID(result) {
		var r struct {
			TabID json.RawMessage `json:"tab_id"`
		}
		if json.Unmarshal(result, &r) == nil {
			raw = r.TabID
		}
	}
	var tab int64
	if len(raw) > 0 && json.Unmarshal(raw, &tab) == nil && tab >= 0 {
		k.actedIn(c.Client, tab)
	}
}

// escape is how a JSON string's \uXXXX escape begins.
var escape = []byte(`\u`)

// mayNameTabID reports whether result, an encoded JSON value, may have a
// member encoding/json takes for "tab_id": the name in any case of its
// letters (no other rune folds to one of them) or spelled with an escape.
// Results that cannot, nearly every one, are not decoded again for it
// (issue 33).
func mayNameTabID(result []byte) bool {
	if bytes.Contains(result, escape) {
		return true
	}
	for i := 3; i+3 <= len(result); i++ {
		j := bytes.IndexByte(result[i:len(result)-2], '_')
		if j < 0 {
			return false
		}
		i += j
		if bytes.EqualFold(result[i-3:i+3], tabID) {
			return true
		}
	}
	return false
}

var tabID = []byte("tab_id")
