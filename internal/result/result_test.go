package result_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

func TestContent(t *testing.T) {
	tests := []struct {
		name, result, text, meta string
	}{
		{"extension envelope", `{"value":"<p>\"hi\"</p>","tab_id":3,"url":"http://x/"}`, `<p>"hi"</p>`, `{"tab_id":3,"url":"http://x/"}`},
		{"bare string", `"<form id=\"login\">"`, `<form id="login">`, `null`},
		{"bare string with spaces", " \"a\\u003cb\" \n", `a<b`, `null`},
		{"seed 000 envelope", `{"success":true,"data":"<html>"}`, `<html>`, `{"success":true}`},
		{"value beats data", `{"success":true,"value":"v","data":"d"}`, `v`, `{"data":"d","success":true}`},
		{"data without success is JSON", `{"data":"d"}`, `{"data":"d"}`, `null`},
		{"non-string value is JSON", `{"value":{"a":1}}`, `{"value":{"a":1}}`, `null`},
		{"number", `42`, `42`, `null`},
		{"array", `["a"]`, `["a"]`, `null`},
		{"big meta field dropped", `{"value":"v","big":"` + strings.Repeat("x", 3000) + `"}`, `v`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, meta := result.Content(json.RawMessage(tt.result))
			m, _ := json.Marshal(meta)
			if text != tt.text || string(m) != tt.meta {
				t.Errorf("got %q meta %s, want %q meta %s", text, m, tt.text, tt.meta)
			}
		})
	}
}

