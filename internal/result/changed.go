package result

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// What an action changed on the page (effects.changed) comes in a few
// tokens; when more changed than that holds, the extension sends the whole
// list beside it (effects.changed.all: a line an item, at most 64 K
// characters, extension/actions/changed/summary.js). The Keeper takes it
// out of the result before the result is kept, stores it as an output of its own,
// owned by the command's client, and effects.changed names it in rest: a
// typical action's result is as small as before, and the rest is read with
// the read modes every stored output has (command_result raw, slice,
// extract; resources/read), its text fenced as all page text is.

// ChangedSuffix names the stored whole list of what an action changed: the
// action's correlation id and this suffix.
const ChangedSuffix = ".changed"

// ChangedRest is effects.changed.rest: where the whole list is.
type ChangedRest struct {
	// CorrelationID is the stored list's id, for command_result's read modes.
	CorrelationID string `json:"correlation_id"`
	// Chars is the list's size in characters.
	Chars int `json:"chars"`
	// Read says how to read it.
	Read string `json:"read"`
}

// changedRead is ChangedRest.Read.
const changedRead = "observe command_result, mode raw, slice or extract"

// changedAll is how the whole list begins in a result: a fast test before
// decoding, which most results skip.
var changedAll = []byte(`"all":`)

// keepChanged takes the whole list of what command id changed out of
// result (effects.changed.all) and stores it under id+ChangedSuffix, owned
// by the command's client; effects.changed.rest then says where it is. It
// returns the result to keep and the id it stored ("" when it stored
// nothing: the caller deletes it if the report is refused). A result
// without the list is returned as is. Without a store, for a command no
// longer waiting for its result, or when the store refuses, the list is
// dropped and more still counts what effects.changed left out.
func (k *Keeper) keepChanged(id string, result json.RawMessage) (json.RawMessage, string) {
	if !bytes.Contains(result, changedAll) {
		return result, ""
	}
	var res, effects, changed map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil || json.Unmarshal(res["effects"], &effects) != nil ||
		json.Unmarshal(effects["changed"], &changed) != nil {
		return result, ""
	}
	var all string
	if json.Unmarshal(changed["all"], &all) != nil {
		return result, ""
	}
	delete(changed, "all")
	stored := ""
	if cur, err := k.trk.Get(id); err == nil && cur.State == tracker.StatePending && k.store != nil && all != "" {
		hid := id + ChangedSuffix
		h, err := k.store.Add(hid, all)
		switch {
		case errors.Is(err, output.ErrExists): // a duplicate report: the first one's list stays
			h, err = k.store.Handle(hid)
		case err == nil:
			k.own(hid, cur.Client)
			stored = hid
		}
		if err != nil {
			k.log.Warn().Err(err).Str("correlation_id", id).Msg("storing the whole list of what an action changed failed; effects.changed only counts the rest")
		} else {
			changed["rest"] = encode(ChangedRest{CorrelationID: hid, Chars: h.Chars, Read: changedRead})
		}
	}
	effects["changed"] = encode(changed)
	res["effects"] = encode(effects)
	return encode(res), stored
}

// encode is json.Marshal without escaping <, > and & (page text is full of
// them, and each escape costs tokens); v is a map or struct of valid JSON,
// which never fails to encode.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
