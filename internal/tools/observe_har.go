package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/har"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// observe({what:"network", format:"har"}) exports the captured requests the
// filters select as HAR 1.2 (package har), stored in the output store: the
// agent gets a handle and saves the archive with resources/read
// (application/json).
//
// A replay needs the page's own bodies, and the capture keeps only what the
// page's JavaScript read (fetch/XHR text bodies): webRequest sees documents,
// scripts and stylesheets but never their bodies. Reading every body of
// every page as it loads would cost every page, so the bodies are read on
// export instead: the extension re-reads each document, script and
// stylesheet of a tab in that tab's page, from the browser's HTTP cache
// (fetch with cache "only-if-cached", same-origin: no network, the bytes the
// page was served). An export never touches the site: nothing is fetched
// again (a no-store GET /danger?do=delete would run twice, with the user's
// cookies). Each entry's content comment says where its text came from
// (har.FromCapture, har.FromCache) or why it has none, and a body not
// captured is marked "_notCaptured": true. The re-reads are left out of the
// capture, so an export adds nothing to the next. Limits: a resource served
// no-store or evicted from the cache, or of another origin, has no body;
// the re-read runs in what the tab shows now, so a tab that navigated to
// another origin reads nothing from the cache; bodies are text (images and
// fonts are not re-read) and stop at the capture's body cap; only
// successful GETs are re-read.
//
// The same command returns the tab's Resource Timing entries of the
// exported URLs (its top document's performance timeline, read before the
// re-reads): har.Match pairs them with the requests by URL and start time,
// and they give each entry its httpVersion (nextHopProtocol) and its phase
// timings. A request of a document the tab has since left, of an iframe,
// or past the page's timing buffer (250 entries unless the page raised it)
// has none: its entry says so and keeps the total time as wait.

// harHandlePrefix starts the output store ids of exported archives; no
// action queues commands under it (har_bodies queues under "harbody").
const harHandlePrefix = "har_"

// maxHAREntries bounds the requests one export reads.
const maxHAREntries = 2000

// harBodyWait bounds the wait for the extension's re-read of the page's
// bodies; past it the archive goes out with what the capture holds.
const harBodyWait = 10 * time.Second

// harBodyTypes are the resource types whose bodies are re-read on export.
var harBodyTypes = []string{"document", "script", "stylesheet"}

// harParams are the params of the har_bodies command: the extension reads
// urls again in tab tab_id's page, each up to max_bytes, and returns the
// page's Resource Timing entries of the timings URLs.
type harParams struct {
	TabID    int64    `json:"tab_id" required:"true"`
	URLs     []string `json:"urls" required:"true"`
	MaxBytes int      `json:"max_bytes" min:"1"`
	Timings  []string `json:"timings"`
	// Force re-reads in a tab another agent owns (the export's force):
	// without it the extension refuses, naming the owner, and those
	// bodies say so.
	Force bool `json:"force"`
}

// harBody is one body har_bodies read (or its error).
type harBody struct {
	URL       string `json:"url"`
	Text      string `json:"text"`
	Source    string `json:"source"` // "cache" (an export never reads the network)
	Truncated bool   `json:"truncated"`
	Error     string `json:"error"`
}

// harView is format:"har"'s answer: the stored archive's handle and what
// it holds.
type harView struct {
	Entries int `json:"entries"`
	// Bodies counts the response bodies by where their text came from.
	Bodies map[string]int `json:"bodies"`
	storedView
	Hint string `json:"hint,omitempty"`
	// Lean counts the requests of pages loaded while no agent was at work,
	// exported without bodies (capture.Store.LeanRequestsNote).
	Lean string `json:"lean,omitempty"`
}

