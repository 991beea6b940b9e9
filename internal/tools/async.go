package tools

import (
	"bytes"
	"encoding/json"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// maxAsyncListed bounds the ids the async reminder lists: it rides on every
// response, so it carries counts and the oldest unread ids only, and
// observe({what:"pending_commands"}) has the full list.
const maxAsyncListed = 3

// asyncView is the client's async reminder: the ids of results it has not
// read (the oldest first, most at risk of expiring), how many there are when
// not all are listed, and how many commands still run.
type asyncView struct {
	Ready      []string `json:"ready,omitempty"`
	ReadyCount int      `json:"ready_count,omitempty"`
	Running    int      `json:"running,omitempty"`
}

// decorate fences the page's text in every tool result (fence.go) and adds
// the client's async reminder to it, so an agent is reminded of commands
// still running and of results it has not read (seed 001's XML-NEXT
// notice, as data), within 80 characters for one unread result. It splices the reminder into the encoded result; body is
// returned as is when there is nothing to say.
func (t *Tools) decorate(client string, res any, body []byte) []byte {
	body = pageFence.wrap(body)
	running, ready := t.d.Tracker.Unread(client)
	// The command this result is about is not news.
	if v, ok := res.(aboutCommand); ok {
		self := v.command()
		running, ready = without(running, self), without(ready, self)
	}
	if len(running) == 0 && len(ready) == 0 {
		return body
	}
	status := asyncView{Running: len(running)}
	for _, c := range ready[:min(len(ready), maxAsyncListed)] {
		status.Ready = append(status.Ready, c.ID)
	}
	if len(ready) > maxAsyncListed {
		status.ReadyCount = len(ready)
	}
	return mcp.AppendField(body, "async", encode(status))
}

// encode is compact JSON without HTML escaping, as the MCP server encodes
// results.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func without(cs []tracker.Command, id string) []tracker.Command {
	for i, c := range cs {
		if c.ID == id {
			return append(cs[:i:i], cs[i+1:]...)
		}
	}
	return cs
}
