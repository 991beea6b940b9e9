package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// TestQueryResultRetryAfterLostAnswer posts a command's result again, as
// the extension's postResult does when the answer to its first post is
// lost: the retry is refused with 409 command_final (which the extension
// drops silently), and the command keeps its first and only completion.
func TestQueryResultRetryAfterLostAnswer(t *testing.T) {
	e := newEnv(t)
	auth := map[string]string{"Authorization": "Bearer " + token}
	c, err := e.tracker.Submit(tracker.Spec{Client: "c", Prefix: "exec", Action: "execute_js"})
	if err != nil {
		t.Fatal(err)
	}
	if cmds, err := e.tracker.Poll(context.Background(), "i1", 10); err != nil || len(cmds) != 1 {
		t.Fatalf("poll: got %v %v, want the command", cmds, err)
	}
	first := `{"correlation_id":"` + c.ID + `","status":"complete","result":{"value":1}}`
	for i, tc := range []struct {
		body string
		want int
		code string
	}{
		{first, 200, ""},
		{first, 409, "command_final"},
		{`{"correlation_id":"` + c.ID + `","status":"error","error":"late"}`, 409, "command_final"},
		{`{"correlation_id":"` + c.ID + `","status":"pending"}`, 409, "command_final"},
	} {
		got, body := e.do(t, req{"POST", "/query-result", auth, tc.body})
		var eb apitype.ErrorBody
		if tc.code != "" {
			_ = json.Unmarshal(body, &eb)
		}
		if got != tc.want || eb.Error.Code != tc.code {
			t.Errorf("post %d: got %d %s, want %d %s", i, got, body, tc.want, tc.code)
		}
	}
	cmd, err := e.tracker.Get(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.State != tracker.StateComplete || string(cmd.Result) != `{"value":1}` || cmd.Error != "" {
		t.Errorf("got %s %s %q, want complete with the first result", cmd.State, cmd.Result, cmd.Error)
	}
	if st := e.tracker.Stats(); st.Completed != 1 || st.Failed != 0 {
		t.Errorf("got stats %+v, want one completion", st)
	}
}
