//go:build unix

// Package peers runs the two peer MCP servers the bench compares gasoline
// with, playwright-mcp and chrome-devtools-mcp, over stdio with the official
// MCP Go SDK client, headless on the given Chromium. The peers are installed
// by the caller, test-only and never committed:
//
//	npm install --prefix /tmp/peers @playwright/mcp chrome-devtools-mcp
//
// They are measured by hand (cmd/snapcompare, cmd/browserbench), never in a
// test or CI.
package peers

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Peer is one running peer MCP server with its own browser.
type Peer struct {
	Name    string // "playwright-mcp" or "chrome-devtools-mcp"
	RefWord string // what the peer calls a ref: "ref" or "uid"
	cs      *mcp.ClientSession
	// nav names the tool and arguments that open url in a page.
	nav func(url string) (string, map[string]any)
	// snapshot names the snapshot tool; snapArgs gives its arguments from
	// the last navigation's text.
	snapshot string
	snapArgs func(navText string) map[string]any
	// click names the click tool; clickArgs its arguments for a ref found
	// in a snapshot and the element's description (playwright-mcp 0.0.83
	// calls the ref "target"; chrome-devtools-mcp 1.11 wants the page id
	// from the last navigation's text).
	click     string
	clickArgs func(ref, desc, navText string) map[string]any
	// ref finds a role and name's ref in the snapshot tool's text.
	ref     func(snap, role, name string) string
	navText string
	// shot names the viewport screenshot tool (its arguments are snapArgs').
	shot string
}

// Playwright starts playwright-mcp (npm @playwright/mcp) at path on the
// Chromium at chromium.
func Playwright(ctx context.Context, path, chromium string) (*Peer, error) {
	p := &Peer{
		Name:     "playwright-mcp",
		RefWord:  "ref",
		nav:      func(url string) (string, map[string]any) { return "browser_navigate", map[string]any{"url": url} },
		snapshot: "browser_snapshot",
		shot:     "browser_take_screenshot",
		snapArgs: func(string) map[string]any { return map[string]any{} },
		click:    "browser_click",
		clickArgs: func(ref, desc, _ string) map[string]any {
			return map[string]any{"target": ref, "element": desc}
		},
		ref: func(snap, role, name string) string {
			// - button "Bench button" [ref=e2] [cursor=pointer]
			re := regexp.MustCompile(`(?m)- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `".*?\[ref=([^\]]+)\]`)
			if m := re.FindStringSubmatch(snap); m != nil {
				return m[1]
			}
			return ""
		},
	}
	return p, p.start(ctx, exec.Command(path, "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium))
}

// DevTools starts chrome-devtools-mcp (npm chrome-devtools-mcp) at path on
// the Chromium at chromium.
func DevTools(ctx context.Context, path, chromium string) (*Peer, error) {
	p := &Peer{
		Name:     "chrome-devtools-mcp",
		RefWord:  "uid",
		nav:      func(url string) (string, map[string]any) { return "new_page", map[string]any{"url": url} },
		snapshot: "take_snapshot",
		shot:     "take_screenshot",
		snapArgs: SelectedPage,
		click:    "click",
		clickArgs: func(ref, _, navText string) map[string]any {
			args := SelectedPage(navText)
			args["uid"] = ref
			return args
		},
		ref: func(snap, role, name string) string {
			// uid=1_2 button "Bench button"
			re := regexp.MustCompile(`(?m)uid=(\S+) ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`)
			if m := re.FindStringSubmatch(snap); m != nil {
				return m[1]
			}
			return ""
		},
	}
	return p, p.start(ctx, exec.Command(path, "--headless", "--isolated", "--executablePath", chromium, "--chrome-arg=--no-sandbox"))
}

func (p *Peer) start(ctx context.Context, cmd *exec.Cmd) error {
	cmd.Stderr = nil
	c := mcp.NewClient(&mcp.Implementation{Name: "gasoline-bench", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	p.cs = cs
	return nil
}

// Close stops the peer and its browser.
func (p *Peer) Close() error { return p.cs.Close() }

// Call calls tool and returns its text; a tool error is an error.
func (p *Peer) Call(ctx context.Context, tool string, args map[string]any) (string, error) {
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", p.Name, tool, err)
	}
	if res.IsError {
		return "", fmt.Errorf("%s %s: %s", p.Name, tool, Text(res))
	}
	return Text(res), nil
}

// Navigate opens url in the peer's page (chrome-devtools-mcp: a new page,
// which it selects).
func (p *Peer) Navigate(ctx context.Context, url string) error {
	name, args := p.nav(url)
	t, err := p.Call(ctx, name, args)
	if err == nil {
		p.navText = t
	}
	return err
}

// Snapshot returns the peer's snapshot of the current page.
func (p *Peer) Snapshot(ctx context.Context) (string, error) {
	return p.Call(ctx, p.snapshot, p.snapArgs(p.navText))
}

// Screenshot takes a viewport screenshot with the peer's defaults (PNG).
func (p *Peer) Screenshot(ctx context.Context) error {
	_, err := p.Call(ctx, p.shot, p.snapArgs(p.navText))
	return err
}

// ShotTool names the peer's screenshot tool.
func (p *Peer) ShotTool() string { return p.shot }

// FindRef returns the ref (playwright-mcp) or uid (chrome-devtools-mcp) of
// the element with role and name in a snapshot, "" if there is none.
func (p *Peer) FindRef(snap, role, name string) string { return p.ref(snap, role, name) }

// Click clicks the element with ref through the peer's click tool and
// returns its answer's text.
func (p *Peer) Click(ctx context.Context, ref, desc string) (string, error) {
	return p.Call(ctx, p.click, p.clickArgs(ref, desc, p.navText))
}

var selectedRE = regexp.MustCompile(`(?m)^(\d+): .* \[selected\]$`)

// SelectedPage reads the selected page's id from chrome-devtools-mcp's
// page list ("2: http://… [selected]"), which take_snapshot needs.
func SelectedPage(navText string) map[string]any {
	m := selectedRE.FindStringSubmatch(navText)
	if m == nil {
		return map[string]any{}
	}
	var id int
	fmt.Sscan(m[1], &id)
	return map[string]any{"pageId": id}
}

// Text is the concatenated text content of a tool result.
func Text(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// SnapshotTool names the peer's snapshot tool.
func (p *Peer) SnapshotTool() string { return p.snapshot }

// ClickTool names the peer's click tool.
func (p *Peer) ClickTool() string { return p.click }
