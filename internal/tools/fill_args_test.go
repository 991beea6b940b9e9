package tools

import (
	"encoding/json"
	"testing"
)

// TestFillArgsSendEmptyText: fill with text "" reaches the extension as
// text "" (it clears the field); without text, no text is sent (the
// extension then says fill needs it), and other text passes unchanged.
func TestFillArgsSendEmptyText(t *testing.T) {
	for _, tc := range []struct {
		args, wantText string // wantText "-": no text key
	}{
		{`{"selector":"#q","text":""}`, `""`},
		{`{"selector":"#q"}`, `-`},
		{`{"selector":"#q","text":"gas"}`, `"gas"`},
		{`{"target":{"text":"Search"},"text":""}`, `""`},
	} {
		a, err := decode[fillArgs](json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("decode %s: %v", tc.args, err)
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got, ok := m["text"]
		if (tc.wantText == "-") != !ok || (ok && string(got) != tc.wantText) {
			t.Errorf("params for %s: %s, want text %s", tc.args, b, tc.wantText)
		}
		if string(m["selector"]) == "" && string(m["target"]) == "" {
			t.Errorf("params for %s: %s, the target was lost", tc.args, b)
		}
	}
	if _, err := decode[fillArgs](json.RawMessage(`{"selector":"#q","text":5}`)); err == nil {
		t.Errorf("text 5: decoded, want a type error")
	}
}
