package tools

import "github.com/gasoline-mcp/gasoline/pkg/protocol"

// observe reads what gasoline knows. Its modes, in tools/list order, are
// declared by family: observe_commands.go, observe_capture.go.
var observe = tool{
	name:  "observe",
	key:   "what",
	title: "Read results and command state",
	// The capture modes' common filters (tab_id, text, url, limit) are
	// left to the schema; the two that are not obvious are said here.
	preamble:    `Read what gasoline knows. Page modes: since:next_cursor reads on; id: one entry in full; your tabs only unless tabs:"all".`,
	label:       "what",
	annotations: protocol.ToolAnnotations{ReadOnlyHint: boolp(true), IdempotentHint: boolp(true), OpenWorldHint: boolp(false)},
	families:    []func() []action{commandModes, captureModes},
}

// configure reports status and changes settings. Its actions, in
// tools/list order, are declared by family: configure_status.go,
// configure_capture.go, configure_store.go.
var configure = tool{
	name:        "configure",
	key:         "action",
	title:       "Status and settings",
	preamble:    "Status and settings.",
	label:       "action",
	annotations: protocol.ToolAnnotations{ReadOnlyHint: boolp(false), IdempotentHint: boolp(false), OpenWorldHint: boolp(false)},
	families:    []func() []action{statusActions, captureActions, storeActions},
}

func boolp(b bool) *bool { return &b }
