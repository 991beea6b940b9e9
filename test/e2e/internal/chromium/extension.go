package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
)

// Extension pages and the worker, by URL.
const (
	PopupURL  = "chrome-extension://" + ExtensionID + "/popup.html"
	WorkerURL = "chrome-extension://" + ExtensionID + "/background.js"
)

// poll calls check every interval until it reports done or fails, for at
// most limit (and never past ctx). The last error check returned is part of
// the timeout error.
func poll(ctx context.Context, limit, interval time.Duration, what string, check func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		done, err := check(ctx)
		if err == nil && done {
			return nil
		}
		if err != nil {
			var pe *permanent
			if errors.As(err, &pe) {
				return pe.err
			}
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%s: not done within %v: %w", what, limit, last)
			}
			return fmt.Errorf("%s: not done within %v", what, limit)
		case <-time.After(interval):
		}
	}
}

// permanent marks an error that ends a poll at once.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }

// WaitForWorker waits up to limit for the extension's service worker
// target to exist, without attaching to it.
func WaitForWorker(ctx context.Context, c *cdp.Conn, limit time.Duration) (cdp.TargetInfo, error) {
	var found cdp.TargetInfo
	err := poll(ctx, limit, 50*time.Millisecond, "waiting for the extension's service worker", func(ctx context.Context) (bool, error) {
		ts, err := c.Targets(ctx)
		if err != nil {
			return false, err
		}
		for _, t := range ts {
			if t.Type == "service_worker" && t.URL == WorkerURL {
				found = t
				return true, nil
			}
		}
		return false, nil
	})
	return found, err
}

// WorkerRunning reports whether the extension's service worker target exists.
func WorkerRunning(ctx context.Context, c *cdp.Conn) (bool, error) {
	ts, err := c.Targets(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range ts {
		if t.Type == "service_worker" && t.URL == WorkerURL {
			return true, nil
		}
	}
	return false, nil
}

// StopAllWorkers stops every service worker as Chrome does when one idles,
// from a session on a scratch tab (about:blank) it opens and closes; it does
// not attach to the worker.
func StopAllWorkers(ctx context.Context, c *cdp.Conn) error {
	id, err := c.CreateTarget(ctx, "about:blank")
	if err != nil {
		return err
	}
	defer c.CloseTarget(context.WithoutCancel(ctx), id)
	s, err := c.Attach(ctx, id)
	if err != nil {
		return err
	}
	defer s.Detach(context.WithoutCancel(ctx))
	if err := s.Call(ctx, "ServiceWorker.enable", nil, nil); err != nil {
		return err
	}
	return s.Call(ctx, "ServiceWorker.stopAllWorkers", nil, nil)
}

// Popup is the extension popup, opened as a tab and driven over a session.
type Popup struct {
	c *cdp.Conn
	s *cdp.Session
}

// OpenPopup opens popup.html in a new tab and waits until its script has
// rendered (the port field shows a value).
func OpenPopup(ctx context.Context, c *cdp.Conn) (*Popup, error) {
	id, err := c.CreateTarget(ctx, PopupURL)
	if err != nil {
		return nil, fmt.Errorf("opening the popup: %w", err)
	}
	s, err := c.Attach(ctx, id)
	if err != nil {
		c.CloseTarget(ctx, id)
		return nil, fmt.Errorf("attaching to the popup: %w", err)
	}
	p := &Popup{c: c, s: s}
	err = poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for the popup to render", func(ctx context.Context) (bool, error) {
		var ready bool
		err := s.Evaluate(ctx, `document.readyState === "complete" && typeof chrome === "object" && !!chrome.storage && `+
			`!!document.getElementById("port") && document.getElementById("port").value !== ""`, &ready)
		return ready, err
	})
	if err != nil {
		p.Close(ctx)
		return nil, err
	}
	return p, nil
}

// Close closes the popup tab and waits until the browser no longer lists
// it, then brings a web page to the front: Target.closeTarget returns before
// the tab is gone, and a command without tab_id sent meanwhile would go to
// the closing popup ("No tab with id").
func (p *Popup) Close(ctx context.Context) error {
	if err := p.c.CloseTarget(ctx, p.s.TargetID); err != nil {
		return err
	}
	var page string
	err := poll(ctx, 15*time.Second, 20*time.Millisecond, "waiting for the popup tab to close", func(ctx context.Context) (bool, error) {
		ts, err := p.c.Targets(ctx)
		if err != nil {
			return false, err
		}
		page = ""
		for _, t := range ts {
			if t.TargetID == p.s.TargetID {
				return false, nil
			}
			if page == "" && t.Type == "page" && !strings.HasPrefix(t.URL, "chrome-extension://") {
				page = t.TargetID
			}
		}
		return true, nil
	})
	if err != nil || page == "" {
		return err
	}
	return p.c.Call(ctx, "", "Target.activateTarget", map[string]any{"targetId": page}, nil)
}

// Eval evaluates expression in the popup page; see cdp.Session.Evaluate.
func (p *Popup) Eval(ctx context.Context, expression string, out any) error {
	return p.s.Evaluate(ctx, expression, out)
}

