// Package perf ranks what made a page slow, from the browser's own
// measurements that the extension's collector (extension/perf/collect.js)
// reads on demand: slow interactions broken down into input delay,
// processing and presentation with the handler's script, render-blocking
// resources, layout shifts with the element that likely caused them, long
// animation frames with their scripts, long tasks, and the largest
// contentful paint.
package perf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Report is what the collector sends: the page's measurements, each list
// already bounded by the collector. Times are milliseconds since the
// document's time origin.
type Report struct {
	URL          string        `json:"url"`
	TabID        int64         `json:"tab_id"`
	Vitals       Vitals        `json:"vitals"`
	Interactions []Interaction `json:"interactions,omitempty"`
	Frames       []Frame       `json:"frames,omitempty"`
	LongTasks    []Task        `json:"long_tasks,omitempty"`
	Blocking     []Resource    `json:"blocking,omitempty"`
	Shifts       []Shift       `json:"shifts,omitempty"`
	// Unmeasured names what the browser does not measure: performance
	// entry types it has no observer for, and "render-blocking" when its
	// resource timing has no renderBlockingStatus (Firefox lacks
	// layout-shift, long-animation-frame, longtask and that field).
	Unmeasured []string `json:"unmeasured,omitempty"`
}

// Unmeasured says, one line each, what analyze performance cannot report
// in r's browser and why, so that a missing CLS or render-blocking cause
// reads as "not measured here", never as "none".
func Unmeasured(r Report) []string {
	lacks := map[string]bool{}
	for _, u := range r.Unmeasured {
		lacks[u] = true
	}
	var out []string
	add := func(what, why string) { out = append(out, what+": this browser "+why) }
	if lacks["layout-shift"] {
		add("cls and layout shifts", "reports no layout-shift entries (it has no Layout Instability API)")
	}
	if lacks["render-blocking"] {
		add("render-blocking resources", "gives resource timing no renderBlockingStatus")
	}
	switch {
	case lacks["long-animation-frame"] && lacks["longtask"]:
		add("long frames and long tasks, and the scripts behind slow interactions", "reports neither long-animation-frame nor longtask entries")
	case lacks["long-animation-frame"]:
		add("the scripts behind long tasks and slow interactions", "reports no long-animation-frame entries (long tasks come without their scripts)")
	}
	if lacks["event"] {
		add("inp and slow interactions", "reports no event timing entries")
	}
	if lacks["largest-contentful-paint"] {
		add("lcp", "reports no largest-contentful-paint entries")
	}
	return out
}

// Vitals are the page's web vitals as the buffered entries give them; a
// zero value was not measured.
type Vitals struct {
	LCP        float64  `json:"lcp_ms,omitempty"`
	LCPElement *Element `json:"lcp_element,omitempty"`
	LCPURL     string   `json:"lcp_url,omitempty"`
	CLS        float64  `json:"cls,omitempty"`
	INP        float64  `json:"inp_ms,omitempty"`
	FCP        float64  `json:"fcp_ms,omitempty"`
	TTFB       float64  `json:"ttfb_ms,omitempty"`
}

// Element is a page element as the outline names it: its ref (usable as an
// interact target), role and accessible name.
type Element struct {
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
}

// Script is one script of a long animation frame: how long it ran, where
// its code is (url, function, character position) and what invoked it
// (e.g. "BUTTON#save.onclick").
type Script struct {
	MS      float64 `json:"ms"`
	URL     string  `json:"url,omitempty"`
	Fn      string  `json:"fn,omitempty"`
	Char    int     `json:"char,omitempty"`
	Invoker string  `json:"invoker,omitempty"`
	Type    string  `json:"type,omitempty"` // the invoker's type: event-listener, classic-script, …
	// Early: it began before gasoline's document_start scripts were done
	// in the document, so before any page script: an extension's start
	// script (gasoline's, or another extension's that ran first), which
	// Chrome names by the page's URL as it names the page's inline scripts
	// (startScripts in extension/perf/scripts.js).
	Early bool `json:"early,omitempty"`
}

