//go:build unix

// Command snapcompare measures, on the same pages, the tokens of gasoline's
// analyze({what:"dom"}) and of the page snapshots two peer MCP servers give
// an agent: playwright-mcp's browser_snapshot and chrome-devtools-mcp's
// take_snapshot. Tokens are estimated as characters/4 of each tool result's
// text. It also counts the interactive elements gasoline's outline gives a
// ref to. The peers are installed by the caller (npm, test-only) and run
// on the same Chromium; nothing of theirs is copied here.
//
//	npm install --prefix /tmp/peers @playwright/mcp chrome-devtools-mcp
//	cd test/e2e && go run ./cmd/snapcompare \
//	    -playwright /tmp/peers/node_modules/.bin/playwright-mcp \
//	    -devtools /tmp/peers/node_modules/.bin/chrome-devtools-mcp
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/peers"
)

var (
	playwright = flag.String("playwright", "", "path of the playwright-mcp executable (npm @playwright/mcp)")
	devtools   = flag.String("devtools", "", "path of the chrome-devtools-mcp executable (npm chrome-devtools-mcp)")
	dump       = flag.String("dump", "", "directory to write every page's tool result text to, to compare them by eye")
)

// pages are the fixture pages compared, by path on the test site; file
// names the -dump files.
var pages = []struct{ name, path, file string }{
	{"sign-in form", "/hands/login.html", "login"},
	{"widgets (iframe, shadow DOM)", "/hands/widgets.html", "widgets"},
	{"React signup app", "/react/index.html", "react"},
	{"300-element list", "/hands/list300.html", "list300"},
	{"1 800-element list", "/hands/list1800.html", "list1800"},
	{"100-row data table", "/hands/table100.html", "table100"},
}

// save writes text to the -dump directory as <page>.<tool>.txt, when -dump is set.
func save(page, tool, text string) {
	if *dump == "" {
		return
	}
	if err := os.MkdirAll(*dump, 0o755); err != nil {
		logf("dump: %v", err)
		return
	}
	if err := os.WriteFile(filepath.Join(*dump, page+"."+tool+".txt"), []byte(text), 0o644); err != nil {
		logf("dump: %v", err)
	}
}

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "snapcompare:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "snapcompare: "+format+"\n", args...)
}

// listPage is a list of n/3 items, each a li holding a link and a span.
func listPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>List</title></head><body><main><h1>List</h1><ul>`)
	for i := range n / 3 {
		fmt.Fprintf(&b, `<li><a href="/item/%d">Item %d</a> <span>about item %d</span></li>`, i, i, i)
	}
	b.WriteString(`</ul></main></body></html>`)
	return b.String()
}

// tablePage is a table of n rows under a header row, each row a link, two
// texts and an Edit button.
func tablePage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Orders</title></head><body><main><h1>Orders</h1>` +
		`<table><caption>Recent orders</caption><thead><tr><th>Order</th><th>Customer</th><th>Total</th><th></th></tr></thead><tbody>`)
	for i := range n {
		fmt.Fprintf(&b, `<tr><td><a href="/order/%d">#%d</a></td><td>Customer %d</td><td>$%d.00</td><td><button>Edit</button></td></tr>`, i, 1000+i, i, 10+i)
	}
	b.WriteString(`</tbody></table></main></body></html>`)
	return b.String()
}

func run(ctx context.Context) error {
	if *playwright == "" || *devtools == "" {
		return errors.New("pass -playwright and -devtools (see the command's doc)")
	}
	bin, err := chromium.Find()
	if err != nil {
		return err
	}
	root, err := gasoline.RepoRoot()
	if err != nil {
		return err
	}
	files := http.FileServer(http.Dir(filepath.Join(root, "test", "e2e", "testdata")))
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hands/list300.html":
			fmt.Fprint(w, listPage(300))
		case "/hands/list1800.html":
			fmt.Fprint(w, listPage(1800))
		case "/hands/table100.html":
			fmt.Fprint(w, tablePage(100))
		default:
			files.ServeHTTP(w, r)
		}
	}))
	defer site.Close()

	gas, err := gasolineOutlines(ctx, bin, root, site.URL)
	if err != nil {
		return fmt.Errorf("gasoline: %w", err)
	}
	pw, err := peerSnapshots(ctx, peers.Playwright, *playwright, bin, site.URL)
	if err != nil {
		return err
	}
	cd, err := peerSnapshots(ctx, peers.DevTools, *devtools, bin, site.URL)
	if err != nil {
		return err
	}

	fmt.Println("| page | gasoline `analyze dom` | refs / interactive | `interactive_only` | playwright-mcp `browser_snapshot` | chrome-devtools-mcp `take_snapshot` | gasoline ÷ smaller peer |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for i, p := range pages {
		g := gas[i]
		smaller := min(pw[i], cd[i])
		fmt.Printf("| %s | %d | %d / %d | %d | %d | %d | %.2f |\n", p.name, g.tokens, g.refs, g.interactive, g.onlyTokens, pw[i], cd[i], float64(g.tokens)/float64(smaller))
	}
	return nil
}

