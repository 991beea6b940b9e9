package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/extcontract"
)

// streamableCall times tools/call over MCP Streamable HTTP as a client
// configured with the daemon's URL sends it: with its session, accepting
// SSE, no X-Gasoline-Client. Beside the bridged row it shows what a URL
// client saves by not going through gasoline-mcp.
func (b *bench) streamableCall() error {
	r := &row{key: "streamable", figure: "direct Streamable HTTP tools/call (session, Accept SSE; observe pending_commands)", target: "(reference)"}
	post := func(session string, body []byte) (*http.Response, []byte, error) {
		req, _ := http.NewRequest("POST", b.url("/mcp"), bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := b.hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode >= 300 {
			err = fmt.Errorf("HTTP %d %s", resp.StatusCode, out)
		}
		return resp, out, err
	}
	resp, _, err := post("", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`))
	if err != nil {
		return err
	}
	session := resp.Header.Get("Mcp-Session-Id")
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"pending_commands"}}}`)
	r.samples, err = timed(100, func(int) error {
		_, _, err := post(session, body)
		return err
	})
	b.add(r)
	return err
}

// textOf is the text content of a tools/call answer: what the agent reads.
func textOf(body []byte) (string, error) {
	var resp struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Result.Content) == 0 {
		return "", fmt.Errorf("no text content in %.300s", body)
	}
	return resp.Result.Content[0].Text, nil
}

// sizes reports the characters of text an agent reads for each kind of
// response (issue 12, part 4), with the extension's real result shape.
func (b *bench) sizes() error {
	const client = "bench-sizes"
	page := `{"correlation_id":"%s","status":"complete","result":{"value":"Home Page","tab_id":1794230512,"url":"https://example.com/"}}`
	submit := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"execute_js","script":"document.title"}}}`)
	var handle string
	var ids []string
	// An extension that polled just now is present: the handle then has no
	// warning to carry.
	if _, err := b.do("GET", "/pending-queries?wait_ms=0&contract="+extcontract.Version, "", nil); err != nil {
		return err
	}
	for range 2 {
		out, err := b.do("POST", "/mcp", client, submit)
		if err != nil {
			return err
		}
		if handle == "" { // the first: no other command to remind of
			if handle, err = textOf(out); err != nil {
				return err
			}
		}
		id, err := correlationID(out)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	for range ids {
		out, err := b.do("GET", "/pending-queries?wait_ms=5000&contract="+extcontract.Version, "", nil)
		if err != nil {
			return err
		}
		var p pending
		json.Unmarshal(out, &p)
		for _, q := range p.Queries {
			if _, err := b.do("POST", "/query-result", "", []byte(fmt.Sprintf(page, q.CorrelationID))); err != nil {
				return err
			}
		}
		if len(p.Queries) == len(ids) {
			break
		}
	}
	read := func(id, extra string) (string, error) {
		out, err := b.do("POST", "/mcp", client, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"`+id+`"`+extra+`}}}`))
		if err != nil {
			return "", err
		}
		return textOf(out)
	}
	withReminder, err := read(ids[0], "")
	if err != nil {
		return err
	}
	alone, err := read(ids[1], "")
	if err != nil {
		return err
	}
	verbose, err := read(ids[1], `,"verbose":true`)
	if err != nil {
		return err
	}
	list, err := b.do("POST", "/mcp", client, []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`))
	if err != nil {
		return err
	}
	if !strings.Contains(withReminder, `"async"`) {
		return fmt.Errorf("no async reminder in %s", withReminder)
	}
	for _, s := range []struct {
		figure string
		chars  int
		target string
	}{
		{"response size: completed execute_js of document.title (chars of text)", len(alone), "≤ 180"},
		{"response size: the same with verbose:true", len(verbose), "(reference)"},
		{"response size: queued handle", len(handle), "≤ 160"},
		{"response size: async reminder for one unread result (added)", len(withReminder) - len(alone), "≤ 80"},
		{"response size: tools/list (estimated tokens, chars/4)", len(list) / 4, "< 2 000"},
	} {
		b.add(&row{key: "sizes", figure: s.figure, value: fmt.Sprint(s.chars), target: s.target})
	}
	return nil
}