// networkHAR serves format:"har".
func (t *Tools) networkHAR(ctx context.Context, client string, a networkArgs) (any, error) {
	f := a.filter(capture.KindNetwork)
	f.Method, f.Status = a.Method, string(a.Status)
	sc, err := t.scope(client, a.entryArgs)
	if err != nil {
		return nil, err
	}
	if v, err := t.releaseHeld(ctx, client, t.heldTabs(a.TabID, sc)); v != nil || err != nil {
		return v, err
	}
	sc.apply(&f)
	xs, tabs, lean, err := t.exchanges(f)
	if err != nil {
		return nil, captureError(err)
	}
	hint := t.emptyHint(len(xs) == 0, false, 0, capture.KindNetwork)
	if hint == "" && len(xs) == 0 {
		hint = sc.hint()
	}
	t.fromPages(ctx, client, xs, tabs, a.Force)
	doc := har.Build(har.Creator{Name: "gasoline", Version: version.Version}, xs)
	doc.Log.Comment = "Response bodies: each content.comment says where the text came from (" + har.FromCapture + ", " +
		har.FromCache + ") or why there is none (and _notCaptured: an export never fetches from the site). Credential headers stay as captured ([redacted] unless redaction is off); " +
		"cookies are read from the captured Cookie and Set-Cookie headers, which Chrome mostly hides from the capture (a redacted one lists none). " +
		"httpVersion and timings come from the tab's Resource Timing entries; an entry without one says so."
	text, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, err
	}
	// One id per reader, capture state and selection: an export never
	// replaces another agent's, or the same agent's of other filters.
	sel, _ := json.Marshal(a)
	sum := sha256.Sum256(append([]byte(tracker.ClientName(client)+"\x00"), sel...))
	hid := harHandlePrefix + strconv.FormatUint(t.d.Capture.Head(), 10) + "_" + hex.EncodeToString(sum[:4])
	h, err := t.d.Results.Put(client, hid, string(text))
	if errors.Is(err, result.ErrNoStore) {
		return nil, mcp.Errorf("not_available", "", "a HAR is returned as a stored output and this daemon keeps no output store")
	}
	if err != nil {
		return nil, fmt.Errorf("storing the HAR: %w", err)
	}
	if h.Truncated {
		return nil, mcp.Errorf("too_large", `select fewer requests (url, status, method, since, tab_id) and export again`,
			"the HAR of %d requests is %d bytes, above the output store's per-output cap of %d", len(xs), h.OriginalBytes, h.Bytes)
	}
	v := &harView{Entries: len(xs), Bodies: map[string]int{}, storedView: storedViewOf(hid, "HAR", &result.Stored{Handle: h}), Hint: hint,
		Lean: t.d.Capture.LeanRequestsNote(lean)}
	for _, x := range xs {
		if x.ResponseBody.Text != "" {
			v.Bodies[x.ResponseBody.Source]++
		}
	}
	v.Output.Hint = fmt.Sprintf("Save it whole with resources/read of %s (application/json). ", v.ResourceLink.URI) + v.Output.Hint
	return v, nil
}

// origin is where a request came from: its tab and its resource type.
type origin struct {
	tab int64
	typ string
}

// exchanges reads the requests f selects, oldest first, in full (headers
// and captured bodies), with the origin of each, and counts per tab those
// that came from lean pages (their bodies were not kept).
func (t *Tools) exchanges(f capture.Filter) ([]har.Exchange, []origin, map[int64]capture.LeanCount, error) {
	since := uint64(0)
	if f.Since != nil {
		since = *f.Since
	}
	most := maxHAREntries
	if f.Limit > 0 { // limit caps the export, oldest first
		most = min(most, f.Limit)
	}
	f.Limit = capture.MaxLimit
	var xs []har.Exchange
	var tabs []origin
	lean := map[int64]capture.LeanCount{}
	for len(xs) < most {
		f.Since = &since
		p, err := t.d.Capture.Query(f)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, e := range p.Entries {
			if len(xs) == most {
				break
			}
			full, err := t.d.Capture.Entry(e.Header().ID)
			n, ok := full.(*capture.NetworkView)
			if err != nil || !ok {
				continue // evicted since the page was read
			}
			xs = append(xs, t.exchange(n))
			tabs = append(tabs, origin{n.TabID, n.Type})
			if n.Lean {
				k := lean[n.TabID]
				lean[n.TabID] = capture.LeanCount{N: k.N + 1, Newest: max(k.Newest, n.TS)}
			}
		}
		if !p.HasMore || p.NextCursor <= since {
			break
		}
		since = p.NextCursor
	}
	return xs, tabs, lean, nil
}

// exchange is the archive's view of request n, with its captured bodies.
func (t *Tools) exchange(n *capture.NetworkView) har.Exchange {
	x := har.Exchange{Started: time.UnixMilli(n.TS), PageURL: n.PageURL, Method: n.Method, URL: n.URL, Status: n.Status,
		Error: n.Error, DurationMS: n.DurationMS, MimeType: n.MimeType, RequestHeaders: n.RequestHeaders, ResponseHeaders: n.ResponseHeaders,
		Note: fmt.Sprintf("gasoline entry %d, %s, tab %d", n.ID, n.Type, n.TabID)}
	if n.Lean {
		x.Note += ", bodies not kept (its page was loaded while no agent was at work)"
	}
	x.RequestBody = t.capturedBody(n, "request")
	x.ResponseBody = t.capturedBody(n, "response")
	return x
}

func (t *Tools) capturedBody(n *capture.NetworkView, part string) har.Body {
	size := n.RequestSize
	if part == "response" {
		size = n.ResponseSize
	}
	b, err := t.d.Capture.Body(n.ID, part)
	if errors.Is(err, capture.ErrSendsNoBody) {
		return har.Body{None: true}
	}
	if err != nil {
		why := "not captured (the capture keeps fetch/XHR text bodies only)"
		if slices.Contains(harBodyTypes, n.Type) {
			why = "not captured, and not re-read from the page"
		}
		switch {
		case errors.Is(err, capture.ErrBodyPending):
			why = "still being read by the page"
		case errors.Is(err, capture.ErrBodyNotKept):
			why = "not kept: the page was loaded while no agent was at work (requests made after it is reloaded while an agent works have them)"
		}
		return har.Body{Size: size, Why: why}
	}
	return har.Body{Text: b.Text, Size: b.Size, Truncated: b.Truncated, Source: har.FromCapture}
}

