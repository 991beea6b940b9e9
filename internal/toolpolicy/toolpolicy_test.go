package toolpolicy

import (
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	tbl := NewTable([]Tool{
		{Name: "observe", Key: "what", Actions: []Action{
			{Tool: "observe", Name: "command_result", Idempotent: true, MaxWait: 55 * time.Second, UserDrivenWait: 55 * time.Second},
		}},
		{Name: "interact", Key: "action", Actions: []Action{
			{Tool: "interact", Name: "execute_js", Prefix: "exec", BrowserBound: true, MaxWait: 55 * time.Second},
			{Tool: "interact", Name: "draw", Prefix: "ann", BrowserBound: true, UserDriven: true},
			{Tool: "interact", Name: "cancel"},
		}},
	})
	tests := []struct {
		tool, name string
		want       Action
		wantOK     bool
	}{
		{"observe", "command_result", Action{Tool: "observe", Name: "command_result", Idempotent: true, MaxWait: 55 * time.Second, UserDrivenWait: 55 * time.Second}, true},
		{"interact", "cancel", Action{Tool: "interact", Name: "cancel"}, true},
		{"interact", "fly", Action{Tool: "interact", Name: "fly", BrowserBound: true}, false},
		{"observe", "logs", Action{Tool: "observe", Name: "logs"}, false},
		{"nope", "x", Action{Tool: "nope", Name: "x"}, false},
	}
	for _, tt := range tests {
		got, ok := tbl.Lookup(tt.tool, tt.name)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Lookup(%s, %s) = %+v, %v; want %+v, %v", tt.tool, tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
	if tbl.Key("observe") != "what" || tbl.Key("interact") != "action" || tbl.Key("nope") != "" {
		t.Errorf("Key: got %q %q %q", tbl.Key("observe"), tbl.Key("interact"), tbl.Key("nope"))
	}
	for id, want := range map[string]bool{"ann_01J": true, "exec_01J": false, "ann": false, "": false, "cmd_x": false} {
		if got := tbl.UserDrivenID(id); got != want {
			t.Errorf("UserDrivenID(%q) = %v, want %v", id, got, want)
		}
	}
	if len(Default.Tools()) == 0 {
		t.Error("the generated table is empty")
	}
}