// extensionSchemes start the URLs of browsers' extension code.
var extensionSchemes = []string{"chrome-extension://", "moz-extension://", "safari-web-extension://"}

// Extension reports whether s is an extension's code, not the page's: by
// its URL (or invoker's) scheme, or Early.
func (s Script) Extension() bool {
	for _, p := range extensionSchemes {
		if strings.HasPrefix(s.URL, p) || strings.HasPrefix(s.Invoker, p) {
			return true
		}
	}
	return s.Early
}

// Interaction is one user interaction (the longest event of its
// interactionId) broken down as INP is.
type Interaction struct {
	Type         string   `json:"type"`
	Start        float64  `json:"start"`
	MS           float64  `json:"ms"`
	Delay        float64  `json:"delay"`
	Processing   float64  `json:"processing"`
	Presentation float64  `json:"presentation"`
	Target       *Element `json:"target,omitempty"`
	Script       *Script  `json:"script,omitempty"`
}

// Frame is one long animation frame.
type Frame struct {
	Start    float64  `json:"start"`
	MS       float64  `json:"ms"`
	Blocking float64  `json:"blocking"`
	Scripts  []Script `json:"scripts,omitempty"`
}

// Task is one long task.
type Task struct {
	Start float64 `json:"start"`
	MS    float64 `json:"ms"`
}

// Resource is a render-blocking resource: its fetch took MS from Start.
type Resource struct {
	URL   string  `json:"url"`
	Type  string  `json:"type,omitempty"`
	Start float64 `json:"start"`
	MS    float64 `json:"ms"`
}

// Shift is one layout shift without recent input, the elements it moved,
// and the image that likely caused it: one that finished loading shortly
// before, without width and height the layout could reserve.
type Shift struct {
	Start   float64   `json:"start"`
	Value   float64   `json:"value"`
	Sources []Element `json:"sources,omitempty"`
	Image   *Image    `json:"image,omitempty"`
}

// Image is an image element and when its response ended.
type Image struct {
	Element
	URL    string  `json:"url,omitempty"`
	Loaded float64 `json:"loaded"`
}

// Cause is one reason the page was slow, with its evidence in one line.
// Kind is interaction, render_blocking, layout_shift, lcp, long_frame or
// long_task; MS its time (the shift's score is in CLS instead).
type Cause struct {
	Kind  string  `json:"kind"`
	MS    int     `json:"ms,omitempty"`
	CLS   float64 `json:"cls,omitempty"`
	N     int     `json:"n,omitempty"` // how many times it happened, when more than once (MS and CLS are the worst)
	What  string  `json:"what"`
	score float64
	key   string // causes with one key are one culprit, happening again
}

// The thresholds each kind's impact is measured against: a cause at its
// threshold weighs 1. They are the "good" limits of the vitals each kind
// hurts (INP 200 ms, CLS 0.1, LCP 2.5 s); render-blocking time delays the
// first paint, held to 500 ms; a long frame or task not tied to an
// interaction counts half an interaction of its length.
const (
	interactionGood = 200.0
	shiftGood       = 0.1
	lcpGood         = 2500.0
	blockingGood    = 500.0
	frameGood       = 400.0
	// minScore leaves out what is too small to matter: a render-blocking
	// stylesheet of 20 ms, a shift of 0.005.
	minScore = 0.1
)

