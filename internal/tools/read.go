package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/protocol"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Results above the inline threshold are kept in the output store and the
// command carries only their handle (package result; docs/agent-guide.md,
// "Large results"); the
// read modes of command_result read any command's output by id. This file
// renders what agents see of both: the handle with a ready-to-use hint, and
// the read results.

// readArgs are command_result's read-mode arguments.
type readArgs struct {
	Mode        string `json:"mode" enum:"raw,slice,extract" desc:"raw: whole, small only"`
	Start       *int   `json:"start" min:"0" use:"slice" desc:"first char"`
	Length      int    `json:"length" min:"1" use:"slice" desc:"chars (2000)"`
	Anchor      string `json:"anchor" use:"slice" desc:"text to center on"`
	Window      int    `json:"window" min:"1" use:"slice" desc:"chars around it (2000)"`
	MatchIndex  int    `json:"match_index" use:"slice" desc:"0 first, -1 last"`
	Query       string `json:"query" use:"extract" desc:"what to find, in plain words"`
	MaxSnippets int    `json:"max_snippets" min:"1" max:"100" use:"extract" desc:"(20)"`
}

var readModes = []string{"raw", "slice", "extract"}

// storedView is the result of a command whose output is stored.
type storedView struct {
	Stored bool       `json:"stored"`
	Output handleView `json:"output"`
	// ResourceLink is the MCP resource the whole output can be read as
	// (resources/read), for clients that attach resources.
	ResourceLink protocol.Resource `json:"resource_link"`
	// Meta keeps the small fields that came beside a string result (tab_id, url).
	Meta map[string]json.RawMessage `json:"meta,omitempty"`
}

// handleView is a stored output's handle and how to read it.
type handleView struct {
	output.Handle
	Hint string `json:"hint"`
}

func storedViewOf(id, title string, s *result.Stored) storedView {
	return storedView{Stored: true, Output: handleView{Handle: s.Handle, Hint: readHint(id, s)}, ResourceLink: outputLink(id, title, s), Meta: s.Meta}
}

// readHint teaches how to read the stored output s of command id, with a
// ready-to-use call.
func readHint(id string, s *result.Stored) string {
	h := s.Handle
	var hint string
	if len(h.Modes) > 0 && h.Modes[0] == "raw" {
		hint = fmt.Sprintf(`Read it whole with observe({what:"command_result", correlation_id:%q, mode:"raw"}); mode "slice" and mode "extract" work too.`, id)
	} else {
		example := fmt.Sprintf(`mode:"slice", start:0, length:%d`, output.DefaultSliceChars)
		if s.Landmark != "" {
			example = fmt.Sprintf(`mode:"slice", anchor:%q, window:%d`, s.Landmark, output.DefaultSliceChars)
		}
		hint = fmt.Sprintf(`Too large to return whole (%d chars, ~%d tokens): read a part with observe({what:"command_result", correlation_id:%q, %s}) or ask mode:"extract" with query:"<what you need>"; every piece comes back verbatim with its char offsets.`,
			h.Chars, h.EstimatedTokens, id, example)
	}
	if h.Truncated {
		hint += fmt.Sprintf(" Only the first %d of %d bytes were kept (per-output cap).", h.Bytes, h.OriginalBytes)
	}
	return hint
}

// rawView is a command's output read whole.
type rawView struct {
	Chars         int    `json:"chars"`
	Content       string `json:"content"`
	CorrelationID string `json:"correlation_id"`
	Mode          string `json:"mode"`
	SHA256        string `json:"sha256"`
}

func (v *rawView) command() string { return v.CorrelationID }

// sliceView is a slice of a command's output.
type sliceView struct {
	CorrelationID string `json:"correlation_id"`
	Mode          string `json:"mode"`
	output.SliceResult
}

func (v *sliceView) command() string { return v.CorrelationID }

// extractView is what extraction found in a command's output.
type extractView struct {
	CorrelationID string `json:"correlation_id"`
	Mode          string `json:"mode"`
	output.ExtractResult
}

