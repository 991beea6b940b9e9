// Package firefox starts a headless Firefox (Debian's firefox-esr) on a
// fresh profile with WebDriver BiDi on a loopback port, installs the
// gasoline extension's Firefox build into it, pairs it with a daemon
// through its popup, and stops it by its PID. It starts the browser in a
// process group of its own and signals only that group.
package firefox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/bidi"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// ExtensionUUID is the host of the extension's moz-extension:// pages in
// the test profiles, fixed through the extensions.webextensions.uuids
// preference (Firefox picks a random one per profile otherwise).
const ExtensionUUID = "6a0b3c2e-4f1d-4e8a-9b7c-3d2e1f0a9b8c"

// PopupURL is the extension's popup page in the test profiles.
const PopupURL = "moz-extension://" + ExtensionUUID + "/popup.html"

// ErrNotFound means no Firefox binary was found.
var ErrNotFound = errors.New("firefox not found: install it (apt-get install firefox-esr) or set GASOLINE_FIREFOX to its path")

// ErrTooOld means the Firefox found is older than the extension's Firefox
// build installs in (extension.FirefoxMinVersion).
var ErrTooOld = errors.New("firefox is older than the extension's Firefox build accepts")

// CheckVersion returns nil when bin (from Find) is Firefox min (a version
// such as "153.0") or newer, an error wrapping ErrTooOld naming both when
// it is older, and another error when bin does not say its version.
func CheckVersion(ctx context.Context, bin, min string) error {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return fmt.Errorf("asking %s its version: %w", bin, err)
	}
	// "Mozilla Firefox 140.10.2esr"
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return fmt.Errorf("%s --version printed nothing", bin)
	}
	have, err := major(fields[len(fields)-1])
	if err != nil {
		return fmt.Errorf("%s --version printed %q: %w", bin, strings.TrimSpace(string(out)), err)
	}
	want, err := major(min)
	if err != nil {
		return fmt.Errorf("the minimum version %q: %w", min, err)
	}
	if have < want {
		return fmt.Errorf("%w: %s is %s, and the extension's Firefox build needs %s or newer (its strict_min_version)",
			ErrTooOld, bin, strings.TrimSpace(string(out)), min)
	}
	return nil
}

// major is the major version of a Firefox version string ("140.10.2esr": 140).
func major(v string) (int, error) {
	head, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(head)
	if err != nil {
		return 0, fmt.Errorf("not a Firefox version: %q", v)
	}
	return n, nil
}

