package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/annotate"
)

// TestExtensionContract fails while extension/contract.js or the contract
// version the daemon and the extension compare (internal/extcontract) is not
// what the argument structs generate: run go generate ./internal/tools (or
// make generate) after changing an action's arguments or params.
func TestExtensionContract(t *testing.T) {
	checkGenerated(t, contractFile, versionFile)
}

// checkGenerated fails for each of paths whose committed file differs from
// what Generated makes of the declarations: go generate ./internal/tools
// rewrites them (the test only reads).
func checkGenerated(t *testing.T, paths ...string) {
	t.Helper()
	files, err := Generated()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		i := slices.IndexFunc(files, func(f GeneratedFile) bool { return f.Path == p })
		if i < 0 {
			t.Fatalf("Generated makes no %s", p)
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("reading %s: %v (run go generate ./internal/tools to create it)", p, err)
		}
		if !bytes.Equal(files[i].Data, want) {
			t.Errorf("%s is stale: the actions' declarations changed; run go generate ./internal/tools (or make generate) and commit it", filepath.Join("internal", "tools", p))
		}
	}
}

// urlCases are the URLs both checkURL and the extension's checkURL
// (extension/params.js, extension/test/params.test.js) judge.
const urlCases = "testdata/urls.json"

// TestURLRuleCases checks checkURL against the cases the extension's test
// reads too, so that the two agree on what may be opened.
func TestURLRuleCases(t *testing.T) {
	raw, err := os.ReadFile(urlCases)
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		URL     string `json:"url"`
		Allowed bool   `json:"allowed"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := checkURL(c.URL) == nil; got != c.Allowed {
			t.Errorf("checkURL(%q): allowed %v, want %v", c.URL, got, c.Allowed)
		}
	}
}

// FuzzDecodeArgs runs every action's decoder (decodeArgs) on arbitrary
// arguments: it never panics, and what it accepts names only arguments
// the action declares and keeps to their bounds and enums.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		`{"ref":"e1","click_count":2,"button":"left"}`, `{"max_chars":40000}`, `{"limit":0}`, `{"url":"about:blank"}`,
		`{"tab_id":1.5}`, `{"target":{"role":"button","name":"Go"}}`, `{"values":[]}`, `null`, `[]`, `{"max_tokens":1e99}`,
	} {
		f.Add(seed)
	}
	var acts []action
	for _, tl := range all {
		acts = append(acts, tl.actions()...)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for i := range acts {
			a := &acts[i]
			if a.parse == nil {
				continue
			}
			if _, err := parseJSON(a, json.RawMessage(raw)); err != nil {
				continue
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(raw), &obj); err != nil {
				t.Fatalf("%s accepted %s, which is not an object", a.Name, raw)
			}
			for _, fl := range a.args {
				v, ok := obj[fl.name]
				var n float64
				if !ok || json.Unmarshal(v, &n) != nil {
					continue
				}
				if (fl.min != nil && n < *fl.min) || (fl.max != nil && n > *fl.max) {
					t.Fatalf("%s accepted %s = %s, out of its bounds", a.Name, fl.name, v)
				}
			}
		}
	})
}

// TestTagsMatchLimits keeps the bounds tags of the common arguments equal
// to the limits the daemon enforces elsewhere (tracker, waits, annotate).
func TestTagsMatchLimits(t *testing.T) {
	want := map[string]float64{
		"timeout_ms": float64(MaxTimeout.Milliseconds()),
		"wait_ms":    float64(MaxWait.Milliseconds()),
		"max_items":  float64(annotate.MaxItems),
	}
	for _, tl := range all {
		for _, a := range tl.actions() {
			for _, f := range a.args {
				if w, ok := want[f.name]; ok && (f.max == nil || *f.max != w) {
					t.Errorf("%s.%s: %s's max tag is %v, want %v", tl.name, a.Name, f.name, bound(f.max, "none"), w)
				}
			}
		}
	}
}

// TestAgentGuideDOMTable: the agent guide's table of the DOM actions is
// what their declarations say.
func TestAgentGuideDOMTable(t *testing.T) { checkGenerated(t, agentGuide) }
