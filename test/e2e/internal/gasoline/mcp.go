package gasoline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is an MCP SDK client session with gasoline-mcp, the binary an
// agent config names, as a subprocess.
type Client struct {
	Session *mcp.ClientSession
}

// Connect launches gasoline-mcp for the daemon d under the SDK's
// CommandTransport and initializes the session. The caller must Close it.
func Connect(ctx context.Context, d *Daemon) (*Client, error) {
	return ConnectAs(ctx, d, "gasoline-e2e")
}

// ConnectAs is Connect for a client that calls itself name in initialize
// (clientInfo.name): another agent, with its own gasoline-mcp process.
func ConnectAs(ctx context.Context, d *Daemon, name string) (*Client, error) {
	return ConnectIn(ctx, d, name, "")
}

// ConnectIn is ConnectAs for an agent working in the folder dir: its
// gasoline-mcp runs there ("" for the test's working directory). With
// roots, its MCP roots are those folders, and it speaks 2025-06-18, the
// last revision with roots (2026-07-28 deprecates them).
func ConnectIn(ctx context.Context, d *Daemon, name, dir string, roots ...string) (*Client, error) {
	cmd := d.Bins.Command(context.Background(), d.Bins.Bridge, "--port", strconv.Itoa(d.Port), "--state-dir", d.StateDir)
	cmd.Env = cleanEnv()
	cmd.Dir = dir
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	var opts *mcp.ClientSessionOptions
	for _, r := range roots {
		c.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: r}).String()})
		opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"}
	}
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to gasoline-mcp: %w", err)
	}
	return &Client{Session: cs}, nil
}

// Close ends the session; gasoline-mcp exits on EOF.
func (c *Client) Close() error { return c.Session.Close() }

// Result is a gasoline tool result: the fields the tests branch on, decoded
// from structuredContent, and the whole object in Raw.
type Result struct {
	IsError       bool // a tool error (bad arguments, queue_full, ...), not a failed command
	Status        string
	CorrelationID string
	Phase         string
	Waiting       string // what a running action waits for in the page
	Reason        string
	Error         string          // a failed command's error text
	ToolError     *ToolError      // set when IsError
	Value         json.RawMessage // result of a complete command
	Raw           json.RawMessage // structuredContent
	Text          string          // the text content blocks, joined: what an agent reads
	Images        []Image         // image content blocks (a screenshot, a draw-mode crop)
}

// Image is an image content block, decoded.
type Image struct {
	MIMEType string
	Data     []byte
}

// ToolError is the error object of a tool result with isError.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

func (r Result) String() string { return string(r.Raw) }

// Call calls tool with args and decodes its result. Protocol and transport
// failures are errors; a tool result with isError is not.
func (c *Client) Call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	res, err := c.Session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return Result{}, fmt.Errorf("calling %s %v: %w", tool, args, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		return Result{}, fmt.Errorf("%s: the tool result has no structuredContent: %+v", tool, res)
	}
	var v struct {
		Status        string          `json:"status"`
		CorrelationID string          `json:"correlation_id"`
		Phase         string          `json:"phase"`
		Waiting       string          `json:"waiting"`
		Reason        string          `json:"reason"`
		Error         json.RawMessage `json:"error"`
		Result        json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Result{}, fmt.Errorf("%s: decoding %s: %w", tool, raw, err)
	}
	r := Result{IsError: res.IsError, Status: v.Status, CorrelationID: v.CorrelationID, Phase: v.Phase,
		Waiting: v.Waiting, Reason: v.Reason, Value: v.Result, Raw: raw}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ImageContent:
			r.Images = append(r.Images, Image{MIMEType: c.MIMEType, Data: c.Data})
		case *mcp.TextContent:
			r.Text += c.Text
		}
	}
	if len(v.Error) > 0 {
		if v.Error[0] == '{' {
			r.ToolError = &ToolError{}
			json.Unmarshal(v.Error, r.ToolError)
		} else {
			json.Unmarshal(v.Error, &r.Error)
		}
	}
	return r, nil
}

// JSResult is the result of a complete execute_js.
type JSResult struct {
	Value json.RawMessage `json:"value"`
	TabID int64           `json:"tab_id"`
	URL   string          `json:"url"`
	Type  string          `json:"type"`
	World string          `json:"world"` // "MAIN": the value is the page's to influence
	// Builtins is "pristine" when the value was read with built-ins saved
	// before the page's scripts ran, "page" otherwise.
	Builtins string `json:"builtins"`
	Hint     string `json:"hint"`
}

// JS decodes r's result as an execute_js result.
func (r Result) JS() (JSResult, error) {
	var js JSResult
	if err := json.Unmarshal(r.Value, &js); err != nil {
		return js, fmt.Errorf("decoding the execute_js result %s: %w", r.Value, err)
	}
	return js, nil
}

// ExecuteJS runs interact execute_js with script and the extra arguments
// (tab_id, timeout_ms, wait_ms, ...).
func (c *Client) ExecuteJS(ctx context.Context, script string, extra map[string]any) (Result, error) {
	args := map[string]any{"action": "execute_js", "script": script}
	for k, v := range extra {
		args[k] = v
	}
	return c.Call(ctx, "interact", args)
}

// CommandResult runs observe command_result for id, waiting up to waitMS.
func (c *Client) CommandResult(ctx context.Context, id string, waitMS int) (Result, error) {
	return c.Call(ctx, "observe", map[string]any{"what": "command_result", "correlation_id": id, "wait_ms": waitMS})
}