func (v *extractView) command() string { return v.CorrelationID }

// readOutput serves command_result with a mode: the command's output read
// whole, by slice or by extraction. Stored outputs outlive the command's
// retention (they live under the store's byte budget); an inline result is
// stored on first read so every mode works on every result.
func (t *Tools) readOutput(ctx context.Context, client, id string, r readArgs) (any, error) {
	switch r.Mode {
	case "raw":
		text, h, err := t.d.Results.Raw(client, id)
		if err != nil {
			return nil, outputError(id, err)
		}
		return &rawView{CorrelationID: id, Mode: "raw", Content: text, Chars: h.Chars, SHA256: h.SHA256}, nil
	case "slice":
		res, err := t.d.Results.Slice(client, id, output.SliceRequest{Start: r.Start, Length: r.Length, Anchor: r.Anchor, Window: r.Window, MatchIndex: r.MatchIndex})
		if err != nil {
			return nil, outputError(id, err)
		}
		return &sliceView{CorrelationID: id, Mode: "slice", SliceResult: res}, nil
	case "extract":
		res, err := t.d.Results.Extract(ctx, client, id, output.ExtractRequest{Query: r.Query, MaxSnippets: r.MaxSnippets})
		if err != nil {
			return nil, outputError(id, err)
		}
		return &extractView{CorrelationID: id, Mode: "extract", ExtractResult: res}, nil
	default:
		return nil, unknownChoice("mode", r.Mode, readModes)
	}
}

// errUnknownID is the one answer to an id the caller may not read:
// unknown, expired, or another agent's (which must not tell them apart,
// so that ids do not leak).
func errUnknownID(id string) error {
	return mcp.Errorf("unknown_correlation_id",
		`check the id; finished results are kept for a limited time, observe({what:"failed_commands"}) lists expired ones, and only the agent that ran a command reads it`,
		"%v: %s is not a command or stored output of yours", tracker.ErrUnknownCommand, id)
}

// outputError turns the errors of reading output id (result.Keeper's,
// the store's) into tool errors that say what to do next.
func outputError(id string, err error) error {
	code, hint := "output_error", ""
	if nc, ok := errors.AsType[*result.NotCompleteError](err); ok {
		return mcp.Errorf("no_output", "read its status with observe({what:\"command_result\", correlation_id}) (no mode)",
			"command %s is %s and has no output to read", id, publicStatus(nc.Command))
	}
	switch {
	case errors.Is(err, result.ErrUnknown):
		return errUnknownID(id)
	case errors.Is(err, result.ErrNoStore):
		return mcp.Errorf("not_available", "", "this daemon keeps no output store")
	case errors.Is(err, output.ErrTooLarge):
		code, hint = "output_too_large", `read it with mode "slice" (start+length, or anchor+window) or mode "extract" (query)`
	case errors.Is(err, output.ErrEvicted) && strings.HasPrefix(id, bodyHandlePrefix):
		code, hint = "output_evicted", `read the body again with observe({what:"network", id, body}) for a fresh handle`
	case errors.Is(err, output.ErrEvicted) && annotate.IsCropHandle(id):
		code, hint = "output_evicted", `the crop was dropped under the output memory budget; see the page with interact({action:"screenshot"}) instead`
	case errors.Is(err, output.ErrEvicted):
		code, hint = "output_evicted", "run the command again for a fresh result"
	case errors.Is(err, output.ErrNotFound):
		code, hint = "output_not_found", "check the correlation id"
	case errors.Is(err, output.ErrAnchorNotFound):
		code, hint = "anchor_not_found", "try another anchor, a match_index within the matches, or mode \"extract\""
	case errors.Is(err, output.ErrBadRequest):
		code, hint = "invalid_arguments", "check start, length, window, match_index and query"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &mcp.ToolError{Code: code, Message: err.Error(), Hint: hint}
}