// Find returns the Firefox binary: $GASOLINE_FIREFOX, else firefox-esr or
// firefox on PATH.
func Find() (string, error) {
	if p := os.Getenv("GASOLINE_FIREFOX"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("GASOLINE_FIREFOX=%s: %w; install firefox-esr or fix the path", p, err)
		}
		return p, nil
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// prefs are the test profile's user.js: no first-run pages, no outbound
// connections of Firefox's own (updates, telemetry, safe browsing, captive
// portal checks), unsigned add-ons allowed, and the extension's UUID fixed.
// The remote agent adds its own recommended preferences on top.
var prefs = map[string]any{
	"extensions.webextensions.uuids":                  `{"` + gasolineID + `":"` + ExtensionUUID + `"}`,
	"xpinstall.signatures.required":                   false,
	"extensions.autoDisableScopes":                    0,
	"extensions.update.enabled":                       false,
	"app.update.enabled":                              false,
	"app.update.auto":                                 false,
	"browser.shell.checkDefaultBrowser":               false,
	"browser.startup.homepage_override.mstone":        "ignore",
	"browser.startup.page":                            0,
	"browser.aboutwelcome.enabled":                    false,
	"datareporting.policy.dataSubmissionEnabled":      false,
	"toolkit.telemetry.reportingpolicy.firstRun":      false,
	"browser.safebrowsing.malware.enabled":            false,
	"browser.safebrowsing.phishing.enabled":           false,
	"browser.safebrowsing.downloads.enabled":          false,
	"network.captive-portal-service.enabled":          false,
	"network.connectivity-service.enabled":            false,
	"app.normandy.enabled":                            false,
	"browser.newtabpage.enabled":                      false,
	"browser.ping-centre.telemetry":                   false,
	"extensions.getAddons.cache.enabled":              false,
	"extensions.blocklist.enabled":                    false,
	"services.settings.server":                        "http://127.0.0.1:9/",
	"remote.log.level":                                "Warn",
	"devtools.console.stdout.content":                 true,
	"extensions.webextensions.restrictedDomains":      "",
	"privacy.resistFingerprinting":                    false,
	"browser.tabs.warnOnClose":                        false,
	"dom.disable_open_during_load":                    false,
	"network.proxy.type":                              0,
	"browser.region.network.url":                      "",
	"browser.search.geoSpecificDefaults":              false,
	"extensions.systemAddon.update.enabled":           false,
	"media.gmp-manager.url":                           "http://127.0.0.1:9/",
	"browser.contentblocking.report.lockwise.enabled": false,
}

// gasolineID is the extension's gecko ID (extension.FirefoxID), repeated
// here so that this package needs nothing of the product.
const gasolineID = "gasoline@gasoline-mcp"

// Options say how to start the browser.
type Options struct {
	Bin        string // from Find
	ProfileDir string // a new, empty folder
	// LogPath receives Firefox's stdout and stderr (appended); "" discards.
	LogPath string
	// Prefs are more preferences for the profile's user.js, over prefs.
	Prefs map[string]any
}

// Browser is one running Firefox with a BiDi session.
type Browser struct {
	// WebSocketURL is the BiDi endpoint, ws://127.0.0.1:PORT.
	WebSocketURL string
	PID          int
	BiDi         *bidi.Conn

	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for
	log    io.WriteCloser
	once   sync.Once
}

var listening = regexp.MustCompile(`WebDriver BiDi listening on (ws://127\.0\.0\.1:\d+)`)

// Start launches Firefox headless on a fresh profile, waits (up to 30 s,
// or until ctx ends) for its BiDi endpoint, and opens a BiDi session. The
// caller must Stop the browser.
func Start(ctx context.Context, o Options) (*Browser, error) {
	if err := writeUserJS(o.ProfileDir, o.Prefs); err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Bin, "--headless", "--no-remote", "--new-instance",
		"--profile", o.ProfileDir,
		// BiDi on a port of the kernel's choice, on the loopback address only.
		"--remote-debugging-port=0", "--remote-allow-hosts=127.0.0.1",
		// BiDi may then open the extension's moz-extension:// pages.
		"--remote-allow-system-access",
		"about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_REMOTE_SETTINGS_DEVTOOLS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var log io.WriteCloser = nopCloser{io.Discard}
	if o.LogPath != "" {
		f, err := os.OpenFile(o.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		log = f
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", o.Bin, err)
	}
	b := &Browser{PID: cmd.Process.Pid, cmd: cmd, exited: make(chan struct{}), log: log}
	go func() {
		cmd.Wait()
		pw.Close()
		close(b.exited)
	}()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(log, line)
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case b.WebSocketURL = <-found:
	case <-b.exited:
		b.Stop()
		return nil, fmt.Errorf("firefox exited before its BiDi endpoint was up (see %s)", o.LogPath)
	case <-time.After(30 * time.Second):
		b.Stop()
		return nil, fmt.Errorf("firefox did not open its BiDi endpoint within 30 s (see %s)", o.LogPath)
	case <-ctx.Done():
		b.Stop()
		return nil, ctx.Err()
	}
	conn, err := bidi.Dial(ctx, b.WebSocketURL+"/session")
	if err != nil {
		b.Stop()
		return nil, err
	}
	b.BiDi = conn
	return b, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// writeUserJS writes prefs, and more over them, into the profile's user.js.
func writeUserJS(dir string, more map[string]any) error {
	all := maps.Clone(prefs)
	maps.Copy(all, more)
	var b strings.Builder
	for k, v := range all {
		switch v := v.(type) {
		case string:
			fmt.Fprintf(&b, "user_pref(%q, %q);\n", k, v)
		default:
			fmt.Fprintf(&b, "user_pref(%q, %v);\n", k, v)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "user.js"), []byte(b.String()), 0o644)
}

// Stop ends the BiDi session, asks Firefox to quit (SIGTERM to its
// process group), and kills the group if it has not exited within 5 s. It
// may be called more than once.
func (b *Browser) Stop() {
	b.once.Do(func() {
		if b.BiDi != nil {
			b.BiDi.Close()
		}
		b.signal(syscall.SIGTERM)
		select {
		case <-b.exited:
		case <-time.After(5 * time.Second):
			b.signal(syscall.SIGKILL)
			select {
			case <-b.exited:
			case <-time.After(10 * time.Second):
			}
		}
		b.signal(syscall.SIGKILL) // helpers that outlived the browser
		b.log.Close()
	})
}

func (b *Browser) signal(sig syscall.Signal) {
	// The group id is the browser's pid (Setpgid).
	if err := syscall.Kill(-b.PID, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		b.cmd.Process.Signal(sig)
	}
}

// Install installs the extension's Firefox build in dir (absolute) as a
// temporary add-on and checks Firefox gave it the expected ID.
func (b *Browser) Install(ctx context.Context, dir string) error {
	id, err := b.BiDi.InstallExtension(ctx, dir)
	if err != nil {
		return fmt.Errorf("installing the extension from %s: %w", dir, err)
	}
	if id != gasolineID {
		return fmt.Errorf("firefox installed the extension as %q, want %q", id, gasolineID)
	}
	return nil
}

// poll calls check every interval until it reports true, ctx ends or limit
// passes; the error names what and the last error check returned.
func poll(ctx context.Context, limit, interval time.Duration, what string, check func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(limit)
	var last error
	for {
		ok, err := check(ctx)
		if ok {
			return nil
		}
		if p, ok := err.(*permanent); ok {
			return fmt.Errorf("%s: %w", what, p.err)
		}
		last = err
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done after %v (last: %v)", what, limit, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", what, ctx.Err(), last)
		case <-time.After(interval):
		}
	}
}

