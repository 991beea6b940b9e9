package e2e

import (
	"strings"
	"testing"
)

// TestHandsCustomSelect selects in an ARIA custom select written without a
// library (testdata/hands/listbox.html: a button that opens the listbox it
// controls), which the Shoelace and Material tests cover only where their
// npm packages are installed: select clicks it open, clicks the option and
// sees it taken (extension/actions/combobox.js, in the page's DOM runtime);
// fill_form does the same; an option it lacks fails bad_option naming those
// it has, and a disabled one fails disabled.
func TestHandsCustomSelect(t *testing.T) {
	e := ready(t)
	e.open("/hands/listbox.html")

	if r := e.ok("select", map[string]any{"role": "button", "name": "Fruit", "values": []string{"Banana"}}); jsonOf(r["selected"]) != `["Banana"]` {
		t.Errorf("select answered %v, want selected [\"Banana\"]", r)
	}
	if got := e.pageText("#picked", nil); got != "Picked: banana" {
		t.Errorf("after select the page says %q, want %q", got, "Picked: banana")
	}
	r := e.ok("fill_form", map[string]any{"fields": []map[string]any{{"target": "#fruit", "value": "Apple"}}})
	if got := jsonOf(r["fields"]); !strings.Contains(got, `"selected":["Apple"]`) {
		t.Errorf("fill_form answered %s, want the option Apple selected", got)
	}
	if got := e.pageText("#picked", nil); got != "Picked: apple" {
		t.Errorf("after fill_form the page says %q, want %q", got, "Picked: apple")
	}
	// The disabled option first: its failure leaves the list open, which
	// the next select's click closes again.
	e.fails("select", map[string]any{"selector": "#fruit", "values": []string{"Cherry"}}, "disabled")
	if msg := e.fails("select", map[string]any{"selector": "#fruit", "values": []string{"Mango"}}, "bad_option"); !strings.Contains(msg, `"Apple"`) || !strings.Contains(msg, `"Banana"`) {
		t.Errorf("an option the select lacks fails without naming its options: %s", msg)
	}
}
