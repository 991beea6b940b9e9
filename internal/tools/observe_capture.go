package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// captureModes read what the user's tabs did, from the capture buffers
// (package capture): console logs, errors (grouped), requests, user actions
// with the navigations they caused, web vitals, and the tabs. They are
// reads, so idempotent; the ones with wait_ms block until a matching entry
// arrives after the cursor.
func captureModes() []action {
	return []action{
		entryMode("logs", "console", (*Tools).logs, true),
		entryMode("errors", "uncaught, grouped", (*Tools).errorGroups, true),
		entryMode("network", `requests; status "4xx"; body needs id; type "websocket": sockets, with id its frames`, (*Tools).network, true),
		entryMode("actions", "clicks, input, navigations", (*Tools).actions, true),
		entryMode("vitals", "", (*Tools).vitals, false),
		entryMode("page", "url, title, load status", (*Tools).page, false),
		entryMode("tabs", "", (*Tools).tabs, false),
	}
}

// entryMode declares a capture mode: a read, blocking up to MaxWait when it
// takes wait_ms.
func entryMode[A, R any](name, summary string, run func(t *Tools, ctx context.Context, client string, a A) (R, error), waits bool) action {
	a := handler("observe", name, summary, run)
	a.Idempotent = true
	if waits {
		a.MaxWait = MaxWait
	}
	return a
}

// entryArgs are the filters of the entry modes (logs to vitals). They are
// left out of each mode's argument list: the schema names them, and the
// tool's preamble says what since and id do.
type entryArgs struct {
	TabID *int64  `json:"tab_id"`
	Tabs  string  `json:"tabs" enum:"all"`
	Text  string  `json:"text"`
	URL   string  `json:"url"`
	Since *uint64 `json:"since"`
	Limit int     `json:"limit"`
	ID    *uint64 `json:"id"`
	// Force reads tab_id when another agent owns it (othersTab).
	Force bool `json:"force"`
}

func (a entryArgs) filter(kind capture.Kind, also ...capture.Kind) capture.Filter {
	return capture.Filter{Kind: kind, Also: also, TabID: a.TabID, Text: a.Text, URL: a.URL, Since: a.Since, Limit: a.Limit}
}

// One agent, its own things: a capture read covers the caller's tabs
// unless it names a tab_id or passes tabs:"all" (each entry says its
// tab_id). The caller's tabs are those the extension reports it owns (it
// opened them: new_tab, a navigate that opened a tab, tabs those opened)
// and those its commands worked in (their results' tab_id). An agent with
// neither, new to the session, reads the user's browsing: every tab but
// those another agent owns.

// tabScope is what a capture read of one client covers.
type tabScope struct {
	tabs   []int64 // nil: every tab (but except)
	except []int64 // other agents' tabs, for an agent with none of its own
	// users says the read covers the tabs no agent owns (an agent with none).
	users bool
}

func (s tabScope) apply(f *capture.Filter) { f.Tabs, f.ExceptTabs = s.tabs, s.except }

// scope returns the tabs client's read a covers.
func (t *Tools) scope(client string, a entryArgs) (tabScope, error) {
	known := t.d.Capture.Tabs(client).Tabs
	switch {
	case a.TabID != nil:
		return tabScope{}, othersTab(known, *a.TabID, a.Force)
	case a.Tabs == "all": // tabs' enum allows only "all"
		return tabScope{}, nil
	}
	var mine, others []int64
	for _, tab := range known {
		switch {
		case tab.Mine:
			mine = append(mine, tab.TabID)
		case tab.Owner != "":
			others = append(others, tab.TabID)
		}
	}
	for _, id := range t.d.Results.ActedIn(client) {
		if !slices.Contains(mine, id) {
			mine = append(mine, id)
		}
	}
	if len(mine) > 0 {
		return tabScope{tabs: mine}, nil
	}
	return tabScope{except: others, users: true}, nil
}

// othersTab refuses a read of tab, named by tab_id, when another agent
// owns it and the read does not pass force, naming the owner, as the
// extension refuses such a tab's commands (extension/tabs/owners.js).
func othersTab(known []capture.Tab, tab int64, force bool) error {
	for _, k := range known {
		if k.TabID == tab && k.Owner != "" && !k.Mine && !force {
			return mcp.Errorf("not_your_tab", `observe({what:"tabs"}) shows whose each tab is`,
				"tab %d belongs to agent %s, so reading its capture is refused; pass force:true to read it anyway, or read your own tabs (no tab_id)", tab, k.Owner)
		}
	}
	return nil
}

