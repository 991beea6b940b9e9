package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Unpair presses Unpair and waits for the popup's message; it returns the
// message's kind ("ok", "warn" or "error") and text.
func (p *Popup) Unpair(ctx context.Context) (kind, text string, err error) {
	if err := p.s.Evaluate(ctx, `(() => { const m = document.getElementById("message"); m.dataset.kind = ""; m.textContent = ""; return true })()`, nil); err != nil {
		return "", "", err
	}
	if err := p.click(ctx, "unpair"); err != nil {
		return "", "", fmt.Errorf("pressing Unpair: %w", err)
	}
	err = poll(ctx, 15*time.Second, 50*time.Millisecond, "waiting for the popup's unpair message", func(ctx context.Context) (bool, error) {
		v, err := p.view(ctx)
		if err != nil {
			return false, err
		}
		kind, text = v.MessageKind, v.Message
		return kind != "", nil
	})
	return kind, text, err
}

// Token returns the token the extension stores ("" when it is not paired),
// for tests that check where it was sent.
func (p *Popup) Token(ctx context.Context) (string, error) {
	var tok string
	err := p.s.Evaluate(ctx, `chrome.storage.local.get("token").then((g) => typeof g.token === "string" ? g.token : "")`, &tok)
	return tok, err
}

// Status is the part of the extension's stored status the tests read.
type Status struct {
	Paired         bool   `json:"paired"`
	TokenRejected  bool   `json:"token_rejected"`
	DroppedBatches int    `json:"dropped_batches"`
	LastError      string `json:"last_error"`
}

// Status reads the status the worker stores.
func (p *Popup) Status(ctx context.Context) (Status, error) {
	var raw json.RawMessage
	if err := p.s.Evaluate(ctx, `chrome.storage.local.get("status").then((g) => g.status ?? {})`, &raw); err != nil {
		return Status{}, err
	}
	var st Status
	err := json.Unmarshal(raw, &st)
	return st, err
}

// Dropped returns what the popup's daemon line shows of dropped answers:
// the count in data-dropped.
func (p *Popup) Dropped(ctx context.Context) (string, error) {
	var n string
	err := p.s.Evaluate(ctx, `document.getElementById("status-daemon").dataset.dropped || ""`, &n)
	return n, err
}
