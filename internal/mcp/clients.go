package mcp

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// MaxClientNames bounds the client names a Server remembers; beyond it the
// name recorded longest ago is forgotten (that client's commands then carry
// no name, and the extension names its tabs after its id).
const MaxClientNames = 1024

// maxClientNameRunes caps a recorded name: it becomes a tab group title.
const maxClientNameRunes = 40

// clientNames remembers the clientInfo.name each client sent in initialize.
// It is safe for concurrent use.
type clientNames struct {
	mu    sync.Mutex
	names map[string]string // guarded by mu
	order []string          // guarded by mu; clients in the order first recorded
}

// set records name for client; an empty name (after cleaning) records
// nothing.
func (c *clientNames) set(client, name string) {
	name = cleanClientName(name)
	if client == "" || name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[string]string{}
	}
	if _, ok := c.names[client]; !ok {
		if len(c.order) >= MaxClientNames {
			delete(c.names, c.order[0])
			c.order = append(c.order[:0], c.order[1:]...)
		}
		c.order = append(c.order, client)
	}
	c.names[client] = name
}

func (c *clientNames) get(client string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[client]
}

// cleanClientName makes a client's self-chosen name fit for a tab group
// title and a tool result: control characters become spaces, runs of space
// collapse, and it is cut to 40 characters.
func cleanClientName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxClientNameRunes {
		s = strings.TrimSpace(string(r[:maxClientNameRunes]))
	}
	return s
}

// SetClientName records name as the name of client, as initialize does
// with its clientInfo.name. A transport that learns a client's id only
// after initialize (an HTTP session) records it this way.
func (s *Server) SetClientName(client, name string) { s.names.set(client, name) }

// ClientName is the clientInfo.name client sent in initialize, or "" when
// it sent none (or it was forgotten: at most MaxClientNames are kept).
func (s *Server) ClientName(client string) string { return s.names.get(client) }

// ClientNameOf reads clientInfo.name from the params of an initialize
// request; "" when there is none.
func ClientNameOf(params []byte) string {
	var p protocol.InitializeParams
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.ClientInfo.Name
}