// hint says what a scoped read that found nothing covered.
func (s tabScope) hint() string {
	switch {
	case s.users:
		return `you have no tab yet, so this read the tabs no agent owns (the user's); tabs:"all" reads every tab`
	case s.tabs == nil:
		return ""
	}
	return fmt.Sprintf(`this read only your tabs %v; tabs:"all" reads every tab`, s.tabs)
}

// entryWait is the wait of the capture modes that block.
type entryWait struct {
	WaitMS *int64 `json:"wait_ms" min:"0" max:"55000"`
}

type (
	logArgs struct {
		entryArgs `list:"-"`
		MinLevel  string `json:"min_level"`
		entryWait
	}
	networkArgs struct {
		entryArgs `list:"-"`
		Method    string    `json:"method"`
		Status    statusArg `json:"status"`
		Body      string    `json:"body" enum:"request,response"`
		Type      string    `json:"type" enum:"websocket"`
		Format    string    `json:"format" enum:"har" desc:"stored HAR 1.2"`
		entryWait
	}
	waitingArgs struct {
		entryArgs `list:"-"`
		entryWait
	}
	vitalArgs struct {
		entryArgs `list:"-"`
	}
	pageArgs struct {
		TabID *int64 `json:"tab_id"`
	}
)

// statusArg is network's status filter: a string ("500", ">=400", "4xx"),
// or a bare number, which agents often pass for a single code.
type statusArg string

func (s *statusArg) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*s = statusArg(n.String())
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	*s = statusArg(str)
	return nil
}

func (t *Tools) logs(ctx context.Context, client string, a logArgs) (any, error) {
	f := a.filter(capture.KindLog)
	f.MinLevel = a.MinLevel
	return t.entries(ctx, client, a.entryArgs, f, a.WaitMS)
}

func (t *Tools) actions(ctx context.Context, client string, a waitingArgs) (any, error) {
	return t.entries(ctx, client, a.entryArgs, a.filter(capture.KindAction, capture.KindNav), a.WaitMS)
}

// firefoxUnmeasured is what observe vitals says when the extension runs in
// Firefox, whose pages report no layout-shift or longtask entries (analyze
// performance finds the same by feature detection: extension/perf/measure.js),
// so that a missing CLS reads as not measured, never as none.
const firefoxUnmeasured = "this browser (Firefox) measures no CLS (it has no Layout Instability API) and no long tasks: " +
	"they are missing here, not zero; TTFB, FCP, LCP and INP are measured"

func (t *Tools) vitals(ctx context.Context, client string, a vitalArgs) (any, error) {
	v, err := t.entries(ctx, client, a.entryArgs, a.filter(capture.KindVital), nil)
	if ev, ok := v.(*entriesView); ok && t.d.Health != nil && t.d.Health().Extension.Browser == apitype.BrowserFirefox {
		ev.Unmeasured = firefoxUnmeasured
	}
	return v, err
}

func (t *Tools) network(ctx context.Context, client string, a networkArgs) (any, error) {
	if a.Type == "websocket" {
		return t.websockets(ctx, client, a)
	}
	if a.Body != "" {
		if a.ID == nil {
			return nil, mcp.Errorf("invalid_arguments", `pass the request's id from observe({what:"network"}), e.g. {what:"network", id:42, body:"response"}`,
				"body needs the id of one request")
		}
		return t.body(ctx, client, *a.ID, a.Body, a.WaitMS)
	}
	if a.Format == "har" {
		return t.networkHAR(ctx, client, a)
	}
	f := a.filter(capture.KindNetwork)
	f.Method, f.Status = a.Method, string(a.Status)
	return t.entries(ctx, client, a.entryArgs, f, a.WaitMS)
}

// entriesView is a capture mode's page of entries.
type entriesView struct {
	capture.Page
	Hint string `json:"hint,omitempty"`
	// Frames says when iframes were not watched over what was read (capture.Frames.Note).
	Frames string `json:"frames,omitempty"`
	// Held says what the browser holds of origins the user has not allowed (heldNote).
	Held string `json:"held,omitempty"`
	// Unmeasured says which vitals the extension's browser does not measure, and why (vitals).
	Unmeasured string `json:"unmeasured,omitempty"`
}

