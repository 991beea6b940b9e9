package result

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// FuzzKeepChanged feeds keepChanged results as an extension could post
// them: it never fails on them, a valid result stays valid JSON without
// effects.changed.all, and a result without the list is kept byte for byte.
func FuzzKeepChanged(f *testing.F) {
	f.Add([]byte(`{"tab_id":3,"effects":{"changed":{"appeared":["a"],"more":2,"all":"+ a\n+ b\n+ c\n"}}}`))
	f.Add([]byte(`{"effects":{"changed":{"all":1}}}`))
	f.Add([]byte(`{"effects":{"changed":null,"all":"x"}}`))
	f.Add([]byte(`{"effects":[],"all":"x"}`))
	f.Add([]byte(`{"effects":{"changed":{"all":"<b>&</b>"}}`))
	f.Add([]byte(`"all":`))
	trk := tracker.New(tracker.Options{})
	f.Cleanup(trk.Close)
	k := NewKeeper(trk, output.New(output.Options{}), zerolog.Nop())
	f.Fuzz(func(t *testing.T, in []byte) {
		out, stored := k.keepChanged("exec_unknown", in)
		if stored != "" {
			t.Fatalf("stored %s for a command the tracker does not know", stored)
		}
		if !bytes.Contains(in, changedAll) && !bytes.Equal(out, in) {
			t.Fatalf("a result without the list changed: %s → %s", in, out)
		}
		if !json.Valid(in) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s → invalid %s", in, out)
		}
		// Keys are matched exactly, as keepChanged and the extension do (a
		// struct would also take "effeCts" for effects).
		var res, effects, changed map[string]json.RawMessage
		if json.Unmarshal(out, &res) == nil && json.Unmarshal(res["effects"], &effects) == nil &&
			json.Unmarshal(effects["changed"], &changed) == nil {
			var all string
			if json.Unmarshal(changed["all"], &all) == nil && bytes.Equal(out, in) {
				t.Fatalf("the list stayed in %s", out)
			}
		}
	})
}
