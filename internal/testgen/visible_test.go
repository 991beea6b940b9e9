package testgen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func shown(id uint64, ts int64, sel, text string) *capture.ActionView {
	return &capture.ActionView{Head: capture.Head{ID: id, TS: ts, PageURL: "http://x/"}, Type: "appeared", Selector: sel, Text: text}
}

func agentShown(id uint64, ts int64, sel, text string) *capture.ActionView {
	v := shown(id, ts, sel, text)
	v.Type = "agent_appeared"
	return v
}

func click(id uint64, ts int64, sel string) *capture.ActionView {
	return &capture.ActionView{Head: capture.Head{ID: id, TS: ts}, Type: "click", Selector: sel, Locator: &apitype.Locator{By: "css", Selector: sel}}
}

// visibleLine is the file's getByText assertion, or "".
func visibleLine(res Result) string {
	for _, l := range strings.Split(res.File, "\n") {
		if strings.Contains(l, "getByText(") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// TestVisibleTextChoice: the text asserted is what appeared after the last
// action that made some appear (keyed by its element), the shortest usable
// snippet, never numbers, times, redactions, and nothing once a later step
// navigated away from it.
func TestVisibleTextChoice(t *testing.T) {
	load := &capture.NavView{Head: capture.Head{ID: 1, TS: 1000}, Type: "load", To: "http://x/"}
	tests := []struct {
		name    string
		entries []capture.View
		agent   []AgentAction
		want    string // the assertion line, "" for none
	}{
		{"shortest usable snippet", []capture.View{load, click(2, 2000, "#go"),
			shown(3, 2400, "#go", "42\n12:30 PM\nWelcome back, Ada Lovelace\nSaved for [redacted]\nOrder placed")},
			nil, `await expect(page.getByText('Order placed', { exact: false })).toBeVisible();`},
		{"only numbers and times", []capture.View{load, click(2, 2000, "#go"), shown(3, 2400, "#go", "42\n2026-11-26 08:00\n3 %")}, nil, ""},
		{"no evidence", []capture.View{load, click(2, 2000, "#go")}, nil, ""},
		{"the last action's, not an earlier one's", []capture.View{load, click(2, 2000, "#a"), shown(3, 2400, "#a", "First result"),
			click(4, 3000, "#b"), shown(5, 3400, "#b", "Second result")}, nil,
			`await expect(page.getByText('Second result', { exact: false })).toBeVisible();`},
		{"gone after a later navigation", []capture.View{load, click(2, 2000, "#a"), shown(3, 2400, "#a", "First result"),
			click(4, 3000, "#b"), &capture.NavView{Head: capture.Head{ID: 5, TS: 3100}, Type: "load", To: "http://x/next"}}, nil, ""},
		{"the new page's heading after a navigation", []capture.View{load, click(2, 2000, "#a"),
			&capture.NavView{Head: capture.Head{ID: 3, TS: 2100}, Type: "load", To: "http://x/home"}, shown(4, 2500, "html", "Welcome, Ada")}, nil,
			`await expect(page.getByText('Welcome, Ada', { exact: false })).toBeVisible();`},
		{"a page's own text without a navigation is no action's", []capture.View{load, click(2, 2000, "#a"), shown(3, 2500, "html", "Welcome, Ada")}, nil, ""},
		{"the user's text, with the agent's action last: not asserted (it may have removed it)", []capture.View{load, click(2, 2000, "#a"), shown(3, 2600, "#a", "Submitted")},
			[]AgentAction{{ID: "click_1", Action: "click", TS: 2300, Params: json.RawMessage(`{"selector":"#counter"}`)}}, ""},
		{"an earlier action's text, the last action showing none: not asserted", []capture.View{load, click(2, 2000, "#open"), shown(3, 2400, "#open", "Dialog is open"),
			click(4, 3000, "#close")}, nil, ""},
		{"text in an iframe: page.getByText would not find it", []capture.View{load, click(2, 2000, "#a"),
			&capture.ActionView{Head: capture.Head{ID: 3, TS: 2400, FrameID: 7, PageURL: "http://x/frame"}, Type: "appeared", Selector: "#a", Text: "Framed result"}}, nil, ""},
		{"what the page it left showed as it went is not the new page's", []capture.View{load, click(2, 2000, "#send"),
			&capture.NavView{Head: capture.Head{ID: 3, TS: 2100}, Type: "load", To: "http://x/sent"}, shown(4, 2150, "#send", "Sending now")}, nil, ""},
		{"the agent's click last: its text", []capture.View{load, click(2, 2000, "#a"), shown(3, 2600, "#a", "Submitted"),
			agentShown(4, 3400, "#counter", "Clicked 1 times")},
			[]AgentAction{{ID: "click_1", Action: "click", TS: 3000, Params: json.RawMessage(`{"selector":"#counter"}`)}},
			`await expect(page.getByText('Clicked 1 times', { exact: false })).toBeVisible();`},
		{"a user's action after the agent's wins", []capture.View{load, click(2, 2000, "#a"), shown(3, 2600, "#a", "Submitted"),
			agentShown(4, 3400, "#counter", "Clicked 1 times"), click(5, 4000, "#b"), shown(6, 4400, "#b", "Second result")},
			[]AgentAction{{ID: "click_1", Action: "click", TS: 3000, Params: json.RawMessage(`{"selector":"#counter"}`)}},
			`await expect(page.getByText('Second result', { exact: false })).toBeVisible();`},
		{"the agent's text is never a user's action's", []capture.View{load, click(2, 2000, "#counter"), agentShown(3, 2600, "#counter", "Clicked 1 times")},
			nil, ""},
		{"the agent's text after a user's later action is no one's", []capture.View{load, click(4, 4000, "#b"), agentShown(5, 4100, "#counter", "Clicked 1 times")},
			[]AgentAction{{ID: "click_1", Action: "click", TS: 3000, Params: json.RawMessage(`{"selector":"#counter"}`)}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(Recording{Entries: tt.entries, Agent: tt.agent})
			if err != nil {
				t.Fatal(err)
			}
			if got := visibleLine(res); got != tt.want {
				t.Fatalf("got %q, want %q\n%s", got, tt.want, res.File)
			}
			if tt.want == "" {
				return
			}
			var found bool
			for _, a := range res.Assertions {
				if a.Code == tt.want {
					found = true
					if len(a.Sources) != 1 || !strings.Contains(a.Evidence, "appeared") || a.Line < 1 || strings.TrimSpace(strings.Split(res.File, "\n")[a.Line-1]) != a.Code {
						t.Errorf("assertion %+v: want its line, one source and evidence", a)
					}
				}
			}
			if !found {
				t.Errorf("the assertion is not listed in %+v", res.Assertions)
			}
		})
	}
}

// TestVisibleTextEscaped: page text is untrusted; it reaches the file only
// as one single-quoted literal, never in a comment.
func TestVisibleTextEscaped(t *testing.T) {
	evil := "It's \\ done */ ${x} `y`\u2028\x00end"
	res, err := Generate(Recording{Entries: []capture.View{click(2, 2000, "#go"), shown(3, 2400, "#go", evil)}})
	if err != nil {
		t.Fatal(err)
	}
	want := `await expect(page.getByText('It\'s \\ done *\/ $\{x} \` + "`y\\`" + ` \u0000end', { exact: false })).toBeVisible();`
	if got := visibleLine(res); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for _, l := range strings.Split(res.File, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "//") && strings.Contains(l, "done") {
			t.Errorf("page text in a comment: %s", l)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", `'plain'`},
		{"a'b\\c", `'a\'b\\c'`},
		{"l1\nl2\r\t", `'l1\nl2\r\t'`},
		{"${a}", `'$\{a}'`},
		{"/* x */", `'/* x *\/'`},
		{"\x1b\x7f", `'\u001b\u007f'`},
	} {
		if got := q(tt.in); got != tt.want {
			t.Errorf("q(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}
