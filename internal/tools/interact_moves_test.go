package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// TestMoveArgs checks drag's, fill_form's and resize's arguments before
// anything is queued: to is a target, each field a target and a value a
// field can take, a size within the bounds.
func TestMoveArgs(t *testing.T) {
	tests := []struct {
		action string
		args   string
		want   string // "" for valid, else a part of the error message
	}{
		{"drag", `{"target":"#a","to":"#b"}`, ""},
		{"drag", `{"ref":"e1","to":{"role":"listitem","name":"Cherry"}}`, ""},
		{"drag", `{"target":"#a"}`, `"to" is required for drag`},
		{"drag", `{"to":"#b"}`, "needs a target"},
		{"drag", `{"target":"#a","to":""}`, "drag's to: target is empty"},
		{"drag", `{"target":"#a","to":{"name":"x"}}`, "needs role (with name) or text"},
		{"drag", `{"ref":"f2e3","to":"f2e9"}`, ""},
		{"drag", `{"ref":"e3","to":{"text":"Drop here"}}`, ""},
		{"drag", `{"ref":"e3","to":"f2e9"}`, "in different frames"},
		{"drag", `{"target":"f2e3","to":"#zone"}`, "in different frames"},
		{"fill_form", `{"fields":[{"ref":"f3e2","value":"x"}]}`, "field 0's ref f3e2 is in an iframe"},
		{"fill_form", `{"frame":"#login","fields":[{"ref":"f3e2","value":"x"}]}`, ""},
		{"fill_form", `{"fields":[{"target":"#a","value":"x"},{"target":{"role":"checkbox","name":"T"},"value":true},{"target":"e3","value":["a","b"]}]}`, ""},
		{"fill_form", `{"fields":[{"ref":"e3","value":"x"},{"selector":"#a","value":"y"},{"role":"checkbox","name":"T","value":true},{"text":"Email","value":"z"}]}`, ""},
		{"fill_form", `{"fields":[{"ref":"e3","selector":"#a","value":"x"}]}`, "field 0 names more than one target: [ref selector]"},
		{"fill_form", `{"fields":[{"target":"#a","role":"textbox","value":"x"}]}`, "field 0 names more than one target"},
		{"fill_form", `{"fields":[{"name":"Email","value":"x"}]}`, "field 0 has no target"},
		{"fill_form", `{"fields":[{"ref":"e3","name":"Email","value":"x"}]}`, "field 0 names more than one target"},
		{"fill_form", `{"fields":[{"ref":"#a","value":"x"}]}`, `field 0: "#a" is not a ref`},
		{"fill_form", `{"fields":[]}`, `"fields" is required`},
		{"fill_form", `{}`, `"fields" is required`},
		{"fill_form", `{"fields":[{"target":"#a","value":"x"},{"value":"y"}]}`, "field 1 has no target"},
		{"fill_form", `{"fields":[{"target":"#a","value":3}]}`, "field 0's value 3 is not"},
		{"fill_form", `{"fields":[{"target":"#a"}]}`, "field 0's value (missing)"},
		{"fill_form", `{"fields":[{"target":"#a","value":null}]}`, "field 0's value null"},
		{"fill_form", `{"fields":[{"target":{"text":""},"value":"x"}]}`, "fill_form field 0: target object needs role"},
		{"fill_form", `{"fields":[{"target":"#a","value":"x"}],"target":"#b"}`, `unknown argument "target"`},
		{"fill_form", fmt.Sprintf(`{"fields":[%s{"target":"#a","value":"x"}]}`, strings.Repeat(`{"target":"#a","value":"x"},`, maxFormFields)), "got 51 fields"},
		{"resize", `{"width":1024,"height":768}`, ""},
		{"resize", `{"width":1024}`, `"height" is required for resize`},
		{"resize", `{"width":99,"height":768}`, "width 99 is out of range"},
	}
	acts := map[string]action{}
	for _, a := range moveActions() {
		acts[a.Name] = a
	}
	for _, tt := range tests {
		t.Run(tt.action+" "+tt.args, func(t *testing.T) {
			a := acts[tt.action]
			a.key = "action"
			err := checkArgs(a, json.RawMessage(tt.args))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want valid", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			case err != nil:
				var te *mcp.ToolError
				if !errors.As(err, &te) || te.Code != "invalid_arguments" {
					t.Errorf("got %#v, want an invalid_arguments tool error", err)
				}
			}
		})
	}
}

// TestFillFormFlatTargets: a field's flat target reaches the extension as
// the target it reads, and only that.
func TestFillFormFlatTargets(t *testing.T) {
	a, err := decode[fillFormArgs](json.RawMessage(`{"fields":[{"ref":"e3","value":"x"},{"selector":"#a","value":"y"},` +
		`{"role":"checkbox","name":"T","value":true},{"role":"switch","value":false},{"text":"Email","value":"z"},{"target":{"text":"Q"},"value":"w"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"fields":[{"target":"e3","value":"x"},{"target":"#a","value":"y"},{"target":{"name":"T","role":"checkbox"},"value":true},` +
		`{"target":{"role":"switch"},"value":false},{"target":{"text":"Email"},"value":"z"},{"target":{"text":"Q"},"value":"w"}]}`
	if string(b) != want {
		t.Errorf("params: got %s, want %s", b, want)
	}
}

// TestMovesCanonicalTargets: drag's to and fill_form's field targets reach
// the extension as canonical targets too, whichever form the call used.
func TestMovesCanonicalTargets(t *testing.T) {
	for _, tt := range []struct{ action, args, want string }{
		{"drag", `{"target":"e3","to":" e9 "}`, `{"target":{"ref":"e3"},"to":{"ref":"e9"}}`},
		{"drag", `{"selector":"#a","to":{"role":"ListItem","name":"Cherry"}}`, `{"target":{"selector":"#a"},"to":{"role":"listitem","name":"Cherry"}}`},
		{"fill_form", `{"fields":[{"target":"#name","value":"Ada"},{"role":"checkbox","name":"Terms","value":true},{"text":"Email","value":"a@b.c"}]}`,
			`{"fields":[{"target":{"selector":"#name"},"value":"Ada"},{"target":{"role":"checkbox","name":"Terms"},"value":true},{"target":{"text":"Email"},"value":"a@b.c"}]}`},
	} {
		var a action
		for _, m := range moveActions() {
			if m.Name == tt.action {
				a = m
			}
		}
		p, err := parseJSON(&a, json.RawMessage(tt.args))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.action, tt.args, err)
		}
		got, _ := json.Marshal(p)
		if string(got) != tt.want {
			t.Errorf("%s %s: sent %s, want %s", tt.action, tt.args, got, tt.want)
		}
	}
}
