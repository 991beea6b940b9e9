package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// perfPages serves testdata/perf, each page built to have one culprit, and
// the slow responses they load: /perf/slow.js?delay=ms (a script sent after
// ms) and /perf/late.png?delay=ms (a 600×300 image sent after ms).
func perfPages() http.Handler {
	files := http.FileServer(http.Dir("testdata"))
	var img bytes.Buffer
	m := image.NewRGBA(image.Rect(0, 0, 600, 300))
	for i := range m.Pix {
		m.Pix[i] = 0xc0
	}
	m.Set(0, 0, color.Black)
	png.Encode(&img, m)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		delay, _ := strconv.Atoi(r.URL.Query().Get("delay"))
		select {
		case <-time.After(time.Duration(delay) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		switch r.URL.Path {
		case "/perf/slow.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte("document.documentElement.dataset.slow = 'ran';\n"))
		case "/perf/late.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(img.Bytes())
		default:
			files.ServeHTTP(w, r)
		}
	})
}

// perfResult is analyze performance's answer.
type perfResult struct {
	URL    string `json:"url"`
	Vitals struct {
		LCP float64 `json:"lcp_ms"`
		CLS float64 `json:"cls"`
		INP float64 `json:"inp_ms"`
		FCP float64 `json:"fcp_ms"`
	} `json:"vitals"`
	Causes []struct {
		Kind string  `json:"kind"`
		MS   int     `json:"ms"`
		CLS  float64 `json:"cls"`
		What string  `json:"what"`
	} `json:"causes"`
}

// perf runs analyze performance until want accepts its answer (the browser
// reports some entries only after the next frame), for up to 10 s.
func (e *env) perf(want func(perfResult) bool) (perfResult, string) {
	e.t.Helper()
	var p perfResult
	var text string
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, r := e.analyze("performance", nil)
		text = r.Text
		p = perfResult{}
		if err := json.Unmarshal(r.Value, &p); err != nil {
			e.t.Fatalf("analyze performance: %s: %v", r.Value, err)
		}
		if want(p) || time.Now().After(deadline) {
			return p, text
		}
	}
}

var perfRef = regexp.MustCompile(`\be\d+\b`)

// TestPerfNamesTheCulprit: on three pages built to be slow in one way
// each, analyze performance puts the culprit first with its evidence: a
// 300 ms click handler (clicked by the user through CDP) with its input
// delay, processing and presentation, the button as an outline ref with its
// name and the handler's script, function and position; a script in the
// head served 1.2 s late, as render-blocking; an image without dimensions
// arriving late, as the likely cause of the layout shift it made.
func TestPerfNamesTheCulprit(t *testing.T) {
	e := ready(t)

	e.open("/perf/click.html")
	s := e.pageSession(e.site.URL + "/perf/click.html")
	var box struct{ X, Y float64 }
	if err := s.Evaluate(e.ctx, `(() => { const r = document.getElementById('save').getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &box); err != nil {
		t.Fatal(err)
	}
	if err := s.Click(e.ctx, box.X, box.Y); err != nil {
		t.Fatal(err)
	}
	e.ok("wait_for", map[string]any{"text": "not saved", "gone": true})
	p, text := e.perf(func(p perfResult) bool { return len(p.Causes) > 0 && p.Causes[0].Kind == "interaction" })
	t.Logf("click page: %s", text)
	if len(p.Causes) == 0 || p.Causes[0].Kind != "interaction" || p.Causes[0].MS < 300 {
		t.Fatalf("first cause %+v, want the click interaction of 300 ms or more: %s", p.Causes, text)
	}
	what := p.Causes[0].What
	for _, sub := range []string{`click on e`, `button "Slow save"`, "input delay", "processing", "presentation", "script BUTTON#save.onclick slowSave /perf/slow-click.js:char ", "slowSave", "BUTTON#save.onclick"} {
		if !strings.Contains(what, sub) {
			t.Errorf("interaction cause lacks %q: %s", sub, what)
		}
	}
	if p.Vitals.INP < 300 {
		t.Errorf("inp_ms %v, want 300 or more", p.Vitals.INP)
	}
	if ref := perfRef.FindString(what); ref == "" {
		t.Errorf("no ref in %s", what)
	} else if got := e.ok("get_text", map[string]any{"ref": ref})["text"]; got != "Slow save" {
		t.Errorf("get_text of the cause's ref %s: %q, want the button's", ref, got)
	}
	if len(text) > 1200 {
		t.Errorf("the answer is %d characters, want it small:\n%s", len(text), text)
	}

	e.open("/perf/blocking.html")
	p, text = e.perf(func(p perfResult) bool { return len(p.Causes) > 0 })
	t.Logf("blocking page: %s", text)
	if len(p.Causes) == 0 || p.Causes[0].Kind != "render_blocking" || p.Causes[0].MS < 1000 ||
		!strings.Contains(p.Causes[0].What, "script /perf/slow.js?delay=1200 blocked rendering") {
		t.Fatalf("first cause %+v, want the render-blocking /perf/slow.js of 1 200 ms: %s", p.Causes, text)
	}
	if p.Vitals.FCP < 1000 {
		t.Errorf("fcp_ms %v, want after the blocking script (1 200 ms)", p.Vitals.FCP)
	}

	e.open("/perf/shift.html")
	p, text = e.perf(func(p perfResult) bool { return len(p.Causes) > 0 && p.Causes[0].Kind == "layout_shift" })
	t.Logf("shift page: %s", text)
	if len(p.Causes) == 0 || p.Causes[0].Kind != "layout_shift" || p.Causes[0].CLS < 0.05 {
		t.Fatalf("first cause %+v, want a layout shift: %s", p.Causes, text)
	}
	what = p.Causes[0].What
	for _, sub := range []string{`img "Late banner"`, "(/perf/late.png?delay=300)", "without width and height", "; moved e"} {
		if !strings.Contains(what, sub) {
			t.Errorf("layout shift cause lacks %q: %s", sub, what)
		}
	}
	if p.Vitals.CLS < 0.05 {
		t.Errorf("cls %v, want the shift's", p.Vitals.CLS)
	}
}
