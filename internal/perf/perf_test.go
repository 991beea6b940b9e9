package perf

import (
	"strings"
	"testing"
)

func TestRankBiggestFirst(t *testing.T) {
	r := Report{
		Vitals: Vitals{FCP: 1300, LCP: 3000, LCPElement: &Element{Ref: "e2", Role: "img", Name: "Hero"}, LCPURL: "http://h/hero.png"},
		Interactions: []Interaction{{Type: "click", Start: 5000, MS: 320, Delay: 4, Processing: 302, Presentation: 14,
			Target: &Element{Ref: "e5", Role: "button", Name: "Save"},
			Script: &Script{MS: 300, URL: "http://h/slow.js", Fn: "slowSave", Char: 42, Invoker: "BUTTON#save.onclick"}}},
		Blocking: []Resource{{URL: "http://h/block.js", Type: "script", Start: 10, MS: 1200}},
		Shifts: []Shift{{Start: 900, Value: 0.05, Sources: []Element{{Ref: "e9", Role: "paragraph", Name: "Below"}},
			Image: &Image{Element: Element{Ref: "e8", Role: "img", Name: "Late"}, URL: "http://h/late.png", Loaded: 880}}},
		Frames: []Frame{
			{Start: 5010, MS: 310, Blocking: 260, Scripts: []Script{{MS: 300}}}, // the click's own frame
			{Start: 2000, MS: 120, Blocking: 70, Scripts: []Script{{MS: 20, URL: "http://h/a.js"}, {MS: 90, URL: "http://h/b.js", Fn: "draw", Char: 7}}},
		},
		LongTasks: []Task{{Start: 2000, MS: 120}},
	}
	got := Rank(r)
	var kinds []string
	for _, c := range got {
		kinds = append(kinds, c.Kind)
	}
	// 1200/500 = 2.4, 320/200 = 1.6, 3000/2500 = 1.2, 0.05/0.1 = 0.5, (20+90)/400 = 0.275
	want := "render_blocking interaction lcp layout_shift long_frame"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("kinds %q, want %q: %+v", strings.Join(kinds, " "), want, got)
	}
	for i, sub := range []string{
		"script http://h/block.js blocked rendering for 1200 ms (first paint at 1300 ms)",
		`click on e5 button "Save": 320 ms (input delay 4, processing 302, presentation 14); script BUTTON#save.onclick slowSave http://h/slow.js:char 42, 300 ms`,
		`largest contentful paint at 3000 ms: e2 img "Hero" (http://h/hero.png)`,
		`layout shift 0.05 at 900 ms, likely from e8 img "Late" loaded at 880 ms without width and height (http://h/late.png); moved e9 paragraph`,
		"long animation frame at 2000 ms: 120 ms, 70 ms blocking; script draw http://h/b.js:char 7, 90 ms",
	} {
		if got[i].What != sub {
			t.Errorf("cause %d says\n %s\nwant\n %s", i, got[i].What, sub)
		}
	}
	if got[3].CLS != 0.05 || got[3].MS != 0 {
		t.Errorf("shift cause %+v, want cls 0.05 and no ms", got[3])
	}
}

func TestRankLongTasksOnlyWithoutFrames(t *testing.T) {
	got := Rank(Report{LongTasks: []Task{{Start: 10, MS: 90}}})
	if len(got) != 1 || got[0].Kind != "long_task" || got[0].MS != 90 {
		t.Fatalf("got %+v, want one long_task of 90 ms", got)
	}
	if got := Rank(Report{LongTasks: []Task{{MS: 90}}, Frames: []Frame{{MS: 250, Blocking: 200}}}); len(got) != 1 || got[0].Kind != "long_frame" {
		t.Fatalf("got %+v, want the frame alone", got)
	}
}

func TestRankQuietPage(t *testing.T) {
	quiet := Report{Vitals: Vitals{LCP: 400, FCP: 300}, Blocking: []Resource{{URL: "http://h/a.css", MS: 20}},
		Shifts: []Shift{{Value: 0.005}}}
	if got := Rank(quiet); len(got) != 0 {
		t.Fatalf("a fast page has causes: %+v", got)
	}
}

