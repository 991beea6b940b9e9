package result

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzMayNameTabID: whenever encoding/json finds a tab_id member in a
// result, mayNameTabID said it may have one, so noteTab skipping the
// decode on its word never misses a tab.
func FuzzMayNameTabID(f *testing.F) {
	for _, seed := range []string{
		`{"tab_id":3}`, `{"TAB_ID":3}`, `{"Tab_Id":3,"value":"x"}`, `{"tab\u005fid":3}`, `{"value":"tab_id"}`,
		`{"value":"no tab here"}`, `{"_":1,"ab_i":2}`, `{"tab_i":1}`, `{"xtab_idx":1}`, ` {"tab_id" : 1} `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		var r struct {
			TabID json.RawMessage `json:"tab_id"`
		}
		if json.Unmarshal(bytes.TrimSpace(result), &r) != nil || r.TabID == nil {
			return
		}
		if !mayNameTabID(bytes.TrimSpace(result)) {
			t.Fatalf("%s names tab_id %s, but mayNameTabID says it cannot", result, r.TabID)
		}
	})
}