// typeInto focuses the input with the given id, selects its content and
// types text over it as a keyboard would (Input.insertText).
func (p *Popup) typeInto(ctx context.Context, id, text string) error {
	if err := p.s.Evaluate(ctx, fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.focus(); e.select(); return true })()`, id), nil); err != nil {
		return err
	}
	return p.s.Call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

func (p *Popup) click(ctx context.Context, id string) error {
	return p.s.Evaluate(ctx, fmt.Sprintf(`document.getElementById(%q).click()`, id), nil)
}

// view is what the popup shows.
type view struct {
	Paired      string `json:"paired"`
	Reachable   string `json:"reachable"`
	MessageKind string `json:"kind"`
	Message     string `json:"message"`
}

func (p *Popup) view(ctx context.Context) (view, error) {
	var v view
	err := p.s.Evaluate(ctx, `(() => { const $ = (id) => document.getElementById(id); return {
		paired: $("status-paired").dataset.paired || "", reachable: $("status-daemon").dataset.reachable || "",
		kind: $("message").dataset.kind || "", message: $("message").textContent || "" } })()`, &v)
	return v, err
}

// SetPort types port into the port field, saves it, and waits until the
// extension's storage holds it.
func (p *Popup) SetPort(ctx context.Context, port int) error {
	if err := p.typeInto(ctx, "port", fmt.Sprint(port)); err != nil {
		return fmt.Errorf("typing the port: %w", err)
	}
	if err := p.click(ctx, "save-port"); err != nil {
		return fmt.Errorf("saving the port: %w", err)
	}
	return poll(ctx, 10*time.Second, 50*time.Millisecond, "waiting for the port to be stored", func(ctx context.Context) (bool, error) {
		var stored float64
		if err := p.s.Evaluate(ctx, `chrome.storage.local.get("port").then((g) => g.port ?? 0)`, &stored); err != nil {
			return false, err
		}
		return int(stored) == port, nil
	})
}

// Pair types code into the popup, presses Pair, and waits until the popup
// shows the extension paired and the daemon reachable. A pairing error the
// popup shows ends the wait at once.
func (p *Popup) Pair(ctx context.Context, code string) error {
	if err := p.typeInto(ctx, "code", code); err != nil {
		return fmt.Errorf("typing the code: %w", err)
	}
	if err := p.click(ctx, "pair"); err != nil {
		return fmt.Errorf("pressing Pair: %w", err)
	}
	// Pairing derives keys with PBKDF2 on both sides: seconds on a busy
	// 2-core machine (once over 15 s at load 40), so the wait is generous.
	return poll(ctx, 45*time.Second, 50*time.Millisecond, "waiting for the popup to show paired", func(ctx context.Context) (bool, error) {
		v, err := p.view(ctx)
		if err != nil {
			return false, err
		}
		if v.MessageKind == "error" {
			return false, &permanent{fmt.Errorf("the popup shows a pairing error: %s", v.Message)}
		}
		if v.Paired == "true" && v.MessageKind == "ok" && v.Reachable == "true" {
			return true, nil
		}
		return false, fmt.Errorf("popup shows %+v", v)
	})
}

// PairError types code, presses Pair and returns the error message the
// popup shows; it fails if the popup reports success instead.
func (p *Popup) PairError(ctx context.Context, code string) (string, error) {
	if err := p.typeInto(ctx, "code", code); err != nil {
		return "", err
	}
	if err := p.click(ctx, "pair"); err != nil {
		return "", err
	}
	var msg string
	err := poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for the popup's pairing error", func(ctx context.Context) (bool, error) {
		v, err := p.view(ctx)
		if err != nil {
			return false, err
		}
		if v.MessageKind == "ok" {
			return false, &permanent{fmt.Errorf("the popup accepted code %q: %s", code, v.Message)}
		}
		msg = v.Message
		return v.MessageKind == "error", nil
	})
	return msg, err
}

// Storage returns the extension's chrome.storage.local, with the token
// replaced by its length.
func (p *Popup) Storage(ctx context.Context) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := p.s.Evaluate(ctx, `chrome.storage.local.get(null).then((g) => { if (typeof g.token === "string") g.token = "<" + g.token.length + " chars>"; return g })`, &m)
	return m, err
}

// DumpStorage opens a popup tab, reads the extension's storage and closes
// the tab: a failure report of what the worker last wrote.
func DumpStorage(ctx context.Context, c *cdp.Conn) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := OpenPopup(ctx, c)
	if err != nil {
		return fmt.Sprintf("(cannot open the popup to read chrome.storage: %v)", err)
	}
	defer p.Close(ctx)
	m, err := p.Storage(ctx)
	if err != nil {
		return fmt.Sprintf("(cannot read chrome.storage: %v)", err)
	}
	var b strings.Builder
	for _, k := range []string{"status", "port", "token"} {
		fmt.Fprintf(&b, "%s: %s\n", k, m[k])
	}
	return b.String()
}