// entries serves a capture mode: one entry in full by id; else a page of
// the entries f selects in client's tabs (scope), after waiting up to
// wait_ms for one to arrive after the cursor when asked. A wait that ends
// without one is a normal, empty answer.
func (t *Tools) entries(ctx context.Context, client string, a entryArgs, f capture.Filter, waitMS *int64) (any, error) {
	if a.ID != nil {
		return t.entry(f, *a.ID)
	}
	sc, err := t.scope(client, a)
	if err != nil {
		return nil, err
	}
	if v, err := t.releaseHeld(ctx, client, t.heldTabs(a.TabID, sc)); v != nil || err != nil {
		return v, err
	}
	sc.apply(&f)
	wait, err := waitArg(waitMS, 0, MaxWait)
	if err != nil {
		return nil, err
	}
	var p capture.Page
	timedOut := false
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		stop := t.reportProgress(ctx, captureProgress(string(f.Kind)))
		p, err = t.d.Capture.Wait(wctx, f)
		stop()
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err, timedOut = nil, true
		}
	} else {
		p, err = t.d.Capture.Query(f)
	}
	if err != nil {
		return nil, captureError(err)
	}
	v := &entriesView{Page: p, Hint: t.emptyHint(len(p.Entries) == 0, timedOut, p.Hidden, f.Kind, f.Also...), Frames: t.d.Capture.Frames().Note(a.Since)}
	if v.Hint == "" && len(p.Entries) == 0 {
		v.Hint = sc.hint()
	}
	if v.Hint == "" && p.Earlier {
		v.Hint = "older entries match too; since:0 reads from the oldest"
	}
	if a.TabID == nil {
		v.Held = t.heldNote(sc)
	}
	return v, nil
}

// emptyHint explains an empty answer: capture of the kind is off, no
// extension is connected to capture anything, noise rules hid what there
// was, or the wait ended.
func (t *Tools) emptyHint(empty, timedOut bool, hidden int, kind capture.Kind, also ...capture.Kind) string {
	if !empty {
		return ""
	}
	cfg := t.d.Capture.Config()
	for _, k := range append([]capture.Kind{kind}, also...) {
		if !cfg.Kinds[string(k)] {
			return fmt.Sprintf(`capture of %s entries is off; turn it on with configure({action:"capture", kind:%q, on:true})`, k, k)
		}
	}
	if t.d.Health != nil && !t.d.Health().Extension.Connected {
		return "no browser extension is connected, so nothing is being captured; configure({action:\"health\"}) says how to connect it"
	}
	if hidden > 0 {
		return fmt.Sprintf(`noise rules hid %d matching entries; configure({action:"noise_rule"}) lists the rules`, hidden)
	}
	if timedOut {
		return "nothing new arrived within wait_ms; wait again with since:next_cursor so nothing in between is missed"
	}
	return ""
}

// entryView is one entry in full. The entry is wrapped so that its fields
// (a request's HTTP status) never sit where a tool result's own status
// goes.
type entryView struct {
	Entry capture.View `json:"entry"`
}

// entry returns one entry in full detail, when it belongs to the mode that
// asks for it (f's kinds).
func (t *Tools) entry(f capture.Filter, id uint64) (*entryView, error) {
	v, err := t.d.Capture.Entry(id)
	if err != nil {
		return nil, captureError(err)
	}
	if k := v.Kind(); k != f.Kind && !slices.Contains(f.Also, k) {
		return nil, mcp.Errorf("wrong_mode", fmt.Sprintf(`read it with observe({what:%q, id:%d})`, modeOfKind[k], id),
			"entry %d is a %s entry, not a %s entry", id, k, f.Kind)
	}
	return &entryView{Entry: v}, nil
}

// modeOfKind is the observe mode that lists each kind of entry.
var modeOfKind = map[capture.Kind]string{
	capture.KindLog: "logs", capture.KindError: "errors", capture.KindNetwork: "network",
	capture.KindAction: "actions", capture.KindNav: "actions", capture.KindVital: "vitals",
	capture.KindWebSocket: "network",
}