// fromPages asks each tab of xs (made in tabs, by index) with one
// har_bodies command, waiting up to harBodyWait, for the missing response
// bodies of its documents, scripts and stylesheets (re-read in its page)
// and for the Resource Timing entries of its requests, and puts both in
// xs. A failure leaves the bodies out and says why in their comment; a
// tab another agent owns is read only with force (its page is theirs).
func (t *Tools) fromPages(ctx context.Context, client string, xs []har.Exchange, from []origin, force bool) {
	byTab := map[int64][]int{}
	var order []int64
	for i := range xs {
		tab := from[i].tab
		if tab < 0 {
			continue
		}
		if _, ok := byTab[tab]; !ok {
			order = append(order, tab)
		}
		byTab[tab] = append(byTab[tab], i)
	}
	reread := func(i int) bool {
		x := xs[i]
		return x.ResponseBody.Text == "" && x.Method == "GET" && x.Status >= 200 && x.Status <= 299 && rereadable(x, from[i].typ)
	}
	fail := func(idx []int, why string) {
		for _, i := range idx {
			if reread(i) {
				xs[i].ResponseBody.Why = "not captured, and not re-read from the page's cache: " + why
			}
		}
	}
	if len(order) == 0 {
		return
	}
	if !t.d.Tracker.Presence().Connected {
		for _, tab := range order {
			fail(byTab[tab], "no extension is connected")
		}
		return
	}
	wctx, cancel := context.WithTimeout(ctx, harBodyWait)
	defer cancel()
	maxBytes := max(t.d.Capture.Config().BodyCap, 1)
	for _, tab := range order {
		idx := byTab[tab]
		p := harParams{TabID: tab, URLs: []string{}, MaxBytes: maxBytes, Force: force}
		for _, i := range idx {
			if reread(i) && !slices.Contains(p.URLs, xs[i].URL) {
				p.URLs = append(p.URLs, xs[i].URL)
			}
			if !slices.Contains(p.Timings, xs[i].URL) {
				p.Timings = append(p.Timings, xs[i].URL)
			}
		}
		got, err := t.harBodies(wctx, client, p)
		if err != nil {
			fail(idx, err.Error())
			continue
		}
		for _, i := range idx {
			if !reread(i) {
				continue
			}
			b, ok := got.bodies[xs[i].URL]
			switch {
			case !ok:
				fail([]int{i}, "the extension did not answer for it")
			case b.Error != "":
				xs[i].ResponseBody.Why = b.Error // "not captured: ..."
			case b.Source != "cache":
				fail([]int{i}, "the extension answered from somewhere else than the cache, which an export never uses")
			default:
				xs[i].ResponseBody = har.Body{Text: b.Text, Size: xs[i].ResponseBody.Size, Truncated: b.Truncated, Source: har.FromCache}
			}
		}
		mine := make([]har.Exchange, len(idx))
		for k, i := range idx {
			mine[k] = xs[i]
		}
		har.Match(mine, got.timings)
		for k, i := range idx {
			xs[i].Timing = mine[k].Timing
		}
	}
}

// rereadable says whether x, a request of resource type typ, is a
// document, script or stylesheet the page can fetch again.
func rereadable(x har.Exchange, typ string) bool {
	u, err := url.Parse(x.URL)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && slices.Contains(harBodyTypes, typ)
}

// pageAnswer is what har_bodies read in a tab: bodies by URL, and the
// Resource Timing entries asked for.
type pageAnswer struct {
	bodies  map[string]harBody
	timings []har.Timing
}

// harBodies runs one har_bodies command and returns what it read.
func (t *Tools) harBodies(ctx context.Context, client string, p harParams) (pageAnswer, error) {
	var none pageAnswer
	enc, err := json.Marshal(p)
	if err != nil {
		return none, err
	}
	c, err := t.d.Tracker.Submit(tracker.Spec{Client: client, Prefix: "harbody", Action: "har_bodies", Params: enc, Timeout: harBodyWait})
	if err != nil {
		return none, fmt.Errorf("asking the extension: %w", err)
	}
	done, err := t.d.Tracker.Wait(ctx, client, c.ID)
	if err != nil {
		return none, fmt.Errorf("the extension did not answer within %s", harBodyWait)
	}
	if done.State != tracker.StateComplete {
		return none, fmt.Errorf("the extension could not read the tab: %s", done.Error)
	}
	raw := []byte(done.Result)
	if len(raw) == 0 {
		text, err := t.d.Results.ContentOf(done)
		if err != nil {
			return none, fmt.Errorf("reading the extension's answer: %w", err)
		}
		raw = []byte(text)
	}
	var r struct {
		Bodies  []harBody    `json:"bodies"`
		Timings []har.Timing `json:"timings"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return none, fmt.Errorf("reading the extension's answer: %w", err)
	}
	out := pageAnswer{bodies: make(map[string]harBody, len(r.Bodies)), timings: r.Timings}
	for _, b := range r.Bodies {
		out.bodies[b.URL] = b
	}
	return out, nil
}
