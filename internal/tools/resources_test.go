package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// rpc sends one JSON-RPC request to the tools' MCP server as client and
// returns its result, or fails the test on a JSON-RPC error unless wantErr.
func (e *env) rpc(t *testing.T, client, method, params string, wantErr bool) (json.RawMessage, string) {
	t.Helper()
	out := e.s.Handle(context.Background(), client, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(out, &resp)
	if (resp.Error != nil) != wantErr {
		t.Fatalf("%s %s: got %s", method, params, out)
	}
	if resp.Error != nil {
		return nil, resp.Error.Message
	}
	return resp.Result, ""
}

// TestOutputResources: a stored large output is offered as a resource: its
// handle links it, resources/list lists it for its client, resources/read
// returns it whole, and nobody else can read it.
func TestOutputResources(t *testing.T) {
	e := newEnv(t)
	ir, _ := e.rpc(t, "agent", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`, false)
	if !strings.Contains(string(ir), `"resources":{}`) {
		t.Errorf("initialize %s: want the resources capability", ir)
	}

	id := e.call(t, "agent", "interact", `{"action":"execute_js","script":"document.body.innerHTML"}`).field("correlation_id").(string)
	e.delivered(t)
	page := strings.Repeat("<p>large page</p>", 200) // far above the env's 100-token inline limit
	value, _ := json.Marshal(map[string]any{"value": page})
	if _, err := e.keep.Report("ext", reportOf(id, string(value))); err != nil {
		t.Fatal(err)
	}
	r := e.call(t, "agent", "observe", `{"what":"command_result","correlation_id":"`+id+`"}`)
	link, _ := r.field("result", "resource_link").(map[string]any)
	uri := "gasoline://output/" + id
	if link["uri"] != uri || link["name"] != id || link["mimeType"] != "text/plain" {
		t.Fatalf("stored handle %s: want a resource_link to %s", r.Text, uri)
	}

	list, _ := e.rpc(t, "agent", "resources/list", `{}`, false)
	if !strings.Contains(string(list), `"uri":"`+uri+`"`) {
		t.Errorf("resources/list %s: want %s", list, uri)
	}
	if other, _ := e.rpc(t, "someone-else", "resources/list", `{}`, false); strings.Contains(string(other), uri) {
		t.Errorf("another client's resources/list %s lists %s", other, uri)
	}

	read, _ := e.rpc(t, "agent", "resources/read", `{"uri":"`+uri+`"}`, false)
	var rr struct {
		Contents []struct{ URI, MIMEType, Text string }
	}
	json.Unmarshal(read, &rr)
	if len(rr.Contents) != 1 || rr.Contents[0].Text != pageFence.fenceText(page) || rr.Contents[0].URI != uri {
		t.Errorf("resources/read: got %d contents, want the whole page (%d chars), fenced as page text", len(rr.Contents), len(page))
	}
	for _, tc := range []struct{ client, uri, want string }{
		{"someone-else", uri, "is not a stored output of yours"},
		{"agent", "gasoline://output/exec_nope", "is not a stored output of yours"},
		{"agent", "file:///etc/passwd", "not a gasoline output"},
	} {
		if _, msg := e.rpc(t, tc.client, "resources/read", `{"uri":"`+tc.uri+`"}`, true); !strings.Contains(msg, tc.want) {
			t.Errorf("read %s as %s: %q, want it to say %q", tc.uri, tc.client, msg, tc.want)
		}
	}
	if tpl, _ := e.rpc(t, "agent", "resources/templates/list", `{}`, false); string(tpl) != `{"resourceTemplates":[]}` {
		t.Errorf("resources/templates/list: %s", tpl)
	}
}
