// Package result owns what an extension reports about a command, from its
// post to where it is kept and how it is read back: it cleans the report,
// decides whether the result is kept inline in the tracker or stored in the
// output store (large outputs: internal/output; docs/agent-guide.md,
// "Large results"), records it in the tracker,
// and undoes the store write when the tracker refuses the report. The crops
// of a finished draw-mode session and the network bodies an agent reads
// into the store go through it too; nothing else writes the output store,
// and every read by id applies its one ownership rule (Keeper.Open).
package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// MaxFailedResult bounds the result kept with an error or timeout report;
// a larger one is replaced by a note saying so (only complete results are
// stored).
const MaxFailedResult = 64 << 10

// maxMeta bounds each field kept beside a stored string (tab_id, url).
const maxMeta = 2048

// Stored is the attachment (tracker.Command.Attachment) of a complete
// result kept in the output store instead of inline: the command then
// carries no Result, and its content is read back by id.
type Stored struct {
	Handle output.Handle
	// Meta holds the small fields that came beside a string result
	// ({"value": "<html>…", "tab_id": 3, "url": "…"}), at most 2 KB each.
	Meta map[string]json.RawMessage
	// Landmark is the first of "<form", "<body", "<main" the content holds,
	// or "": a good anchor to suggest for a slice.
	Landmark string
}

// Keeper owns every reported result. Its methods are safe for concurrent
// use. Create it with NewKeeper.
type Keeper struct {
	trk   *tracker.Tracker
	store *output.Store // nil keeps every result inline
	log   zerolog.Logger

	owners owners // who owns each stored output, the tabs each client acted in
}

// NewKeeper returns a Keeper recording into trk and storing large results
// in store; a nil store keeps every result inline.
func NewKeeper(trk *tracker.Tracker, store *output.Store, log zerolog.Logger) *Keeper {
	return &Keeper{trk: trk, store: store, log: log}
}

// Report applies an extension's post about a command as tracker.Report
// does, with the same errors. First it replaces invalid UTF-8 in every
// field, so that what reaches an agent is valid text however it is read.
// A complete result whose content (see Content) is above the inline
// threshold goes to the output store and the command keeps a *Stored
// attachment instead; this happens only for a command still waiting for its
// result, and the stored output is deleted again if the tracker refuses the
// report. The whole list of what an action changed goes to the store apart
// (keepChanged), undone as well when the report is refused. An error or
// timeout result above MaxFailedResult is replaced by a note.
func (k *Keeper) Report(instance string, qr apitype.QueryResult) (tracker.Command, error) {
	result := validJSONText(qr.Result)
	errMsg := strings.ToValidUTF8(qr.Error, "\uFFFD")
	id := strings.ToValidUTF8(qr.CorrelationID, "\uFFFD")
	status := tracker.State(qr.Status)

	var stored *Stored
	changedID := ""
	if status == tracker.StateComplete {
		result, changedID = k.keepChanged(id, result) // the whole list of what it changed, stored apart
	}
	switch {
	case status == tracker.StateComplete && k.store != nil && len(result) > 0:
		var err error
		if stored, err = k.storeLarge(id, result); err != nil {
			if changedID != "" {
				k.store.Delete(changedID)
			}
			return tracker.Command{}, err
		}
		if stored != nil {
			result = nil
		}
	case len(result) > MaxFailedResult:
		result, _ = json.Marshal(droppedResult{
			Dropped: true, Bytes: len(result),
			Note: fmt.Sprintf("the result posted with status %q was %d bytes; only complete results above %d bytes are kept", qr.Status, len(result), MaxFailedResult),
		})
	}
	var attachment any
	if stored != nil {
		attachment = stored
	}
	cmd, err := k.trk.ReportReason(instance, id, status, qr.Reason, result, attachment, errMsg)
	if err != nil && stored != nil {
		k.store.Delete(id) // refused: the stored output must not outlive this report
	}
	if err != nil && changedID != "" {
		k.store.Delete(changedID)
	}
	if err == nil && status == tracker.StateComplete {
		k.noteTab(cmd, result, stored)
	}
	if err == nil && status == tracker.StatePending && qr.WaitingForUser != nil {
		cmd = k.trk.WaitingForUser(id, strings.ToValidUTF8(*qr.WaitingForUser, "\uFFFD"))
	}
	if err == nil && status == tracker.StatePending && qr.WaitingOn != nil {
		cmd = k.trk.WaitingOn(id, strings.ToValidUTF8(*qr.WaitingOn, "\uFFFD"))
	}
	return cmd, err
}

// droppedResult replaces a failed command's oversize result.
type droppedResult struct {
	Dropped bool   `json:"dropped"`
	Bytes   int    `json:"bytes"`
	Note    string `json:"note"`
}