// Rank returns r's causes, the biggest first: each interaction, render-
// blocking resource, layout shift and long animation frame (long tasks when
// the browser gave no frames), and the LCP when it is over 2.5 s, leaving
// out those under a tenth of their threshold. A frame
// overlapping a reported interaction is that interaction's, not a cause of
// its own; a frame weighs the time its scripts ran (frameScore).
func Rank(r Report) []Cause {
	var out []Cause
	n := namer{origin: origin(r.URL)}
	for _, in := range r.Interactions {
		out = append(out, n.interaction(in))
	}
	for _, res := range r.Blocking {
		out = append(out, Cause{Kind: "render_blocking", MS: ms(res.MS), score: res.MS / blockingGood, key: "b " + res.URL,
			What: fmt.Sprintf("%s %s blocked rendering for %d ms%s", cmp.Or(res.Type, "resource"), n.url(res.URL), ms(res.MS), paintNote(r.Vitals.FCP))})
	}
	for _, s := range r.Shifts {
		out = append(out, n.shift(s))
	}
	if r.Vitals.LCP > lcpGood {
		what := fmt.Sprintf("largest contentful paint at %d ms", ms(r.Vitals.LCP))
		if e := r.Vitals.LCPElement; e != nil {
			what += ": " + element(*e)
		}
		if r.Vitals.LCPURL != "" {
			what += " (" + n.url(r.Vitals.LCPURL) + ")"
		}
		out = append(out, Cause{Kind: "lcp", MS: ms(r.Vitals.LCP), score: r.Vitals.LCP / lcpGood, What: what})
	}
	for _, f := range r.Frames {
		if overlapsInteraction(f, r.Interactions) {
			continue
		}
		what := fmt.Sprintf("long animation frame at %d ms: %d ms, %d ms blocking", ms(f.Start), ms(f.MS), ms(f.Blocking))
		key := fmt.Sprintf("f %v", f.Start) // a frame without scripts is its own
		if s := longest(f.Scripts); s != nil {
			what += "; " + n.script(*s)
			key = fmt.Sprintf("f %s %s %d", s.URL, s.Fn, s.Char)
			if s.Extension() {
				key = "f extension" // not the page's: one cause however many frames
			}
		}
		out = append(out, Cause{Kind: "long_frame", MS: ms(f.MS), score: frameScore(f), What: what, key: key})
	}
	if len(r.Frames) == 0 {
		for _, t := range r.LongTasks {
			out = append(out, Cause{Kind: "long_task", MS: ms(t.MS), score: t.MS / frameGood,
				What: fmt.Sprintf("long task at %d ms: %d ms (no script attribution: this browser reports no long animation frames)", ms(t.Start), ms(t.MS))})
		}
	}
	out = slices.DeleteFunc(out, func(c Cause) bool { return c.score < minScore })
	slices.SortStableFunc(out, func(a, b Cause) int { return cmp.Compare(b.score, a.score) })
	return merge(out)
}

// merge folds the causes sorted biggest first that share a key into the
// first (the worst), counting them in N.
func merge(sorted []Cause) []Cause {
	at := map[string]int{}
	out := sorted[:0]
	for _, c := range sorted {
		if i, ok := at[c.key]; ok && c.key != "" {
			out[i].N = max(out[i].N, 1) + 1
			continue
		}
		if c.key != "" {
			at[c.key] = len(out)
		}
		out = append(out, c)
	}
	return out
}

// namer words a cause's evidence: URLs of the page's own origin as paths,
// long ones cut in the middle (the report keeps them whole).
type namer struct{ origin string }

// maxURL is the longest URL a cause shows whole.
const maxURL = 64

func (n namer) url(u string) string {
	if n.origin != "" && strings.HasPrefix(u, n.origin+"/") {
		u = u[len(n.origin):]
	}
	if r := []rune(u); len(r) > maxURL {
		u = string(r[:maxURL/3]) + "…" + string(r[len(r)-maxURL*2/3:])
	}
	return u
}

