package tools

import (
	"encoding/json"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

func boolp(b bool) *bool { return &b }

var interactDef = protocol.Tool{
	Name:  "interact",
	Title: "Act in the browser",
	Description: `Run an action in the user's real browser. Asynchronous: returns {status:"queued", correlation_id} at once.
Then call observe({what:"command_result", correlation_id, wait_ms:10000}) to wait for the result.
Pass wait_ms (up to 55000) to get a fast result inline instead of the handle.
Actions: execute_js {script, tab_id?, timeout_ms? (default 10000, max 600000)}: script is an expression ("document.title") or a function body with return;
navigate {url, tab_id?}: open url in the tab and wait for it to load; new_tab {url?, active?}; switch_tab {tab_id}; close_tab {tab_id?};
tab_id defaults to the active tab; cancel {correlation_id}: cancel a queued or running command.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["execute_js", "navigate", "new_tab", "switch_tab", "close_tab", "cancel"], "description": "what to do"},
    "script": {"type": "string", "description": "execute_js: JavaScript run in the page; an expression or a function body using return/await"},
    "tab_id": {"type": "integer", "description": "target tab (default: the active tab); required for switch_tab"},
    "url": {"type": "string", "description": "navigate (required) / new_tab: an http(s) or file URL, or about:blank"},
    "active": {"type": "boolean", "description": "new_tab: focus the new tab (default true)"},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "execution deadline after the browser receives the command (default 10000)"},
    "wait_ms": {"type": "integer", "minimum": 0, "maximum": 55000, "description": "wait this long for the result and return it inline if it finished (default 0: return the queued handle at once)"},
    "correlation_id": {"type": "string", "description": "cancel: the command to cancel"}
  },
  "required": ["action"]
}`),
	Annotations: &protocol.ToolAnnotations{ReadOnlyHint: boolp(false), DestructiveHint: boolp(true), OpenWorldHint: boolp(true)},
}

var observeDef = protocol.Tool{
	Name:  "observe",
	Title: "Read results and command state",
	Description: `Read what gasoline knows. what:
command_result {correlation_id, wait_ms? (0-55000)}: a command's status (pending with phase queued/delivered/running, or complete/error/timeout/expired/cancelled) and result; with wait_ms it blocks until the command finishes or the wait ends, so one call replaces polling.
Large results (over ~10k tokens) come back as a stored handle (size, sha256, preview); read them with mode: "raw" (whole, small only), "slice" {start, length} or {anchor, window, match_index}, or "extract" {query}: verbatim snippets with character offsets;
pending_commands: your running, completed and failed commands;
failed_commands: recent failures with reason and hint;
completed_commands {wait_ms?}: wait until any of your commands finishes and list the newly finished ones.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "what": {"type": "string", "enum": ["command_result", "pending_commands", "failed_commands", "completed_commands"]},
    "correlation_id": {"type": "string", "description": "command_result: the id interact returned"},
    "wait_ms": {"type": "integer", "minimum": 0, "maximum": 55000, "description": "command_result / completed_commands: block up to this long for a finished command (default 0; 55000 for ann_ ids)"},
    "mode": {"type": "string", "enum": ["raw", "slice", "extract"], "description": "command_result: read the command's output whole, by slice, or by extraction"},
    "start": {"type": "integer", "minimum": 0, "description": "slice: first character (0-based)"},
    "length": {"type": "integer", "minimum": 1, "description": "slice: characters from start (default 2000)"},
    "anchor": {"type": "string", "description": "slice: plain text to find; the window is taken around it"},
    "window": {"type": "integer", "minimum": 1, "description": "slice: characters around the anchor (default 2000)"},
    "match_index": {"type": "integer", "description": "slice: which occurrence of the anchor (0 first, -1 last)"},
    "query": {"type": "string", "description": "extract: what to find, in plain words, e.g. \"error messages shown to the user\""},
    "max_snippets": {"type": "integer", "minimum": 1, "maximum": 100, "description": "extract: most snippets returned (default 20)"}
  },
  "required": ["what"]
}`),
	Annotations: &protocol.ToolAnnotations{ReadOnlyHint: boolp(true), OpenWorldHint: boolp(false)},
}

var configureDef = protocol.Tool{
	Name:  "configure",
	Title: "Status and settings",
	Description: `Status and settings. action:
health: daemon version, uptime, whether the browser extension is connected, queue depth;
query_status {correlation_id, wait_ms?, mode?...}: the same as observe({what:"command_result"}).`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["health", "query_status"]},
    "correlation_id": {"type": "string", "description": "query_status: the id interact returned"},
    "wait_ms": {"type": "integer", "minimum": 0, "maximum": 55000, "description": "query_status: block up to this long for the result"},
    "mode": {"type": "string", "enum": ["raw", "slice", "extract"], "description": "query_status: read the output as observe command_result does (with its start/length/anchor/window/match_index/query arguments)"},
    "start": {"type": "integer", "minimum": 0}, "length": {"type": "integer", "minimum": 1},
    "anchor": {"type": "string"}, "window": {"type": "integer", "minimum": 1}, "match_index": {"type": "integer"},
    "query": {"type": "string"}, "max_snippets": {"type": "integer", "minimum": 1, "maximum": 100}
  },
  "required": ["action"]
}`),
	Annotations: &protocol.ToolAnnotations{ReadOnlyHint: boolp(true), OpenWorldHint: boolp(false)},
}