func TestElementNameCut(t *testing.T) {
	got := element(Element{Ref: "e1", Name: strings.Repeat("é", 50)})
	if want := `e1 element "` + strings.Repeat("é", 32) + `…"`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestRankMergesOneCulprit(t *testing.T) {
	h := &Script{MS: 300, URL: "http://h/app/slow.js", Fn: "save", Char: 9}
	b := &Element{Ref: "e5", Role: "button", Name: "Save"}
	r := Report{URL: "http://h/page?x=1", Interactions: []Interaction{
		{Type: "click", MS: 310, Target: b, Script: h},
		{Type: "click", MS: 350, Target: b, Script: h},
		{Type: "click", MS: 330, Target: &Element{Ref: "e6", Role: "button", Name: "Other"}, Script: h},
	}}
	got := Rank(r)
	if len(got) != 2 || got[0].MS != 350 || got[0].N != 2 || got[1].N != 0 {
		t.Fatalf("got %+v, want the two clicks on e5 as one cause of 350 ms, n 2, then e6's", got)
	}
	if !strings.Contains(got[0].What, "script save /app/slow.js:char 9") {
		t.Errorf("the page's own script is not shown by its path: %s", got[0].What)
	}
}

func TestURLCutInTheMiddle(t *testing.T) {
	n := namer{origin: "https://a.example"}
	long := "https://cdn.example/" + strings.Repeat("x", 200) + "/end.js"
	got := n.url(long)
	if len([]rune(got)) > maxURL+1 || !strings.HasPrefix(got, "https://cdn.example/") || !strings.HasSuffix(got, "/end.js") {
		t.Fatalf("got %s (%d runes), want its start and end around …", got, len([]rune(got)))
	}
	if got := n.url("https://a.example/x.js"); got != "/x.js" {
		t.Fatalf("same origin: got %s, want /x.js", got)
	}
}

func TestClassicScriptInvokerNotRepeated(t *testing.T) {
	n := namer{origin: "http://h"}
	got := n.script(Script{MS: 80, URL: "http://h/app.js", Invoker: "http://h/app.js", Type: "classic-script"})
	if want := "script classic-script /app.js, 80 ms"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestRankExtensionScripts: an extension's scripts (by their URL, or the
// collector's mark that they began before gasoline's document_start
// scripts were done, under the page's URL) are never the page's culprit: a frame's score counts the page's
// scripts, its evidence names the page's script first, and a frame of
// extension scripts alone says whose they are and ranks below the page's.
func TestRankExtensionScripts(t *testing.T) {
	page := "http://h/shop.html"
	r := Report{URL: page, Frames: []Frame{
		// Load: gasoline's start scripts, named by the page's URL.
		{Start: 100, MS: 400, Blocking: 340, Scripts: []Script{{MS: 150, URL: page, Invoker: page, Type: "classic-script", Early: true},
			{MS: 120, URL: page, Invoker: page, Type: "classic-script", Early: true}}},
		// Another extension's content script beside the page's own code.
		{Start: 3000, MS: 260, Blocking: 200, Scripts: []Script{{MS: 180, URL: "chrome-extension://abc/content.js", Type: "classic-script"},
			{MS: 70, URL: "http://h/app.js", Fn: "render", Char: 9}}},
		// The page's slow code.
		{Start: 6000, MS: 300, Blocking: 250, Scripts: []Script{{MS: 240, URL: "http://h/app.js", Fn: "filter", Char: 99}}},
	}}
	got := Rank(r)
	var whats []string
	for _, c := range got {
		whats = append(whats, c.What)
	}
	want := []string{
		"long animation frame at 6000 ms: 300 ms, 250 ms blocking; script filter /app.js:char 99, 240 ms",
		"long animation frame at 3000 ms: 260 ms, 200 ms blocking; script render /app.js:char 9, 70 ms",
	}
	if len(got) != 2 || whats[0] != want[0] || whats[1] != want[1] {
		t.Fatalf("causes:\n %s\nwant the page's frames, its own scripts named:\n %s", strings.Join(whats, "\n "), strings.Join(want, "\n "))
	}
	// A busier load: the start scripts leave more blocking time than the
	// page is charged for; the cause names them as not the page's.
	r.Frames[0].MS, r.Frames[0].Blocking = 420, 370
	got = Rank(r)
	var load *Cause
	for i := range got {
		if strings.Contains(got[i].What, "at 100 ms") {
			load = &got[i]
		}
	}
	if load == nil || !strings.Contains(load.What, "script classic-script /shop.html, 150 ms (an extension's start script, not the page's: it ran before the page's first script; Chrome names it by the page's URL)") {
		t.Fatalf("causes %+v: want the load frame's start script named as an extension's", got)
	}
	if load != &got[len(got)-1] {
		t.Errorf("the extension's frame ranks above the page's own: %+v", got)
	}
	other := Rank(Report{URL: page, Frames: []Frame{{Start: 50, MS: 300, Blocking: 250, Scripts: []Script{{MS: 100, URL: "chrome-extension://abc/content.js", Fn: "scan"}}}}})
	if len(other) != 1 || !strings.HasSuffix(other[0].What, "script scan chrome-extension://abc/content.js, 100 ms (a browser extension's, not the page's)") || other[0].score != 75.0/frameGood {
		t.Errorf("a frame of another extension's script: got %+v, want it named so and weighed by the blocking time left after it", other)
	}
	if s := (Script{URL: "moz-extension://x/a.js"}); !s.Extension() {
		t.Errorf("%+v is an extension's script", s)
	}
	if s := (Script{URL: page, Type: "classic-script"}); s.Extension() {
		t.Errorf("%+v is the page's inline script", s)
	}
}