// groupsView is errors' answer: errors grouped by message and source, as
// entries like every other capture mode's (capture.GroupPage renamed).
type groupsView struct {
	Entries    []capture.ErrorGroup `json:"entries"`
	Omitted    int                  `json:"omitted,omitempty"`
	NextCursor uint64               `json:"next_cursor"`
	Dropped    int64                `json:"dropped"`
	// DroppedTabUnknown is capture.GroupPage's.
	DroppedTabUnknown int64  `json:"dropped_tab_unknown,omitempty"`
	Missed            bool   `json:"missed,omitempty"`
	Hidden            int    `json:"hidden,omitempty"`
	Hint              string `json:"hint,omitempty"`
	Frames            string `json:"frames,omitempty"`
	Held              string `json:"held,omitempty"`
}

// errorGroups serves errors: the groups of every buffered error (or those
// after since), most recently seen first; with wait_ms, the groups of the
// errors that arrive after the cursor, once one does.
func (t *Tools) errorGroups(ctx context.Context, client string, a waitingArgs) (any, error) {
	f := a.filter(capture.KindError)
	if a.ID != nil {
		return t.entry(f, *a.ID)
	}
	sc, err := t.scope(client, a.entryArgs)
	if err != nil {
		return nil, err
	}
	if v, err := t.releaseHeld(ctx, client, t.heldTabs(a.TabID, sc)); v != nil || err != nil {
		return v, err
	}
	sc.apply(&f)
	wait, err := waitArg(a.WaitMS, 0, MaxWait)
	if err != nil {
		return nil, err
	}
	var p capture.GroupPage
	timedOut := false
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		stop := t.reportProgress(ctx, captureProgress(string(f.Kind)))
		p, err = t.d.Capture.WaitErrorGroups(wctx, f)
		stop()
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err, timedOut = nil, true
		}
	} else {
		p, err = t.d.Capture.ErrorGroups(f)
	}
	if err != nil {
		return nil, captureError(err)
	}
	v := &groupsView{Entries: p.Groups, Omitted: p.Omitted, NextCursor: p.NextCursor, Dropped: p.Dropped, DroppedTabUnknown: p.DroppedTabUnknown,
		Missed: p.Missed, Hidden: p.Hidden, Hint: t.emptyHint(len(p.Groups) == 0, timedOut, p.Hidden, capture.KindError),
		Frames: t.d.Capture.Frames().Note(a.Since)}
	if v.Hint == "" && len(p.Groups) == 0 {
		v.Hint = sc.hint()
	}
	if v.Hint == "" && len(p.Groups) > 0 {
		v.Hint = `each entry is one error and its repeats (count, first_seen, last_seen); observe({what:"errors", id:last_id}) gives the latest in full`
	}
	if a.TabID == nil {
		v.Held = t.heldNote(sc)
	}
	return v, nil
}

// Bodies up to inlineBodyBytes of JSON come back inline; larger ones (or
// any above the output store's inline threshold) are stored and come back
// as a handle, like a large command result.
const inlineBodyBytes = 30_000

// bodyView is a request's or response's body: inline, or stored with its
// handle (Text empty). The request's status is http_status: a tool
// result's own status is a command's.
type bodyView struct {
	ID         uint64      `json:"id"`
	Part       string      `json:"part"`
	Method     string      `json:"method"`
	URL        string      `json:"url"`
	HTTPStatus int         `json:"http_status"`
	MimeType   string      `json:"mime_type,omitempty"`
	Chars      int         `json:"chars"`
	Size       int64       `json:"size"` // the body's full size in bytes
	Truncated  bool        `json:"truncated"`
	Text       string      `json:"text,omitempty"`
	Stored     bool        `json:"stored,omitempty"`
	Output     *handleView `json:"output,omitempty"`
}

// bodyHandlePrefix starts the output store ids of stored bodies; no action
// queues commands under it, so they never clash with correlation ids.
const bodyHandlePrefix = "body_"

// bodyHandleID is the output store id of the body part of entry id as
// client read it: the id command_result's read modes take. Each reader gets
// its own id (a short hash of its name ends it), so a second agent reading
// the same body stores its own copy instead of taking the first one's.
func bodyHandleID(client string, id uint64, part string) string {
	sum := sha256.Sum256([]byte(tracker.ClientName(client)))
	return bodyHandlePrefix + strconv.FormatUint(id, 10) + "_" + part + "_" + hex.EncodeToString(sum[:4])
}

// bodyWait is how long a body read waits for a body the page is still
// reading when the call names no wait_ms.
const bodyWait = 3 * time.Second

