package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Results above the inline threshold are kept in the output store and the
// tracker holds only a small handle in their place (SPEC section 6). The
// stored content is what an agent wants to read: the string itself when the
// result is {"value": "<string>", ...} (a page's HTML, a log), else the
// result's JSON text.

// storedResult is the result the tracker keeps for a stored output.
type storedResult struct {
	Stored bool          `json:"stored"`
	Output output.Handle `json:"output"`
	// Meta keeps the small fields of an {"value": ...} result (tab_id, url).
	Meta map[string]json.RawMessage `json:"meta,omitempty"`
}

// IngestResult returns the result to record for command id: result itself
// when it is small, else a handle to the content now in the output store.
// When it stored something, undo removes it again: the caller must call it
// if the tracker then refuses the report, so no output outlives a command
// that did not complete with it. It never fails the report: when the store
// refuses (or already holds an output for id, from a duplicate post), the
// result is kept as is and undo is nil.
func (t *Tools) IngestResult(id string, result json.RawMessage) (recorded json.RawMessage, undo func()) {
	if t.d.Output == nil || len(result) < 4*256 { // far under any threshold
		return result, nil
	}
	content, meta := contentOf(result)
	if !t.d.Output.Oversize(content) {
		return result, nil
	}
	h, err := t.d.Output.Add(id, content)
	if err != nil {
		if !errors.Is(err, output.ErrExists) {
			t.d.Log.Warn().Err(err).Str("correlation_id", id).Msg("storing large output failed; keeping it inline")
		}
		return result, nil
	}
	b, err := json.Marshal(storedResult{Stored: true, Output: h, Meta: meta})
	if err != nil {
		t.d.Output.Delete(id)
		return result, nil
	}
	t.d.Log.Debug().Str("correlation_id", id).Int("chars", h.Chars).Int("estimated_tokens", h.EstimatedTokens).Msg("large output stored")
	return b, func() { t.d.Output.Delete(id) }
}

// contentOf returns the readable content of a result and the small fields
// beside a string "value".
func contentOf(result json.RawMessage) (string, map[string]json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) == nil {
		if raw, ok := obj["value"]; ok && len(raw) > 0 && raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				delete(obj, "value")
				meta := map[string]json.RawMessage{}
				for k, v := range obj {
					if len(v) <= 2048 {
						meta[k] = v
					}
				}
				return s, meta
			}
		}
	}
	return string(result), nil
}

// stored decodes the handle of a stored result; ok is false for inline ones.
func stored(result json.RawMessage) (storedResult, bool) {
	if !bytes.HasPrefix(result, []byte(`{"stored":true`)) {
		return storedResult{}, false
	}
	var s storedResult
	return s, json.Unmarshal(result, &s) == nil && s.Stored
}

// resultChars is the size of a command's result in characters of content.
func resultChars(c tracker.Command) int {
	if s, ok := stored(c.Result); ok {
		return s.Output.Chars
	}
	return len(c.Result)
}

// readArgs are the retrieval arguments of command_result.
type readArgs struct {
	Mode        string `json:"mode"`
	Start       *int   `json:"start"`
	Length      int    `json:"length"`
	Anchor      string `json:"anchor"`
	Window      int    `json:"window"`
	MatchIndex  int    `json:"match_index"`
	Query       string `json:"query"`
	MaxSnippets int    `json:"max_snippets"`
}

var readModes = []string{"raw", "slice", "extract"}

// readOutput serves command_result with a mode: the command's output read
// whole, by slice or by extraction. Stored outputs outlive the command's
// retention (they live under the store's byte budget); a small result not
// yet stored is stored on first read so every mode works on every result.
func (t *Tools) readOutput(ctx context.Context, id string, raw json.RawMessage) (any, error) {
	var r readArgs
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, mcp.Errorf("invalid_arguments", "check the observe input schema", "invalid retrieval arguments: %v", err)
	}
	if t.d.Output == nil {
		return nil, mcp.Errorf("not_available", "", "this daemon keeps no output store")
	}
	switch r.Mode {
	case "raw", "slice", "extract":
	default:
		return nil, unknownChoice("mode", r.Mode, readModes)
	}
	c, terr := t.d.Tracker.Get(id)
	if terr == nil && c.Reason == tracker.ReasonResultExpired {
		// Its result retention ended unread; a stored output lives on under
		// the byte budget, so read it as if the tracker had forgotten it.
		terr = tracker.ErrUnknownCommand
	}
	switch {
	case terr == nil && c.State != tracker.StateComplete:
		return nil, mcp.Errorf("no_output", "read its status with observe({what:\"command_result\", correlation_id}) (no mode)",
			"command %s is %s and has no output to read", id, publicStatus(c))
	case terr == nil:
		if _, ok := stored(c.Result); !ok {
			// A small result: store it so every mode works on it too.
			content, _ := contentOf(c.Result)
			if _, err := t.d.Output.Put(id, content); err != nil {
				return nil, err
			}
		}
	case errors.Is(terr, tracker.ErrUnknownCommand):
		// Retention is over; a stored output lives on under the byte budget.
		if _, err := t.d.Output.Handle(id); errors.Is(err, output.ErrNotFound) {
			return nil, mcp.Errorf("unknown_correlation_id", "check the id; observe({what:\"completed_commands\"}) lists your finished commands", "%v", terr)
		}
	default:
		return nil, terr
	}
	t.d.Tracker.Result(id) // reading the output counts as reading the result
	switch r.Mode {
	case "raw":
		text, err := t.d.Output.Raw(id)
		if err != nil {
			return nil, outputError(err)
		}
		h, _ := t.d.Output.Handle(id)
		return map[string]any{"correlation_id": id, "mode": "raw", "content": text, "chars": h.Chars, "sha256": h.SHA256}, nil
	case "slice":
		res, err := t.d.Output.Slice(id, output.SliceRequest{Start: r.Start, Length: r.Length, Anchor: r.Anchor, Window: r.Window, MatchIndex: r.MatchIndex})
		if err != nil {
			return nil, outputError(err)
		}
		return toMap(res, "correlation_id", id, "mode", "slice")
	default:
		res, err := t.d.Output.Extract(ctx, id, output.ExtractRequest{Query: r.Query, MaxSnippets: r.MaxSnippets})
		if err != nil {
			return nil, outputError(err)
		}
		return toMap(res, "correlation_id", id, "mode", "extract")
	}
}

// outputError turns store errors into tool errors that say what to do next.
func outputError(err error) error {
	code, hint := "output_error", ""
	switch {
	case errors.Is(err, output.ErrTooLarge):
		code, hint = "output_too_large", `read it with mode "slice" (start+length, or anchor+window) or mode "extract" (query)`
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

// toMap turns v into a map (so the async decorator can add to it) with
// extra key/value pairs.
func toMap(v any, kv ...string) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", v, err)
	}
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decoding %T: %w", v, err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m, nil
}
