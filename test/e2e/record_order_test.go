//go:build unix

package e2e

import (
	"fmt"
	"testing"
	"time"
)

// TestRecordedActionsKeepOrder: the recorder checks a locator's uniqueness
// after the click (when the page is idle), yet observe actions still reads
// the user's click before the pushState navigation its handler made, and
// the click on a button its handler removed from the page is recorded, with
// the CSS path the button had.
func TestRecordedActionsKeepOrder(t *testing.T) {
	e := ready(t)
	p := e.openPage(e.site.URL + "/record/spa.html")
	p.click(`#next`)
	p.click(`#gone`)

	o := e.observeUntil(map[string]any{"what": "actions", "limit": 100}, 15*time.Second, func(o observed) error {
		for _, a := range o.Entries {
			if a.str("type") == "click" && a.str("name") == "Dismiss" {
				return nil
			}
		}
		return fmt.Errorf("no click on Dismiss yet")
	})
	var got []string
	var gone ev
	for _, a := range o.Entries {
		switch a.str("type") {
		case "click":
			got = append(got, "click "+a.str("name"))
			if a.str("name") == "Dismiss" {
				gone = a
			}
		case "pushState":
			got = append(got, "pushState "+a.str("to"))
		}
	}
	want := []string{"click Next", "pushState " + e.site.URL + "/record/spa/step-2", "click Dismiss"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the timeline is %q, want %q\n%s", got, want, o.Raw)
	}
	if loc, _ := gone["locator"].(map[string]any); loc["by"] != "css" || loc["selector"] != "#gone" {
		t.Errorf("the removed button's locator is %v, want its CSS path #gone", gone["locator"])
	}
}
