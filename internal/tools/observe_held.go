package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// The origin rule holds capture (issue 29): what pages of origins neither
// local nor allowed by the user captured stays in the browser
// (extension/origins/held.js), which reports it with each poll
// (capture.Store.Held). A capture read of a tab with something held, named
// by tab_id or one of the caller's own tabs, first asks the extension for
// it with a release_capture command, which the extension runs only once
// the user allowed the origin in its prompt (the command waits as
// waiting_for_user meanwhile) and which answers once what was held reached
// the daemon. A read of every tab asks nobody: the user's other tabs pop
// no prompt, and the answer says what is held.

// releaseParams are the params of the release_capture command: send what
// is held of tab tab_id's origin.
type releaseParams struct {
	TabID int64 `json:"tab_id" required:"true"`
}

// heldView is a capture read's answer while the user is asked: the
// release_capture command's handle.
type heldView struct {
	Status        string `json:"status"`
	Phase         string `json:"phase,omitempty"`
	CorrelationID string `json:"correlation_id"`
	Message       string `json:"message"`
}

func (v *heldView) command() string { return v.CorrelationID }

// heldTabs returns what is held of the tabs a read names: tab, else the
// caller's own tabs (sc.tabs); none for a read of every tab.
func (t *Tools) heldTabs(tab *int64, sc tabScope) []apitype.HeldCapture {
	var out []apitype.HeldCapture
	for _, h := range t.d.Capture.Held() {
		if h.Events+h.Dropped == 0 {
			continue
		}
		if (tab != nil && h.TabID == *tab) || (tab == nil && sc.tabs != nil && slices.Contains(sc.tabs, h.TabID)) {
			out = append(out, h)
		}
	}
	return out
}

// heldNote says what the extension holds of origins the user has not
// allowed, for a read that covered other tabs than those held (a read of
// every tab, or of the user's): "" when nothing is held.
func (t *Tools) heldNote(sc tabScope) string {
	events, dropped, origins, tabs := 0, 0, []string{}, []int64{}
	for _, h := range t.d.Capture.Held() {
		if h.Events+h.Dropped == 0 || slices.Contains(sc.except, h.TabID) || (sc.tabs != nil && !slices.Contains(sc.tabs, h.TabID)) {
			continue
		}
		events += h.Events
		dropped += h.Dropped
		if !slices.Contains(origins, h.Origin) {
			origins = append(origins, h.Origin)
		}
		if !slices.Contains(tabs, h.TabID) {
			tabs = append(tabs, h.TabID)
		}
	}
	if events+dropped == 0 {
		return ""
	}
	note := fmt.Sprintf("%d more entries of %d origin(s) the user has not allowed agents on (%s) are held in the browser; a read with tab_id (tabs %v) asks the user to allow them",
		events, len(origins), strings.Join(origins[:min(len(origins), 3)], ", "), tabs[:min(len(tabs), 5)])
	if dropped > 0 {
		note += fmt.Sprintf(" (%d older ones did not fit and count as dropped)", dropped)
	}
	return note
}

// releaseHeld asks the extension for what it holds of held (tabs a read
// names), one release_capture command per tab, each waiting up to
// InlineWait. It returns nil once all of it reached the daemon; a
// heldView when the user has not answered yet; the origin_not_allowed
// tool error when they denied it or did not answer in time.
func (t *Tools) releaseHeld(ctx context.Context, client string, held []apitype.HeldCapture) (any, error) {
	seen := map[int64]bool{}
	for _, h := range held {
		if seen[h.TabID] {
			continue
		}
		seen[h.TabID] = true
		enc, err := json.Marshal(releaseParams{TabID: h.TabID})
		if err != nil {
			return nil, err
		}
		res, err := t.submit(ctx, tracker.Spec{Client: client, Prefix: "release", Action: apitype.ActionReleaseCapture, Params: enc}, max(t.d.InlineWait, 0), false)
		if err != nil {
			return nil, err
		}
		switch v := res.(type) {
		case *commandView:
			if v.Status == "complete" {
				// What the extension released: its tab's origin now, which the
				// next report no longer lists either.
				t.d.Capture.Released(v.Result)
				continue
			}
			if v.Reason == tracker.ReasonOriginNotAllowed {
				return nil, mcp.Errorf(tracker.ReasonOriginNotAllowed, hints[tracker.ReasonOriginNotAllowed],
					"%d captured entries of tab %d (%s) are held in the browser: %s", h.Events, h.TabID, h.Origin, v.Error)
			}
			return nil, mcp.Errorf("not_released", "read again; if it keeps failing, configure({action:\"health\"}) shows the extension's state",
				"the browser holds %d captured entries of tab %d (%s) and could not hand them over: %s", h.Events, h.TabID, h.Origin, v.Error)
		case *queuedView:
			return &heldView{Status: v.Status, Phase: v.Phase, CorrelationID: v.CorrelationID,
				Message: fmt.Sprintf("The browser holds %d captured entries of tab %d (%s), an origin the user has not allowed agents on, and asks the user now. "+
					"Wait with observe({what:\"command_result\", correlation_id:%q, wait_ms:30000}) (the user has %s to answer); once it completes, read again. "+
					"It fails with origin_not_allowed if they deny it.", h.Events, h.TabID, h.Origin, v.CorrelationID, tracker.UserAnswerWindow)}, nil
		default:
			return res, nil
		}
	}
	return nil, nil
}