type outline struct{ tokens, refs, interactive, onlyTokens int }

// refRE finds the refs in an outline: a link's "[name](e12 …)", or
// "e12 role" (f3e12 in a frame) starting a line or a table cell.
var refRE = regexp.MustCompile(`(?m)\]\((?:f\d+)?e\d+[ )]|(?:^|[ |])(?:f\d+)?e\d+ [a-z]+\b`)

// gasolineOutlines starts a daemon and Chromium with the extension, pairs
// them, and returns analyze dom's tokens for every page, with max_tokens at
// its largest so nothing is cut.
func gasolineOutlines(ctx context.Context, bin, root, base string) ([]outline, error) {
	tmp, err := os.MkdirTemp("", "gasoline-snapcompare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	logf("building gasoline")
	bins, err := gasoline.Build(ctx, root, tmp)
	if err != nil {
		return nil, err
	}
	d, err := gasoline.StartDaemon(ctx, bins, filepath.Join(tmp, "state"), "--log-level=warn")
	if err != nil {
		return nil, err
	}
	defer d.Stop(context.WithoutCancel(ctx))
	browser, err := chromium.Start(ctx, chromium.Options{Bin: bin, UserDataDir: filepath.Join(tmp, "profile"),
		ExtensionDir: filepath.Join(root, "extension"), URLs: []string{base + pages[0].path}, LogPath: filepath.Join(tmp, "chromium.log")})
	if err != nil {
		return nil, err
	}
	defer browser.Stop()
	conn, err := cdp.Dial(ctx, browser.WebSocketURL)
	if err != nil {
		return nil, err
	}
	if _, err := chromium.WaitForWorker(ctx, conn, 20*time.Second); err != nil {
		return nil, err
	}
	if err := chromium.PairDaemon(ctx, conn, d); err != nil {
		return nil, err
	}
	conn.Close()
	mc, err := gasoline.Connect(ctx, d)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	var out []outline
	for _, p := range pages {
		if r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": base + p.path, "wait_ms": 20000}); err != nil || r.Status != "complete" {
			return nil, fmt.Errorf("navigate %s: %s %v", p.path, r, err)
		}
		time.Sleep(300 * time.Millisecond) // let the React app render
		r, err := mc.Call(ctx, "analyze", map[string]any{"what": "dom", "max_tokens": 9000, "wait_ms": 20000})
		if err != nil || r.Status != "complete" {
			return nil, fmt.Errorf("analyze dom %s: %s %v", p.path, r, err)
		}
		var v struct {
			Outline     string `json:"outline"`
			Interactive int    `json:"interactive"`
			Omitted     string `json:"omitted"`
		}
		if err := json.Unmarshal(r.Value, &v); err != nil {
			return nil, err
		}
		// The agent reads the whole tool result text, not just the outline.
		tokens := (len(r.Text) + 3) / 4
		save(p.file, "gasoline", r.Text)
		if v.Omitted != "" {
			logf("%s: outline cut at 9000 tokens (%s)", p.path, v.Omitted)
		}
		o, err := mc.Call(ctx, "analyze", map[string]any{"what": "dom", "max_tokens": 9000, "interactive_only": true, "wait_ms": 20000})
		if err != nil || o.Status != "complete" {
			return nil, fmt.Errorf("analyze dom interactive_only %s: %s %v", p.path, o, err)
		}
		out = append(out, outline{tokens: tokens, refs: len(refRE.FindAllString(v.Outline, -1)), interactive: v.Interactive,
			onlyTokens: (len(o.Text) + 3) / 4})
		logf("gasoline %s: %d tokens", p.path, tokens)
	}
	return out, nil
}

// peerSnapshots starts a peer MCP server, navigates to every page and
// returns the estimated tokens of its snapshot tool's text result.
func peerSnapshots(ctx context.Context, start func(ctx context.Context, path, chromium string) (*peers.Peer, error),
	path, bin, base string) ([]int, error) {
	p, err := start(ctx, path, bin)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var out []int
	for _, pg := range pages {
		if err := p.Navigate(ctx, base+pg.path); err != nil {
			return nil, err
		}
		time.Sleep(300 * time.Millisecond)
		t, err := p.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		tokens := (len(t) + 3) / 4
		save(pg.file, p.SnapshotTool(), t)
		logf("%s %s: %d tokens", p.SnapshotTool(), pg.path, tokens)
		out = append(out, tokens)
	}
	return out, nil
}
