package e2e

import (
	"regexp"
	"testing"
)

// TestPageSeesNoAgentAtWork: a page listens, from its first script, on
// window and document for every event type gasoline has dispatched between
// its worlds, while the agent arms a prompt's answer with a text, clicks
// with a dialog answer of its own and runs a script. The page gets its
// answers and hears nothing; its window holds no gasoline name but the
// saved built-ins of execute_js (__gasolinePristine, not yet moved out of
// the page's reach).
func TestPageSeesNoAgentAtWork(t *testing.T) {
	e := ready(t)
	e.open("/hands/quiet.html")

	e.ok("dialog", map[string]any{"dialog": "accept", "text": "Ada"})
	e.ok("click", map[string]any{"text": "Name yourself"})
	e.ok("click", map[string]any{"text": "Delete it", "dialog": "accept"})
	e.ok("click", map[string]any{"text": "Name yourself", "dialog": "accept"})
	complete(t, e.js(`document.title`, nil))

	if log := e.pageText("#log", nil); log != "prompt Ada\nconfirm true\nprompt nobody\n" {
		t.Errorf("the page logged %q, want the agent's answers", log)
	}
	s := e.pageSession(e.site.URL + "/hands/quiet.html")
	var heard []string
	if err := s.Evaluate(e.ctx, `heard`, &heard); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 0 {
		t.Errorf("the page heard %q while the agent acted, want nothing", heard)
	}
	var names []string
	if err := s.Evaluate(e.ctx, `Object.getOwnPropertyNames(window)`, &names); err != nil {
		t.Fatal(err)
	}
	ours := regexp.MustCompile(`(?i)gasoline`)
	for _, n := range names {
		if ours.MatchString(n) && n != "__gasolinePristine" {
			t.Errorf("the page's window holds %q", n)
		}
	}
}
