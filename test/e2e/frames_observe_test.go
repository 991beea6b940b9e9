//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// framesNote is the frames note of a capture read's answer ("" when absent).
func framesNote(t *testing.T, o observed) string {
	t.Helper()
	var v struct {
		Frames string `json:"frames"`
	}
	if err := json.Unmarshal([]byte(o.Raw), &v); err != nil {
		t.Fatal(err)
	}
	return v.Frames
}

// TestFramesCapturedFromAnAgentsObserve: an agent whose first calls are
// reads (observe errors, while the user reproduces a bug) puts the
// extension at work as a command does: the daemon reports its tool call in
// the poll answer, so an iframe of a page the user opens afterwards is
// captured from its start without any command, and the iframes of pages
// already open get the capture then, so they are watched from then on
// (what they did before is not). The reads say honestly
// when iframes were not watched: "not captured until now" before the extension
// switched, "captured only since" for a read reaching back before the
// switch, and nothing for a read within it.
func TestFramesCapturedFromAnAgentsObserve(t *testing.T) {
	e := ready(t)
	pages := modeSite(t)
	e.popupFrames(false)
	idle := e.openPage(pages.URL + "/top?n=idle") // the user's page, loaded while no agent works

	first := e.observe(map[string]any{"what": "errors"})
	if note := framesNote(t, first); !strings.Contains(note, "not captured until now") {
		t.Errorf("the agent's first read, extension idle: frames note %q, want \"not captured until now\"\n%s", note, first.Raw)
	}
	// The held poll answers at the agent's call; the extension switches and reports it in its next poll.
	at := e.observeUntil(map[string]any{"what": "logs", "text": "top loaded idle"}, 40*time.Second, func(o observed) error {
		if note := framesNote(t, o); !strings.Contains(note, "captured only since") {
			return fmt.Errorf("frames note %q, want \"captured only since\" (a read from the oldest entry, before the switch)", note)
		}
		return nil
	})
	e.popupFrames(true)

	// At work every frame is captured: the iframe that loaded idle got the
	// scripts when the extension went to work, with no command to its tab.
	logged := 0
	later := e.observeUntil(map[string]any{"what": "logs", "text": "frame later idle", "since": at.NextCursor}, 20*time.Second, func(o observed) error {
		if len(o.Entries) > 0 {
			return nil
		}
		logged++
		idle.eval(fmt.Sprintf(`document.getElementById("f").contentWindow.eval('console.log("frame later idle %d"); true')`, logged), nil)
		return fmt.Errorf("the idle-loaded iframe's log is not captured yet")
	})
	if later.Entries[0].num("frame_id") == 0 {
		t.Errorf("the idle-loaded iframe's log has frame_id 0: %v", later.Entries[0])
	}
	if note := framesNote(t, later); note != "" {
		t.Errorf("a read after the switch, the idle-loaded iframe captured: frames note %q, want none\n%s", note, later.Raw)
	}

	// No command: the user opens another page; its iframe's load-time error is captured.
	e.openPage(pages.URL + "/top?n=work")
	errs := e.observeUntil(map[string]any{"what": "errors", "since": at.NextCursor}, 20*time.Second, func(o observed) error {
		if !strings.Contains(o.Raw, "frame threw work") {
			return fmt.Errorf("the iframe's load-time error is not in yet")
		}
		return nil
	})
	if note := framesNote(t, errs); note != "" {
		t.Errorf("a read after the switch has frames note %q, want none\n%s", note, errs.Raw)
	}
	if strings.Contains(e.observe(map[string]any{"what": "errors", "limit": 50}).Raw, "frame threw idle") {
		t.Errorf("the iframe that loaded while no agent worked had its load-time error captured")
	}
}