// permanent is a check's error that ends poll at once.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }

// Pair pairs the extension with d through its popup, opened in a tab as a
// user would (port typed and saved, a code from 'gasoline pair' typed with
// trusted key events, Pair pressed), closes the popup's tab, and waits
// until d sees the extension polling.
func (b *Browser) Pair(ctx context.Context, d *gasoline.Daemon) error {
	c := b.BiDi
	tab, err := c.NewTab(ctx)
	if err != nil {
		return err
	}
	defer c.CloseTab(context.WithoutCancel(ctx), tab)
	if err := c.Navigate(ctx, tab, PopupURL); err != nil {
		return fmt.Errorf("opening the popup: %w", err)
	}
	err = poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for the popup to render", func(ctx context.Context) (bool, error) {
		var ready bool
		err := c.Evaluate(ctx, tab, `document.readyState === "complete" && typeof chrome === "object" && !!chrome.storage && `+
			`!!document.getElementById("port") && document.getElementById("port").value !== ""`, &ready)
		return ready, err
	})
	if err != nil {
		return err
	}
	typeInto := func(id, text string) error {
		if err := c.Evaluate(ctx, tab, fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.focus(); e.select(); return true })()`, id), nil); err != nil {
			return err
		}
		return c.TypeText(ctx, tab, text)
	}
	if err := typeInto("port", fmt.Sprint(d.Port)); err != nil {
		return fmt.Errorf("typing the port: %w", err)
	}
	if err := c.Evaluate(ctx, tab, `document.getElementById("save-port").click()`, nil); err != nil {
		return err
	}
	err = poll(ctx, 10*time.Second, 50*time.Millisecond, "waiting for the port to be stored", func(ctx context.Context) (bool, error) {
		var stored float64
		err := c.Evaluate(ctx, tab, `chrome.storage.local.get("port").then((g) => g.port ?? 0)`, &stored)
		return int(stored) == d.Port, err
	})
	if err != nil {
		return err
	}
	code, err := d.PairCode(ctx)
	if err != nil {
		return err
	}
	if err := typeInto("code", code); err != nil {
		return fmt.Errorf("typing the code: %w", err)
	}
	if err := c.Evaluate(ctx, tab, `document.getElementById("pair").click()`, nil); err != nil {
		return err
	}
	type view struct {
		Paired, Reachable, Kind, Message string
	}
	err = poll(ctx, 45*time.Second, 50*time.Millisecond, "waiting for the popup to show paired", func(ctx context.Context) (bool, error) {
		var v view
		if err := c.Evaluate(ctx, tab, `(() => { const $ = (id) => document.getElementById(id); return {
			Paired: $("status-paired").dataset.paired || "", Reachable: $("status-daemon").dataset.reachable || "",
			Kind: $("message").dataset.kind || "", Message: $("message").textContent || "" } })()`, &v); err != nil {
			return false, err
		}
		if v.Kind == "error" {
			return false, &permanent{fmt.Errorf("the popup shows a pairing error: %s", v.Message)}
		}
		return v.Paired == "true" && v.Kind == "ok" && v.Reachable == "true", fmt.Errorf("popup shows %+v", v)
	})
	if err != nil {
		return err
	}
	return poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for the daemon to see the extension", func(ctx context.Context) (bool, error) {
		h, err := d.Health(ctx)
		return err == nil && h.Extension.Connected, err
	})
}
