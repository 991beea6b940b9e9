// Package testgen turns what the capture buffers hold of one tab (the
// user's recorded actions, the navigations and requests they caused, the
// page's uncaught errors) into a Playwright Test file, and runs it.
package testgen

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// Result is a generated test: the file, each step with the captured action
// it came from, and each assertion with its evidence.
type Result struct {
	File       string      `json:"file"`
	StartURL   string      `json:"start_url"`
	Steps      []Step      `json:"steps"`
	Assertions []Assertion `json:"assertions"`
	// Secrets lists the environment variables the test reads instead of
	// the values typed into password and redacted fields.
	Secrets []Secret `json:"secrets,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// Step is one replayed action: its line of the file, its code, and the id
// (cursor) of the captured action it came from.
type Step struct {
	Line   int    `json:"line"`
	Code   string `json:"code"`
	Source uint64 `json:"source,omitempty"`
	// Command is the correlation id of the agent's command it came from.
	Command string `json:"command,omitempty"`
}

// Assertion is one expectation of the file with what the capture showed.
type Assertion struct {
	Line     int      `json:"line"`
	Code     string   `json:"code"`
	Evidence string   `json:"evidence"`
	Sources  []uint64 `json:"sources,omitempty"`
}

// Secret is a value the test reads from the environment.
type Secret struct {
	Env   string `json:"env"`
	Field string `json:"field"`
}

// Recording is what Generate reads: one tab's entries in sequence order
// (*capture.ActionView, *capture.NavView, *capture.NetworkView and
// *capture.ErrorView; others are ignored), and the test's name.
type Recording struct {
	Name    string
	Entries []capture.View
	// Agent are the agent's own actions in the tab, merged by time.
	Agent []AgentAction
}

// ErrNoActions is returned by Generate for a window without actions.
var ErrNoActions = fmt.Errorf("no recorded actions in the window")

// causeRank orders entries of one millisecond: actions first, since what
// followed them may be their doing.
func causeRank(v capture.View) int {
	if _, ok := v.(*capture.ActionView); ok {
		return 0
	}
	return 1
}

// maxResponses is how many requests an action's step waits for.
const maxResponses = 3

// Generate writes the test of r. It is pure: the same recording gives the
// same file.
func Generate(r Recording) (Result, error) {
	g := &gen{}
	// Entries are in arrival order; a page's request can arrive before the
	// action that caused it (they come from different worlds, and the
	// recorder hands an action over when the page is idle), so order them
	// by when they happened, and within one millisecond an action before
	// what it may have caused.
	es := slices.Clone(r.Entries)
	slices.SortStableFunc(es, func(a, b capture.View) int {
		return cmp.Or(cmp.Compare(a.Header().TS, b.Header().TS), cmp.Compare(causeRank(a), causeRank(b)))
	})
	es, from := mergeAgent(es, r.Agent, &g.res.Notes)
	g.agent = from
	g.plan(es)
	if len(g.steps) == 0 {
		return Result{}, ErrNoActions
	}
	g.write(r.Name)
	return g.res, nil
}

// pstep is a planned step: the action and what followed it before the
// next step.
type pstep struct {
	a     *capture.ActionView
	navs  []*capture.NavView
	reqs  []*capture.NetworkView
	extra []*capture.ActionView // actions folded into this step (a change after an input)
	shown []*capture.ActionView // "appeared" records: the text the page showed after it
}

type gen struct {
	start    string
	startSrc uint64
	steps    []*pstep
	errors   []*capture.ErrorView
	lastAct  uint64 // seq of the last recorded action
	agentTS  int64  // when the last agent action was made (ms), 0 for none
	res      Result
	lines    []string
	secrets  map[string]string // selector → env
	agent    map[*capture.ActionView]string
}

// plan groups the entries into steps.
func (g *gen) plan(es []capture.View) {
	var cur *pstep
	for _, v := range es {
		switch e := v.(type) {
		case *capture.ActionView:
			if e.Type == "appeared" || e.Type == "agent_appeared" {
				if s := g.shownBy(e); s != nil {
					s.shown = append(s.shown, e)
				}
				continue
			}
			if g.start == "" {
				g.start, g.startSrc = e.PageURL, e.ID
			}
			if cur != nil && g.fold(cur, e) {
				continue
			}
			cur = &pstep{a: e}
			g.steps = append(g.steps, cur)
			if e.ID == 0 {
				g.agentTS = e.TS
			} else {
				g.lastAct = e.ID
			}
		case *capture.NavView:
			if cur == nil {
				g.start, g.startSrc = e.To, e.ID
				continue
			}
			cur.navs = append(cur.navs, e)
		case *capture.NetworkView:
			if cur != nil && (e.Type == "fetch" || e.Type == "xmlhttprequest" || e.Type == "xhr") && len(cur.reqs) < maxResponses {
				cur.reqs = append(cur.reqs, e)
			}
		case *capture.ErrorView:
			if e.Type == "uncaught" || e.Type == "unhandled_rejection" {
				g.errors = append(g.errors, e)
			}
		}
		if h := v.Header(); g.start == "" && h.PageURL != "" {
			g.start, g.startSrc = h.PageURL, h.ID
		}
	}
	// A submit that a click or an Enter already caused is not a step.
	var kept []*pstep
	for i, s := range g.steps {
		if s.a.Type == "submit" && i > 0 {
			p := g.steps[i-1].a
			if p.Type == "click" || (p.Type == "keydown" && p.Key == "Enter") {
				g.steps[i-1].navs = append(g.steps[i-1].navs, s.navs...)
				g.steps[i-1].reqs = append(g.steps[i-1].reqs, s.reqs...)
				g.steps[i-1].shown = append(g.steps[i-1].shown, s.shown...)
				continue
			}
		}
		kept = append(kept, s)
	}
	g.steps = kept
}

// shownBy is the step whose action made e's text appear: the latest on
// e's element, or, for a page's own text ("html", recorded by a document
// reached by navigation), the latest step when it navigated. The text an
// agent's command made appear ("agent_appeared", recorded from the
// runtime's "acting" signal, which names no command) is the latest agent
// step's when no user's step came after it.
func (g *gen) shownBy(e *capture.ActionView) *pstep {
	for i := len(g.steps) - 1; i >= 0; i-- {
		s := g.steps[i]
		if e.Type == "agent_appeared" {
			if g.agent[s.a] != "" {
				return s
			}
			return nil
		}
		if e.Selector == "html" {
			if len(s.navs) > 0 {
				return s
			}
			return nil
		}
		if g.agent[s.a] != "" {
			continue // the recorder does not see the agent's actions
		}
		if s.a.Selector == e.Selector || slices.ContainsFunc(s.extra, func(x *capture.ActionView) bool { return x.Selector == e.Selector }) {
			return s
		}
	}
	return nil
}

// fold reports whether e adds nothing to cur's step, whose action it may
// replace: a change (or a second input) that repeats a field's value is
// folded into its input, and the click on a checkbox, file input or select
// is replaced by the value it set (check, setInputFiles, selectOption). A
// click on a text field is kept: it may open something.
func (g *gen) fold(cur *pstep, e *capture.ActionView) bool {
	if cur.a.Selector != e.Selector || (e.Type != "change" && e.Type != "input") {
		return false
	}
	switch {
	case cur.a.Type == "input" && e.Type == "change" && cur.a.Value == e.Value && isChoice(e) && e.TS-cur.a.TS <= 1:
		// A select fires input and change in one task: it is chosen, not
		// typed (an extension older than the recorder's rule records both).
		cur.a, cur.extra = e, append(cur.extra, cur.a)
		return true
	case (cur.a.Type == "input" || cur.a.Type == "change") && cur.a.Value == e.Value:
		cur.extra = append(cur.extra, e)
		return true
	case cur.a.Type == "click" && (isToggle(e) || isFile(e) || isChoice(e)):
		cur.a, cur.extra = e, append(cur.extra, cur.a)
		return true
	}
	return false
}

// isChoice reports an action on a select (role combobox or listbox).
func isChoice(a *capture.ActionView) bool { return a.Role == "combobox" || a.Role == "listbox" }

func isToggle(a *capture.ActionView) bool {
	return a.Value == "checked" || a.Value == "unchecked"
}

var fileCount = regexp.MustCompile(`^\[(\d+) file\(s\)\]$`)

func isFile(a *capture.ActionView) bool { return fileCount.MatchString(a.Value) }

func redacted(a *capture.ActionView) bool { return strings.Contains(a.Value, "[redacted]") }

// emit appends a line and returns its number (1-based).
func (g *gen) emit(format string, args ...any) int {
	g.lines = append(g.lines, fmt.Sprintf(format, args...))
	return len(g.lines)
}

func (g *gen) write(name string) {
	g.secrets = map[string]string{}
	if name == "" {
		name = "recorded by gasoline"
	}
	g.emit("// Generated by gasoline (analyze test) from the actions recorded in the browser.")
	g.emit("import { test, expect } from '@playwright/test';")
	g.emit("")
	g.emit("test(%s, async ({ page }) => {", q(name))
	g.emit("  const pageErrors: string[] = [];")
	g.emit("  page.on('pageerror', (e) => pageErrors.push(e.message));")
	ln := g.emit("  await page.goto(%s);", q(g.start))
	g.res.StartURL = g.start
	g.res.Steps = append(g.res.Steps, Step{Line: ln, Code: strings.TrimSpace(g.lines[ln-1]), Source: g.startSrc})
	for i, s := range g.steps {
		g.step(i+1, s)
	}
	g.visibleText()
	g.pageErrors()
	g.emit("});")
	g.res.File = strings.Join(g.lines, "\n") + "\n"
}

func (g *gen) step(n int, s *pstep) {
	a := s.a
	loc := locator(a)
	code, comment := g.actionCode(loc, a)
	if comment != "" {
		g.emit("  // %s", jsComment(comment))
	}
	var waits []string
	for i, r := range s.reqs {
		v := fmt.Sprintf("response%d_%d", n, i+1)
		waits = append(waits, v)
		path := pathOf(r.URL)
		g.emit("  const %s = page.waitForResponse((r) => r.request().method() === %s && new URL(r.url()).pathname === %s, { timeout: 15000 });", v, q(r.Method), q(path))
	}
	ln := g.emit("  %s", code)
	g.res.Steps = append(g.res.Steps, Step{Line: ln, Code: code, Source: a.ID, Command: g.agent[a]})
	for i, r := range s.reqs {
		g.response(waits[i], r)
	}
	if len(s.navs) > 0 {
		last := s.navs[len(s.navs)-1]
		code := fmt.Sprintf("await expect(page).toHaveURL(%s);", q(last.To))
		ln := g.emit("  %s", code)
		var src []uint64
		for _, nv := range s.navs {
			src = append(src, nv.ID)
		}
		g.res.Assertions = append(g.res.Assertions, Assertion{Line: ln, Code: code, Sources: src,
			Evidence: fmt.Sprintf("navigation (%s) to %s after action %d", last.Type, last.To, a.ID)})
	}
}

func (g *gen) response(v string, r *capture.NetworkView) {
	var code, ev string
	switch {
	case r.Status == 0:
		code = fmt.Sprintf("expect((await %s).ok()).toBe(true);", v)
		ev = fmt.Sprintf("%s %s failed (%s) when recorded; asserts it succeeds", r.Method, r.URL, r.Error)
	case r.Status >= 500:
		code = fmt.Sprintf("expect((await %s).status()).toBeLessThan(500); // recorded %d: asserts the fix", v, r.Status)
		ev = fmt.Sprintf("%s %s answered %d when recorded; the test asserts it no longer fails", r.Method, r.URL, r.Status)
	default:
		code = fmt.Sprintf("expect((await %s).status()).toBe(%d);", v, r.Status)
		ev = fmt.Sprintf("%s %s answered %d", r.Method, r.URL, r.Status)
	}
	ln := g.emit("  %s", code)
	g.res.Assertions = append(g.res.Assertions, Assertion{Line: ln, Code: code, Evidence: ev, Sources: []uint64{r.ID}})
}

// pageErrors asserts the page threw nothing: when the recording ended on
// an uncaught error (none of the user's actions followed it), that is the
// bug the user reproduced, and the assertion names it: the test fails
// until the bug is fixed.
func (g *gen) pageErrors() {
	g.emit("  await page.waitForLoadState('networkidle'); // let late errors surface")
	if len(g.errors) == 0 {
		code := "expect(pageErrors).toEqual([]);"
		ln := g.emit("  %s", code)
		g.res.Assertions = append(g.res.Assertions, Assertion{Line: ln, Code: code, Evidence: "no uncaught page error was captured in the window"})
		return
	}
	last := g.errors[len(g.errors)-1]
	var src []uint64
	var earlier []string
	for _, e := range g.errors {
		src = append(src, e.ID)
		if e != last && !contains(earlier, e.Message) {
			earlier = append(earlier, e.Message)
		}
	}
	if last.ID > g.lastAct && last.TS >= g.agentTS {
		g.emit("  // The recording ended on this uncaught error: the bug being reported. This test fails while it")
		g.emit("  // happens and passes once it is fixed.")
		code := fmt.Sprintf("expect(pageErrors, %s).not.toContain(%s);", q("the reported error: "+clip(last.Message, 120)), q(last.Message))
		ln := g.emit("  %s", code)
		g.res.Assertions = append(g.res.Assertions, Assertion{Line: ln, Code: code, Sources: []uint64{last.ID},
			Evidence: fmt.Sprintf("uncaught %s after the last action (%d): %s", last.Type, g.lastAct, clip(last.Message, 200))})
		if len(earlier) == 0 {
			return
		}
	} else if !contains(earlier, last.Message) {
		earlier = append(earlier, last.Message)
	}
	if len(earlier) > 0 {
		g.emit("  // Errors thrown while recording, before the end, are tolerated:")
		list := make([]string, len(earlier))
		for i, m := range earlier {
			list[i] = q(m)
		}
		g.emit("  const knownErrors = [%s];", strings.Join(list, ", "))
		code := "expect(pageErrors.filter((m) => !knownErrors.includes(m))).toEqual([]);"
		ln := g.emit("  %s", code)
		g.res.Assertions = append(g.res.Assertions, Assertion{Line: ln, Code: code, Sources: src,
			Evidence: fmt.Sprintf("%d uncaught error(s) during the recording are tolerated; no other may occur", len(earlier))})
	}
}

// actionCode is the statement replaying a, and a comment to put above it.
func (g *gen) actionCode(loc string, a *capture.ActionView) (code, comment string) {
	switch a.Type {
	case "click":
		return fmt.Sprintf("await %s.click(%s);", loc, clickOpts(a.Modifiers)), ""
	case "dblclick":
		return fmt.Sprintf("await %s.dblclick(%s);", loc, clickOpts(a.Modifiers)), ""
	case "keydown":
		key := strings.Join(append(append([]string{}, a.Modifiers...), a.Key), "+")
		return fmt.Sprintf("await %s.press(%s);", loc, q(key)), ""
	case "submit":
		return fmt.Sprintf("await %s.evaluate((f) => (f as HTMLFormElement).requestSubmit());", loc), ""
	case "click_at": // an agent's click at a point of the viewport; Value is "x, y"
		return fmt.Sprintf("await page.mouse.click(%s);", a.Value), ""
	case "scroll_by": // an agent's scroll by pixels, of the page without a locator; Value is scrollBy's options
		if a.Locator == nil {
			return fmt.Sprintf("await page.evaluate(() => window.scrollBy(%s));", a.Value), ""
		}
		return fmt.Sprintf("await %s.evaluate((el) => el.scrollBy(%s));", loc, a.Value), ""
	}
	// input and change
	switch {
	case isToggle(a) && a.Value == "checked":
		return fmt.Sprintf("await %s.check();", loc), ""
	case isToggle(a):
		return fmt.Sprintf("await %s.uncheck();", loc), ""
	case isFile(a):
		n, _ := strconv.Atoi(fileCount.FindStringSubmatch(a.Value)[1])
		files := make([]string, n)
		for i := range files {
			files[i] = q(fmt.Sprintf("fixtures/upload-%d-%d", a.ID, i+1))
		}
		return fmt.Sprintf("await %s.setInputFiles([%s]);", loc, strings.Join(files, ", ")),
			fmt.Sprintf("The user uploaded %d file(s); put fixtures under fixtures/ with these names.", n)
	case redacted(a):
		env, ok := g.secrets[a.Selector]
		if !ok {
			env = fmt.Sprintf("GASOLINE_SECRET_%d", len(g.secrets)+1)
			g.secrets[a.Selector] = env
			g.res.Secrets = append(g.res.Secrets, Secret{Env: env, Field: fieldName(a)})
		}
		do := "fill"
		if a.Type == "change" && (a.Role == "combobox" || a.Role == "listbox") {
			do = "selectOption"
		}
		return fmt.Sprintf("await %s.%s(process.env.%s ?? '');", loc, do, env),
			fmt.Sprintf("%s: a secret, never recorded; set %s.", fieldName(a), env)
	case a.Type == "change" && (a.Role == "combobox" || a.Role == "listbox"):
		return fmt.Sprintf("await %s.selectOption(%s);", loc, q(a.Value)), ""
	}
	return fmt.Sprintf("await %s.fill(%s);", loc, q(a.Value)), ""
}

func fieldName(a *capture.ActionView) string {
	if a.Name != "" {
		return "the field " + q(a.Name)
	}
	return "the field " + q(a.Selector)
}

func clickOpts(mods []string) string {
	if len(mods) == 0 {
		return ""
	}
	list := make([]string, len(mods))
	for i, m := range mods {
		list[i] = q(m)
	}
	return "{ modifiers: [" + strings.Join(list, ", ") + "] }"
}

// locator is the Playwright locator of a's element: the DOM engine's
// locator by test id, role and name, label, then CSS.
func locator(a *capture.ActionView) string {
	l := a.Locator
	if l == nil {
		return fmt.Sprintf("page.locator(%s)", q(a.Selector))
	}
	switch l.By {
	case "testid":
		if l.Attr == "" || l.Attr == "data-testid" {
			return fmt.Sprintf("page.getByTestId(%s)", q(l.Value))
		}
		return fmt.Sprintf("page.locator(%s)", q(fmt.Sprintf("[%s=%s]", l.Attr, strconv.Quote(l.Value))))
	case "role":
		if l.Name == "" {
			return fmt.Sprintf("page.getByRole(%s)", q(l.Role))
		}
		return fmt.Sprintf("page.getByRole(%s, { name: %s, exact: true })", q(l.Role), q(l.Name))
	case "label":
		return fmt.Sprintf("page.getByLabel(%s, { exact: true })", q(l.Name))
	}
	return fmt.Sprintf("page.locator(%s)", q(cmpOr(l.Selector, a.Selector)))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pathOf is the path of u, or u when it does not parse.
func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return cmpOr(u, "/")
	}
	return p.Path
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
