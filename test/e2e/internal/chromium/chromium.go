// Package chromium starts a headless Chromium (or a headed one on an Xvfb
// display of its own, GASOLINE_HEADED=1) with the gasoline extension
// loaded, finds its DevTools endpoint, and stops or kills it. It starts the
// browser in a process group of its own and signals only that group.
package chromium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
)

// ExtensionID is the gasoline extension's ID, pinned by the manifest key.
const ExtensionID = "ipimnlogmeffgddjpdmodnligphcpfag"

// ErrNotFound means no Chromium binary was found.
var ErrNotFound = errors.New("chromium not found: install it (apt-get install chromium) or set GASOLINE_CHROMIUM to its path")

// Find returns the Chromium binary: $GASOLINE_CHROMIUM, else chromium,
// chromium-browser or google-chrome on PATH.
func Find() (string, error) {
	if p := os.Getenv("GASOLINE_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("GASOLINE_CHROMIUM=%s: %w; install chromium (apt-get install chromium) or fix the path", p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Options say how to start the browser.
type Options struct {
	Bin          string // from Find
	UserDataDir  string // the profile; reuse it to restart the same browser
	ExtensionDir string // absolute path of extension/; "" starts the browser without it
	URLs         []string
	// LaunchURL is the page of the tab the browser opens at launch, before
	// the extension has loaded (as a user's start page or restored tab);
	// "" opens about:blank. URLs are opened afterwards, over DevTools.
	LaunchURL string
	// LogPath receives Chromium's stdout and stderr (appended); "" discards.
	LogPath string
	// Quiet leaves out --enable-logging=stderr, which writes every console
	// message of every page to LogPath (and costs each console call).
	Quiet bool
	// Args are more command-line flags (e.g. --force-device-scale-factor=2).
	Args []string
	// Headed runs the browser with a window, on an Xvfb display that Start
	// starts and the browser's exit stops; GASOLINE_HEADED=1 sets it for
	// every start (Headed).
	Headed bool
}

// Browser is one running Chromium.
type Browser struct {
	// WebSocketURL is the browser-wide DevTools endpoint.
	WebSocketURL string
	Port         int
	PID          int

	// Display is the X display of a headed browser (":N"), "" when headless.
	Display string

	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for (and its Xvfb stopped)
	once   sync.Once
	log    *os.File
}

// Start launches Chromium and waits (up to 30 s, or until ctx ends) for its
// DevTools endpoint. The caller must Stop or Kill the browser.
func Start(ctx context.Context, o Options) (*Browser, error) {
	if o.ExtensionDir != "" && !filepath.IsAbs(o.ExtensionDir) {
		return nil, fmt.Errorf("extension dir %q is not absolute", o.ExtensionDir)
	}
	portFile := filepath.Join(o.UserDataDir, "DevToolsActivePort")
	// A stale file from an earlier (killed) run would name a dead port.
	if err := os.Remove(portFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing stale %s: %w", portFile, err)
	}
	var x *xvfb
	if o.Headed || Headed() {
		var err error
		if x, err = startXvfb(); err != nil {
			return nil, err
		}
	}
	args := []string{
		"--no-sandbox",
		"--disable-gpu",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-breakpad",
		"--disable-features=MediaRouter,OptimizationHints,Translate",
		"--password-store=basic",
		"--use-mock-keychain",
		"--user-data-dir=" + o.UserDataDir,
		"--remote-debugging-port=0",
		"--remote-debugging-address=127.0.0.1",
	}
	if x == nil {
		args = append(args, "--headless=new")
	} else {
		// A desktop-sized window; no window manager places it.
		args = append(args, "--window-position=0,0", "--window-size=1280,960")
	}
	if !o.Quiet {
		args = append(args, "--enable-logging=stderr") // page and worker console messages land in LogPath
	}
	if o.ExtensionDir != "" {
		args = append(args, "--disable-extensions-except="+o.ExtensionDir, "--load-extension="+o.ExtensionDir)
	} else {
		args = append(args, "--disable-extensions")
	}
	args = append(args, o.Args...)
	// The start pages are opened over DevTools once the extension is loaded
	// (openURLs); the first tab starts blank unless LaunchURL says otherwise.
	if o.LaunchURL != "" {
		args = append(args, o.LaunchURL)
	} else {
		args = append(args, "about:blank")
	}
	cmd := exec.Command(o.Bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := &Browser{cmd: cmd, exited: make(chan struct{})}
	if x != nil {
		b.Display = x.display
		cmd.Env = append(os.Environ(), "DISPLAY="+x.display)
	}
	if o.LogPath != "" {
		f, err := os.OpenFile(o.LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			if x != nil {
				x.stop()
			}
			return nil, err
		}
		fmt.Fprintf(f, "=== %s %s\n", time.Now().Format(time.RFC3339Nano), strings.Join(cmd.Args, " "))
		cmd.Stdout, cmd.Stderr = f, f
		b.log = f
	}
	if err := cmd.Start(); err != nil {
		b.closeLog()
		if x != nil {
			x.stop()
		}
		return nil, fmt.Errorf("starting %s: %w", o.Bin, err)
	}
	b.PID = cmd.Process.Pid
	go func() {
		cmd.Wait()
		if x != nil {
			// Helpers that outlived the browser lose their display too.
			syscall.Kill(-b.PID, syscall.SIGKILL)
			x.stop()
		}
		b.closeLog()
		close(b.exited)
	}()

	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, err := os.ReadFile(portFile); err == nil {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) >= 2 {
				port, err := strconv.Atoi(strings.TrimSpace(lines[0]))
				if err == nil && port > 0 {
					b.Port = port
					b.WebSocketURL = fmt.Sprintf("ws://127.0.0.1:%d%s", port, strings.TrimSpace(lines[1]))
					if err := b.openURLs(ctx, o); err != nil {
						b.Kill()
						return nil, err
					}
					return b, nil
				}
			}
		}
		select {
		case <-b.exited:
			return nil, fmt.Errorf("chromium exited before opening its DevTools port (%v); see %s", cmd.ProcessState, o.LogPath)
		case <-ctx.Done():
			b.Kill()
			return nil, fmt.Errorf("waiting for chromium's DevTools port: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Kill()
			return nil, fmt.Errorf("chromium did not write %s within 30 s; see %s", portFile, o.LogPath)
		}
	}
}

// openURLs opens the start pages: the first in the initial tab, the others
// in new tabs. It waits for the extension's service worker first, because a
// navigation that starts before an extension with the webRequest permission
// is loaded (a URL on the command line next to --load-extension) is never
// sent: the tab stays blank.
func (b *Browser) openURLs(ctx context.Context, o Options) error {
	if len(o.URLs) == 0 {
		return nil
	}
	c, err := cdp.Dial(ctx, b.WebSocketURL)
	if err != nil {
		return err
	}
	defer c.Close()
	if o.ExtensionDir != "" {
		if _, err := WaitForWorker(ctx, c, 20*time.Second); err != nil {
			return err
		}
	}
	var first string
	err = poll(ctx, 10*time.Second, 25*time.Millisecond, "waiting for the first tab", func(ctx context.Context) (bool, error) {
		ts, err := c.Targets(ctx)
		if err != nil {
			return false, err
		}
		for _, t := range ts {
			if t.Type == "page" {
				first = t.TargetID
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	s, err := c.Attach(ctx, first)
	if err != nil {
		return err
	}
	err = s.Call(ctx, "Page.navigate", map[string]any{"url": o.URLs[0]}, nil)
	s.Detach(ctx)
	if err != nil {
		return fmt.Errorf("opening %s: %w", o.URLs[0], err)
	}
	for _, u := range o.URLs[1:] {
		if _, err := c.CreateTarget(ctx, u); err != nil {
			return fmt.Errorf("opening %s: %w", u, err)
		}
	}
	return nil
}

func (b *Browser) closeLog() {
	if b.log != nil {
		b.log.Close()
	}
}

// Exited is closed once the browser process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Kill sends SIGKILL to the browser's process group (the browser and the
// helpers it started) and waits up to 10 s for the browser to be reaped.
// It may be called more than once.
func (b *Browser) Kill() {
	b.signal(syscall.SIGKILL)
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
	}
}

// Stop asks the browser to quit (SIGTERM to its process group), and kills
// it if it has not exited within 5 s. It may be called more than once.
func (b *Browser) Stop() {
	b.signal(syscall.SIGTERM)
	select {
	case <-b.exited:
		b.signal(syscall.SIGKILL) // helpers that outlived the browser
		return
	case <-time.After(5 * time.Second):
	}
	b.Kill()
}

func (b *Browser) signal(sig syscall.Signal) {
	if b.cmd.Process == nil {
		return
	}
	// The group id is the browser's pid (Setpgid); it is ours until the
	// browser is reaped, and its helpers keep it alive after that.
	if err := syscall.Kill(-b.PID, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		b.cmd.Process.Signal(sig)
	}
}

// LogTail is Tail of a Chromium log without the D-Bus complaints a
// headless browser makes on a machine without a session bus.
func LogTail(path string, n int64) string {
	var b strings.Builder
	for line := range strings.Lines(Tail(path, 4*n)) {
		if !strings.Contains(line, "dbus") && !strings.Contains(line, "D-Bus") {
			b.WriteString(line)
		}
	}
	s := b.String()
	if len(s) > int(n) {
		s = s[len(s)-int(n):]
	}
	return s
}

// Tail returns the last n bytes of the file at path, for failure reports.
func Tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	if st.Size() > n {
		f.Seek(st.Size()-n, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	if st.Size() > n {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return string(data)
}
