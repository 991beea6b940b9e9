package result_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
	"github.com/rs/zerolog"
)

// actionResult is a DOM action's result whose effects.changed carries the
// whole list in all (as extension/actions/changed.js sends it when more
// changed than its compact part holds).
func actionResult(all string) string {
	a, _ := json.Marshal(all)
	return `{"tab_id":3,"url":"http://x/","effects":{"settled":true,"changed":{"appeared":["Row 0 <b>"],"more":199,"all":` + string(a) + `}}}`
}

// TestReportKeepsWhatChangedApart checks that the whole list of what an
// action changed leaves the result for a stored output of its own, named in
// effects.changed.rest and read by the command's client only, with its
// text as the page wrote it (< and > not escaped).
func TestReportKeepsWhatChangedApart(t *testing.T) {
	k, _, _, c := keeper(t)
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "+ Row %d <b>\n", i)
	}
	got, err := k.Report("ext", post(c.ID, "complete", actionResult(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got.Result), `"all"`) || strings.Contains(string(got.Result), `\u003c`) {
		t.Errorf("result kept: %s, want no all and page text unescaped", got.Result)
	}
	var res struct {
		Effects struct {
			Settled bool `json:"settled"`
			Changed struct {
				Appeared []string           `json:"appeared"`
				More     int                `json:"more"`
				Rest     result.ChangedRest `json:"rest"`
			} `json:"changed"`
		} `json:"effects"`
		TabID int `json:"tab_id"`
	}
	if err := json.Unmarshal(got.Result, &res); err != nil {
		t.Fatal(err)
	}
	ch := res.Effects.Changed
	if res.TabID != 3 || !res.Effects.Settled || ch.More != 199 || len(ch.Appeared) != 1 || ch.Appeared[0] != "Row 0 <b>" {
		t.Errorf("result kept: %s, want the rest of it as posted", got.Result)
	}
	if want := c.ID + result.ChangedSuffix; ch.Rest.CorrelationID != want || ch.Rest.Chars != len(b.String()) || ch.Rest.Read == "" {
		t.Errorf("rest: %+v, want correlation_id %s, %d chars and how to read it", ch.Rest, want, len(b.String()))
	}
	text, err := k.Content("agent", ch.Rest.CorrelationID)
	if err != nil || text != b.String() {
		t.Errorf("raw read of the rest: %d chars, %v; want the whole list (%d chars)", len(text), err, len(b.String()))
	}
	sl, err := k.Slice("agent", ch.Rest.CorrelationID, output.SliceRequest{Anchor: "Row 199 ", Window: 40})
	if err != nil || !strings.Contains(sl.Text, "+ Row 199 <b>") {
		t.Errorf("slice of the rest: %+v, %v; want the last row", sl, err)
	}
	if _, _, err := k.Raw("other", ch.Rest.CorrelationID); !errors.Is(err, result.ErrUnknown) {
		t.Errorf("another client's read of the rest: %v, want ErrUnknown", err)
	}
}

// TestReportWithoutWhatChangedIsUntouched checks that a result without the
// whole list is kept byte for byte, and that without a store the list is
// dropped (more still counts what was left out).
func TestReportWithoutWhatChangedIsUntouched(t *testing.T) {
	k, _, _, c0 := keeper(t)
	plain := `{"tab_id":3,"url":"http://x/","effects":{"settled":true,"changed":{"appeared":["Saved"]}},"all":"x"}`
	got, err := k.Report("ext", post(c0.ID, "complete", plain))
	if err != nil || string(got.Result) != plain {
		t.Errorf("got %s, %v; want %s", got.Result, err, plain)
	}

	_, trk, _, c := keeper(t)
	k = result.NewKeeper(trk, nil, zerolog.New(zerolog.NewTestWriter(t)))
	got, err = k.Report("ext", post(c.ID, "complete", actionResult("+ a\n+ b\n")))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"effects":{"changed":{"appeared":["Row 0 <b>"],"more":199},"settled":true},"tab_id":3,"url":"http://x/"}`; string(got.Result) != want {
		t.Errorf("without a store: %s, want %s", got.Result, want)
	}
}

// TestRefusedReportKeepsNoChangedList checks that the whole list stored
// for a report then refused is deleted again: here a large result posted
// while another post's output is being stored (TestDuplicateWhileStoring).
func TestRefusedReportKeepsNoChangedList(t *testing.T) {
	k, _, store, c := keeper(t)
	if _, err := store.Add(c.ID, "the other post's output"); err != nil {
		t.Fatal(err)
	}
	large := `{"value":"` + strings.Repeat("a", 2000) + `",` + actionResult("+ a\n")[1:]
	if _, err := k.Report("ext", post(c.ID, "complete", large)); !errors.Is(err, tracker.ErrFinal) {
		t.Fatalf("report while another is stored: %v, want ErrFinal", err)
	}
	if _, err := store.Handle(c.ID + result.ChangedSuffix); !errors.Is(err, output.ErrNotFound) {
		t.Errorf("store after a refused report: %v, want ErrNotFound", err)
	}
}