// keeper returns a Keeper over a real tracker and a store whose inline
// threshold is 100 tokens, and a command delivered to "ext" and waiting for
// its result.
func keeper(t *testing.T) (*result.Keeper, *tracker.Tracker, *output.Store, tracker.Command) {
	t.Helper()
	trk := tracker.New(tracker.Options{})
	t.Cleanup(trk.Close)
	store := output.New(output.Options{InlineTokens: 100})
	k := result.NewKeeper(trk, store, zerolog.New(zerolog.NewTestWriter(t)))
	c, err := trk.Submit(tracker.Spec{Client: "agent", Prefix: "exec", Action: "execute_js"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if cs, err := trk.Poll(ctx, "ext", 1); err != nil || len(cs) != 1 {
		t.Fatalf("poll: %v", err)
	}
	return k, trk, store, c
}

func post(id, status, res string) apitype.QueryResult {
	return apitype.QueryResult{CorrelationID: id, Status: status, Result: json.RawMessage(res)}
}

// TestReportStoresTheText checks which results go to the output store and
// that what is stored is the text an agent searches: a large string, in
// any envelope, is stored as its text; a large non-string as JSON; a small
// one stays inline.
func TestReportStoresTheText(t *testing.T) {
	page := `<form id="login">` + strings.Repeat("<p>x</p>", 100)
	quoted, _ := json.Marshal(page)
	tests := []struct {
		name, result string
		stored       string // "" when kept inline
	}{
		{"small", `{"value":"hi"}`, ""},
		{"extension envelope", `{"value":` + string(quoted) + `,"url":"http://x/"}`, page},
		{"bare string", string(quoted), page},
		{"seed 000 envelope", `{"success":true,"data":` + string(quoted) + `}`, page},
		{"object", `{"rows":[` + strings.Repeat(`"<p>",`, 300) + `"end"]}`, `{"rows":[` + strings.Repeat(`"<p>",`, 300) + `"end"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, _, store, c := keeper(t)
			got, err := k.Report("ext", post(c.ID, "complete", tt.result))
			if err != nil {
				t.Fatal(err)
			}
			s, ok := result.StoredOf(got)
			if tt.stored == "" {
				if ok || string(got.Result) != tt.result {
					t.Fatalf("got stored=%v result %s, want it inline", ok, got.Result)
				}
				return
			}
			if !ok || got.Result != nil {
				t.Fatalf("got stored=%v result %s, want it stored", ok, got.Result)
			}
			if raw, err := store.Raw(c.ID); err == nil {
				t.Fatalf("raw read of a large output: got %d chars, want it refused", len(raw))
			}
			anchor := tt.stored[:12] // as an agent copies it from the page
			res, err := store.Slice(c.ID, output.SliceRequest{Anchor: anchor, Window: 40})
			if err != nil || res.Start != 0 {
				t.Errorf("slice by anchor %q: got %+v, %v; want it found at 0", anchor, res, err)
			}
			if result.Chars(got) != s.Handle.Chars || s.Handle.Chars != len([]rune(tt.stored)) {
				t.Errorf("got %d chars, want %d", s.Handle.Chars, len([]rune(tt.stored)))
			}
		})
	}
}

// TestReportNotesTheTab: a complete result's tab_id is a tab its client
// acted in, however encoding/json spells the name; a result without one
// notes none.
func TestReportNotesTheTab(t *testing.T) {
	tests := []struct {
		name, result string
		want         []int64
	}{
		{"tab_id", `{"value":"x","tab_id":3}`, []int64{3}},
		{"in capitals", `{"TAB_ID":4}`, []int64{4}},
		{"escaped", `{"tab\u005fid":5}`, []int64{5}},
		{"only in a value", `{"value":"tab_id"}`, nil},
		{"none", `{"value":"Home Page"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, _, _, c := keeper(t)
			if _, err := k.Report("ext", post(c.ID, "complete", tt.result)); err != nil {
				t.Fatal(err)
			}
			if got := k.ActedIn("agent"); !slices.Equal(got, tt.want) {
				t.Errorf("got tabs %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRefusedReportKeepsNothing checks that a report the tracker refuses
// leaves nothing in the store and that a late duplicate keeps the first.
func TestRefusedReportKeepsNothing(t *testing.T) {
	k, trk, store, c := keeper(t)
	big := `{"value":"` + strings.Repeat("a", 2000) + `"}`
	if _, err := trk.Cancel("agent", c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Report("ext", post(c.ID, "complete", big)); !errors.Is(err, tracker.ErrFinal) {
		t.Fatalf("report after cancel: got %v, want ErrFinal", err)
	}
	if _, err := store.Handle(c.ID); !errors.Is(err, output.ErrNotFound) {
		t.Errorf("store after a refused report: got %v, want ErrNotFound", err)
	}

	k, _, store, c = keeper(t)
	first, err := k.Report("ext", post(c.ID, "complete", big))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Report("ext", post(c.ID, "complete", `{"value":"`+strings.Repeat("b", 2000)+`"}`)); !errors.Is(err, tracker.ErrFinal) {
		t.Fatalf("duplicate report: got %v, want ErrFinal", err)
	}
	s, ok := result.StoredOf(first)
	if !ok {
		t.Fatalf("first report: got result %.40s, want it stored", first.Result)
	}
	if h, err := store.Handle(c.ID); err != nil || h.SHA256 != s.Handle.SHA256 {
		t.Errorf("after a duplicate: got %+v, %v; want the first output kept", h, err)
	}
}

// TestFailedResultsStaySmall checks that an error report's large result is
// replaced by a note saying so.
func TestFailedResultsStaySmall(t *testing.T) {
	k, _, _, c := keeper(t)
	got, err := k.Report("ext", post(c.ID, "error", `"`+strings.Repeat("x", result.MaxFailedResult)+`"`))
	if err != nil {
		t.Fatal(err)
	}
	var note struct {
		Dropped bool `json:"dropped"`
		Bytes   int  `json:"bytes"`
	}
	if json.Unmarshal(got.Result, &note) != nil || !note.Dropped || note.Bytes != result.MaxFailedResult+2 {
		t.Errorf("got result %.80s, want a note of the dropped bytes", got.Result)
	}
}

// TestDuplicateWhileStoring: a second complete post of a command that
// arrives while the first one's output is being stored is refused as
// ErrFinal; it must not go on inline, since it could then win the tracker's
// race with a result that is neither stored nor the one the store holds.
func TestDuplicateWhileStoring(t *testing.T) {
	k, trk, store, c := keeper(t)
	first := strings.Repeat("A", 5000)
	if _, err := store.Add(c.ID, first); err != nil { // the first post, between its store and its report
		t.Fatal(err)
	}
	second, _ := json.Marshal(map[string]string{"value": strings.Repeat("B", 5000)})
	if _, err := k.Report("ext", post(c.ID, "complete", string(second))); !errors.Is(err, tracker.ErrFinal) {
		t.Fatalf("duplicate post: got %v, want ErrFinal", err)
	}
	if cur, _ := trk.Get(c.ID); cur.State != tracker.StatePending || cur.Result != nil {
		t.Fatalf("the duplicate changed the command: %+v", cur)
	}
	if got, err := store.Content(c.ID); err != nil || got != first {
		t.Fatalf("the first post's output: %d chars, %v; want it kept", len(got), err)
	}
}