// origin is scheme://host[:port] of u, "" when u has none.
func origin(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme == "" {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}

func (n namer) interaction(in Interaction) Cause {
	what := in.Type
	if in.Target != nil {
		what += " on " + element(*in.Target)
	}
	what += fmt.Sprintf(": %d ms (input delay %d, processing %d, presentation %d)", ms(in.MS), ms(in.Delay), ms(in.Processing), ms(in.Presentation))
	key := "i " + in.Type
	if in.Target != nil {
		key += " " + in.Target.Ref
	}
	if in.Script != nil {
		what += "; " + n.script(*in.Script)
		key += fmt.Sprintf(" %s %s %d", in.Script.URL, in.Script.Fn, in.Script.Char)
	}
	return Cause{Kind: "interaction", MS: ms(in.MS), score: in.MS / interactionGood, What: what, key: key}
}

func (n namer) shift(s Shift) Cause {
	what := fmt.Sprintf("layout shift %.3g at %d ms", s.Value, ms(s.Start))
	if s.Image != nil {
		what += fmt.Sprintf(", likely from %s loaded at %d ms without width and height", element(s.Image.Element), ms(s.Image.Loaded))
		if s.Image.URL != "" {
			what += " (" + n.url(s.Image.URL) + ")"
		}
	}
	if len(s.Sources) > 0 {
		names := make([]string, 0, 3)
		for _, e := range s.Sources[:min(3, len(s.Sources))] {
			names = append(names, element(Element{Ref: e.Ref, Role: e.Role})) // refs say where; names would cost more
		}
		what += "; moved " + strings.Join(names, ", ")
	}
	key := ""
	if s.Image != nil {
		key = "s " + s.Image.Ref // one late image, however many shifts it made
	}
	return Cause{Kind: "layout_shift", CLS: math.Round(s.Value*1000) / 1000, score: s.Value / shiftGood, What: what, key: key}
}

// overlapsInteraction reports whether frame f ran while an interaction
// waited for its next paint.
func overlapsInteraction(f Frame, ins []Interaction) bool {
	for _, in := range ins {
		if f.Start < in.Start+in.MS && in.Start < f.Start+f.MS {
			return true
		}
	}
	return false
}

// frameScore weighs a long frame by the time the page's scripts ran, what
// its page's code can change; a frame without scripts (style, layout, a
// busy machine) by half its blocking time; one whose scripts are all
// extensions' by half its blocking time left after them (the page cannot
// change what extensions run in it).
func frameScore(f Frame) float64 {
	var code, ext float64
	for _, s := range f.Scripts {
		if s.Extension() {
			ext += s.MS
		} else {
			code += s.MS
		}
	}
	if code == 0 {
		code = max(f.Blocking-ext, 0) / 2
	}
	return code / frameGood
}

// longest is the longest of the page's scripts in ss, else the longest of
// the extensions'; nil for none.
func longest(ss []Script) *Script {
	var best *Script
	for i := range ss {
		switch {
		case best == nil, best.Extension() && !ss[i].Extension():
			best = &ss[i]
		case best.Extension() == ss[i].Extension() && ss[i].MS > best.MS:
			best = &ss[i]
		}
	}
	return best
}

// script says where a script's time went: "script BUTTON#save.onclick
// slowSave http://…/app.js:char 120, 300 ms".
func (n namer) script(s Script) string {
	var b strings.Builder
	b.WriteString("script")
	invoker := cmp.Or(s.Invoker, s.Type)
	if invoker == s.URL { // a classic script's invoker is its own URL
		invoker = s.Type
	}
	for _, p := range []string{n.url(invoker), s.Fn} {
		if p != "" {
			b.WriteString(" " + p)
		}
	}
	if s.URL != "" {
		fmt.Fprintf(&b, " %s", n.url(s.URL))
		if s.Char > 0 {
			fmt.Fprintf(&b, ":char %d", s.Char)
		}
	}
	fmt.Fprintf(&b, ", %d ms", ms(s.MS))
	switch {
	case s.Early:
		b.WriteString(" (an extension's start script, not the page's: it ran before the page's first script; Chrome names it by the page's URL)")
	case s.Extension():
		b.WriteString(" (a browser extension's, not the page's)")
	}
	return b.String()
}

// element names an element as the outline does: `e12 button "Save"`.
func element(e Element) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{e.Ref, cmp.Or(e.Role, "element")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if e.Name != "" {
		n := e.Name
		if r := []rune(n); len(r) > 32 {
			n = string(r[:32]) + "…"
		}
		parts = append(parts, fmt.Sprintf("%q", n))
	}
	return strings.Join(parts, " ")
}

func paintNote(fcp float64) string {
	if fcp <= 0 {
		return ""
	}
	return fmt.Sprintf(" (first paint at %d ms)", ms(fcp))
}

func ms(v float64) int { return int(math.Round(v)) }