// storeLarge stores the content of result for command id when it is above
// the inline threshold and the command still waits for its result. It
// returns nil when the result stays inline: small, a late or unknown report,
// or a store that refuses. When the store already holds an output for id,
// another complete post of the command is being applied (a duplicate sent
// at the same time): this one fails with tracker.ErrFinal, since letting it
// go on inline could make it win the tracker's race with a result that is
// neither stored nor the one the store holds.
func (k *Keeper) storeLarge(id string, result json.RawMessage) (*Stored, error) {
	// Content's text has no more characters than result has bytes (each
	// decodes from one byte or more), so a result that fits needs no
	// Content (issue 33).
	if len(result) < 4*256 || k.store.Fits(len(result)) { // far under any threshold, or under this store's
		return nil, nil
	}
	cur, err := k.trk.Get(id)
	if err != nil || cur.State != tracker.StatePending {
		return nil, nil
	}
	content, meta := Content(result)
	if !k.store.Oversize(content) {
		return nil, nil
	}
	h, err := k.store.Add(id, content)
	if errors.Is(err, output.ErrExists) {
		return nil, fmt.Errorf("%w: another complete report of command %s is being applied", tracker.ErrFinal, id)
	}
	if err != nil {
		k.log.Warn().Err(err).Str("correlation_id", id).Msg("storing large output failed; keeping it inline")
		return nil, nil
	}
	k.own(id, cur.Client)
	k.log.Debug().Str("correlation_id", id).Int("chars", h.Chars).Int("estimated_tokens", h.EstimatedTokens).Msg("large output stored")
	return &Stored{Handle: h, Meta: meta, Landmark: landmark(content)}, nil
}

// landmarks are anchors worth suggesting for a slice of a page, best first.
var landmarks = []string{"<form", "<body", "<main"}

func landmark(content string) string {
	for _, l := range landmarks {
		if strings.Contains(content, l) {
			return l
		}
	}
	return ""
}

// StoredOf returns the stored output of c when its result was stored when
// it was reported.
func StoredOf(c tracker.Command) (*Stored, bool) {
	s, ok := c.Attachment.(*Stored)
	return s, ok && s != nil
}

// Chars is the size of c's result in characters of its content: the stored
// output's, or the inline result's length.
func Chars(c tracker.Command) int {
	if s, ok := StoredOf(c); ok {
		return s.Handle.Chars
	}
	return len(c.Result)
}

// Readable makes c's output readable by id in the output store, so that
// every read mode works on every result: a stored output is there already;
// an inline one is stored now (as Content gives it) unless the store holds
// it, and owned by c's client. It fails with ErrNoStore, or when the store
// refuses.
func (k *Keeper) Readable(c tracker.Command) error {
	if k.store == nil {
		return ErrNoStore
	}
	if _, ok := StoredOf(c); ok {
		return nil
	}
	if _, err := k.store.Handle(c.ID); err == nil {
		return nil
	}
	content, _ := Content(c.Result)
	_, err := k.Put(c.Client, c.ID, content)
	return err
}

// Put stores content under id for client (replacing an earlier copy and
// its owner), as output.Store.Put does: a network body read into the
// store, say. It fails with ErrNoStore when there is no store.
func (k *Keeper) Put(client, id, content string) (output.Handle, error) {
	if k.store == nil {
		return output.Handle{}, ErrNoStore
	}
	h, err := k.store.Put(id, content)
	if err == nil {
		k.own(id, client)
	}
	return h, err
}

// Content returns the text to store and read for a result: the string
// itself when the result is a string, bare or in an envelope (the
// extension's {"value": "…", …}, seed 000's {"success": true, "data":
// "…"}), with the envelope's other small fields as meta; else the result's
// JSON text and no meta.
func Content(result json.RawMessage) (text string, meta map[string]json.RawMessage) {
	trimmed := bytes.TrimSpace(result)
	if len(trimmed) == 0 {
		return string(result), nil
	}
	switch trimmed[0] {
	case '"':
		var s string
		if json.Unmarshal(trimmed, &s) == nil {
			return s, nil
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(trimmed, &obj) != nil {
			break
		}
		key := "value"
		if _, ok := obj["success"]; ok {
			if _, ok := obj["value"]; !ok {
				key = "data"
			}
		}
		raw, ok := obj[key]
		if !ok || len(raw) == 0 || raw[0] != '"' {
			break
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			break
		}
		delete(obj, key)
		meta = make(map[string]json.RawMessage, len(obj))
		for k, v := range obj {
			if len(v) <= maxMeta {
				meta[k] = v
			}
		}
		return s, meta
	}
	return string(result), nil
}

// validJSONText returns b with every invalid UTF-8 sequence replaced by
// U+FFFD. In valid JSON such bytes can only stand inside strings, so the
// result stays valid JSON; a valid b is returned as is.
func validJSONText(b json.RawMessage) json.RawMessage {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}
