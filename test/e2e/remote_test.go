package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// TestAgentAwayFromBrowser is the WSL / devcontainer / SSH setup: the
// agent, gasoline-mcp and the daemon live in a network namespace of their
// own (another machine, as far as the network goes), Chromium with the
// extension in the root namespace, and the two meet only through a loopback
// forwarder, as 'ssh -L' or an editor's forwarded port would join them
// (socat: 127.0.0.1:P here → a Unix socket → 127.0.0.1:P there). Pairing
// from the agent's shell, execute_js, a capture read and draw mode with a
// user's drag and note pass through it; nothing listens beyond loopback.
func TestAgentAwayFromBrowser(t *testing.T) {
	requireBrowser(t)
	for _, tool := range []string{"ip", "socat"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("GASOLINE_REQUIRE_BROWSER") == "1" {
				t.Fatalf("%s is needed: apt-get install iproute2 socat", tool)
			}
			t.Skipf("no %s", tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("making a network namespace needs root")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	ns := "gasoline-e2e-" + randHex(4)
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	if out, err := exec.Command("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("bringing lo up in %s: %v\n%s", ns, err, out)
	}
	inNS := []string{"ip", "netns", "exec", ns}

	// The agent's side: the daemon, started as a user would there.
	remote := bins
	remote.Wrap = inNS
	d, err := gasoline.StartDaemon(ctx, remote, filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatalf("starting the daemon in %s: %v", ns, err)
	}
	t.Cleanup(func() { d.Stop(context.WithoutCancel(ctx)) })

	// The forwarder, both halves bound to loopback, the same port each side.
	sock := filepath.Join(t.TempDir(), "fwd.sock")
	there := exec.Command("ip", "netns", "exec", ns, "socat", "UNIX-LISTEN:"+sock+",fork", "TCP:127.0.0.1:"+strconv.Itoa(d.Port))
	here := exec.Command("socat", "TCP-LISTEN:"+strconv.Itoa(d.Port)+",bind=127.0.0.1,reuseaddr,fork", "UNIX-CONNECT:"+sock)
	for _, c := range []*exec.Cmd{there, here} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		if c == there {
			waitFor(t, 10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil }, "the forwarder's socket")
		}
	}
	// The daemon is not reachable here but through the forwarder.
	waitFor(t, 10*time.Second, func() bool { _, err := d.Health(ctx); return err == nil }, "the daemon's /health through the forwarder")

	e := &env{t: t, ctx: ctx, site: newSite(t), profile: t.TempDir(), logDir: t.TempDir(), daemon: d}
	t.Cleanup(func() {
		if t.Failed() {
			e.report(context.WithoutCancel(ctx))
		}
		if e.mcp != nil {
			e.mcp.Close()
		}
		e.stopBrowser()
	})
	if e.mcp, err = gasoline.Connect(ctx, d); err != nil { // gasoline-mcp in the namespace
		t.Fatal(err)
	}
	e.startBrowser(e.site.URL + "/a")
	e.pair() // the code comes from 'gasoline pair' run in the namespace

	if r := e.act("navigate", map[string]any{"url": e.site.URL + "/b"}); r.Status != "complete" {
		t.Fatalf("navigate through the forwarder: %s", r)
	}
	r := e.act("execute_js", map[string]any{"script": `console.log("through the tunnel"); return document.title`})
	if js := complete(t, r); str(t, js) != "Page B" {
		t.Fatalf("execute_js through the forwarder read %q, want Page B", str(t, js))
	}
	e.observeUntil(map[string]any{"what": "logs", "text": "through the tunnel"}, 20*time.Second, func(o observed) error {
		if len(o.Entries) == 0 {
			return fmt.Errorf("the page's console line has not reached the daemon")
		}
		return nil
	})

	// Draw mode: the user drags a box and types a note in Chromium; the
	// agent on the other side gets it.
	p, tabID := e.drawPage()
	id := e.startDraw(p, tabID, map[string]any{"instructions": "Mark it"})
	p.drag(30, 190, 210, 270)
	p.typeNote("seen from afar")
	p.ctrlEnter()
	if r := e.await(id, 30*time.Second); r.Status != "complete" || !strings.Contains(string(r.Value), "seen from afar") {
		t.Fatalf("draw mode through the forwarder: %s", r)
	}

	// Nothing of ours listens beyond loopback, on either side.
	checkLoopbackOnly(t, nil, d.Port)
	checkLoopbackOnly(t, inNS, d.Port)
}

// checkLoopbackOnly fails the test when a socket listening on port, in the
// namespace the command prefix wrap enters (nil: this one), is bound to an
// address that is not loopback.
func checkLoopbackOnly(t *testing.T, wrap []string, port int) {
	t.Helper()
	argv := append(append([]string{}, wrap...), "cat", "/proc/net/tcp", "/proc/net/tcp6")
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	found := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
			continue
		}
		addr, hexPort, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); !ok || err != nil || int(p) != port {
			continue
		}
		found++
		if addr != "0100007F" && addr != "00000000000000000000000001000000" {
			t.Errorf("in %v a socket listens on port %d at %s, not loopback", wrap, port, addr)
		}
	}
	if found == 0 {
		t.Errorf("in %v nothing listens on port %d: the check read nothing", wrap, port)
	}
}

func waitFor(t *testing.T, limit time.Duration, ok func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(limit); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not there after %v", what, limit)
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