// body returns one captured body, waiting up to wait_ms (bodyWait when
// absent) for one that is still coming. One too large to inline is put in
// the output store (replacing an earlier copy, and owned by client from then
// on) and read with command_result's modes, slice and extract.
func (t *Tools) body(ctx context.Context, client string, id uint64, part string, waitMS *int64) (any, error) {
	wait, err := waitArg(waitMS, bodyWait, MaxWait)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	b, err := t.d.Capture.WaitBody(wctx, id, part)
	cancel()
	if err != nil {
		return nil, captureError(err)
	}
	v := &bodyView{ID: b.ID, Part: b.Part, Method: b.Method, URL: b.URL, HTTPStatus: b.Status, MimeType: b.MimeType,
		Chars: b.Chars, Size: b.Size, Truncated: b.Truncated, Text: b.Text}
	if !t.d.Results.Oversize(b.Text) && len(encode(b.Text)) <= inlineBodyBytes {
		return v, nil
	}
	hid := bodyHandleID(client, id, part)
	h, err := t.d.Results.Put(client, hid, b.Text) // the reader's, as its handle is
	if errors.Is(err, result.ErrNoStore) {
		return nil, mcp.Errorf("not_available", "", "the body is too large to return inline and this daemon keeps no output store")
	}
	if err != nil {
		return nil, fmt.Errorf("storing the %s body of entry %d: %w", part, id, err)
	}
	s := storedViewOf(hid, part+" body", &result.Stored{Handle: h})
	v.Text, v.Stored, v.Output = "", true, &s.Output
	return v, nil
}

// page shows tab_id, else the tab the caller's commands last worked in,
// else the active tab.
func (t *Tools) page(_ context.Context, client string, a pageArgs) (*capture.Tab, error) {
	id := a.TabID
	if acted := t.d.Results.ActedIn(client); id == nil && len(acted) > 0 {
		if _, err := t.d.Capture.PageInfo(&acted[len(acted)-1]); err == nil {
			id = &acted[len(acted)-1]
		}
	}
	tab, err := t.d.Capture.PageInfo(id)
	if err != nil {
		return nil, captureError(err)
	}
	return &tab, nil
}

func (t *Tools) tabs(_ context.Context, client string, _ noArgs) (*tabsView, error) {
	return &tabsView{TabList: t.d.Capture.Tabs(client), Extension: t.extensionSkew()}, nil
}

// captureError turns the capture store's errors into tool errors; their
// messages say what to do next.
func captureError(err error) error {
	code, hint := "", ""
	switch {
	case errors.Is(err, capture.ErrBadFilter), errors.Is(err, capture.ErrBadRule), errors.Is(err, capture.ErrBadConfig):
		code = "invalid_arguments"
	case errors.Is(err, capture.ErrUnknownEntry):
		code = "unknown_entry"
	case errors.Is(err, capture.ErrBodyPending):
		code, hint = "body_pending", "the response is still arriving; read it again with a larger wait_ms"
	case errors.Is(err, capture.ErrBodyNotKept):
		code, hint = "body_not_kept", "a page loaded while no agent was at work keeps the bodies of failed requests only until it is reloaded"
	case errors.Is(err, capture.ErrSendsNoBody):
		code, hint = "no_body", `read its response body instead (body:"response")`
	case errors.Is(err, capture.ErrNoBody):
		code, hint = "no_body", `bodies are captured for fetch/XHR text bodies up to the body cap; configure({action:"capture"}) shows the settings`
	case errors.Is(err, capture.ErrTooManyRules):
		code, hint = "too_many_rules", `list them with configure({action:"noise_rule"}) and remove one with remove:"<id>"`
	case errors.Is(err, capture.ErrUnknownRule):
		code, hint = "unknown_rule", `configure({action:"noise_rule"}) lists the rules`
	case errors.Is(err, capture.ErrNoTab):
		code, hint = "no_tab", `configure({action:"health"}) shows whether the extension is connected`
	case errors.Is(err, capture.ErrUnknownTab):
		code, hint = "unknown_tab", `observe({what:"tabs"}) lists the tabs`
	case errors.Is(err, capture.ErrClosed):
		code, hint = "shutting_down", "the daemon is stopping; retry once it is back"
	default:
		return err
	}
	return mcp.Errorf(code, hint, "%s", strings.TrimSpace(err.Error()))
}
