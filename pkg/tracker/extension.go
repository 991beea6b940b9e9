package tracker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// instance is one extension instance (one browser profile's service worker,
// named by the extension). It exists while the instance is connected — it has
// a Poll in flight or was seen within DisconnectGrace — and is deleted when it
// is gone. All fields are guarded by Tracker.mu.
type instance struct {
	name     string
	polls    int       // Polls in flight
	lastSeen time.Time // last contact: Poll start or return, Touch, Report
	// grace runs while polls == 0. It may fire early (contact after it was
	// armed moves the deadline); it then re-arms itself for the remainder.
	grace   Timer
	running entryList // delivered non-terminal commands
}

// Poll is the extension's long-poll. It hands instance up to limit (<= 0
// means DefaultPollMax) queued, non-External commands, oldest first across all
// clients, marking them pending and delivered and starting their ack and
// execution timers. Commands already queued are handed over at once, even
// when ctx has ended (a zero-length wait is a non-blocking poll; callers that
// know their requester is gone must not poll). When nothing is queued it
// blocks until a command is queued or ctx ends, and then returns nil and
// ctx.Err(); after Close it returns ErrClosed.
//
// Every command is delivered at most once, however many Polls run
// concurrently. While a Poll is in flight its instance counts as connected.
func (t *Tracker) Poll(ctx context.Context, instanceID string, limit int) ([]Command, error) {
	if limit <= 0 {
		limit = DefaultPollMax
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errClosed("polling for commands")
	}
	inst := t.instanceLocked(instanceID)
	inst.polls++
	t.contactLocked(inst, t.clock.Now())
	defer func() {
		inst.polls--
		t.contactLocked(inst, t.clock.Now())
	}()
	for first := true; ; first = false {
		if t.closed {
			return nil, errClosed("polling for commands")
		}
		// A wake-up races with ctx: once ctx has ended, only the first look
		// at the queue delivers, so a blocked Poll never hands commands to
		// a caller that has stopped waiting.
		if t.queue.n > 0 && (first || ctx.Err() == nil) {
			return t.deliverLocked(inst, limit), nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if t.queued == nil {
			t.queued = make(chan struct{})
		}
		wake := t.queued
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
		case <-t.done:
		}
		t.mu.Lock()
	}
}

// deliverLocked takes up to limit commands off the queue and hands them to
// inst. t.mu must be held.
func (t *Tracker) deliverLocked(inst *instance, limit int) []Command {
	now := t.clock.Now()
	out := make([]Command, 0, min(limit, t.queue.n))
	for len(out) < limit && t.queue.front != nil {
		e := t.queue.front
		t.queue.remove(e)
		stop(&e.timer)
		at := now
		e.cmd.State = StatePending
		e.cmd.Delivered = true
		e.cmd.DeliveredAt = &at
		e.cmd.Extension = inst.name
		e.inst = inst
		inst.running.pushBack(e)
		t.nPending++
		e.ackTimer = t.clock.AfterFunc(t.opts.AckTimeout, func() { t.ackExpired(e) })
		e.timer = t.clock.AfterFunc(e.cmd.Timeout, func() { t.execExpired(e) })
		out = append(out, e.snapshot())
	}
	return out
}

// Touch records contact from an extension instance (any request it makes),
// keeping it connected for another DisconnectGrace. Touch never blocks.
func (t *Tracker) Touch(instanceID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.contactLocked(t.instanceLocked(instanceID), t.clock.Now())
	}
}

// Report applies an extension's result post for command id and counts as a
// Touch of instanceID. status pending acknowledges the command: the ack timer
// stops, the execution timer keeps running. complete, error and timeout
// finish it (reasons command_error and execution_timeout for the last two;
// errMsg becomes the command's Error). Report fails with ErrBadStatus for any
// other status, ErrUnknownCommand for an unknown id, ErrNotDelivered for a
// command still queued or External, and ErrFinal (with the command's
// snapshot) once it is terminal, External or not. A repeated pending is
// accepted. Report accepts a result from any instance, not only the one the
// command was delivered to: a result that arrives is never thrown away while
// the command can still take it.
//
// The tracker keeps result as given: the caller must not modify it
// afterwards.
func (t *Tracker) Report(instanceID, id string, status State, result json.RawMessage, errMsg string) (Command, error) {
	return t.ReportWith(instanceID, id, status, result, nil, errMsg)
}

// ReportWith is Report that also keeps attachment on the command beside its
// result (see Command.Attachment): the daemon attaches the handle of a
// result it stored elsewhere. A refused report keeps nothing.
func (t *Tracker) ReportWith(instanceID, id string, status State, result json.RawMessage, attachment any, errMsg string) (Command, error) {
	return t.ReportReason(instanceID, id, status, "", result, attachment, errMsg)
}

// ReportReason is ReportWith with the failure reason the extension gives
// for status error: "" means ReasonCommandError; ReasonNavigated,
// ReasonTabUnresponsive and the element-action reasons (ReasonNotFound and
// the others of its block) are the ones an extension may report. Any other
// reason, or a reason with another status, fails with ErrBadStatus.
func (t *Tracker) ReportReason(instanceID, id string, status State, reason string, result json.RawMessage, attachment any, errMsg string) (Command, error) {
	switch {
	case reason == "":
		reason = ReasonCommandError
	case !extensionReasons[reason]:
		return Command{}, fmt.Errorf("%w: reason %q is not one an extension reports (navigated, tab_unresponsive, an element action's reason such as not_found, or none)", ErrBadStatus, reason)
	case status != StateError:
		return Command{}, fmt.Errorf("%w: reason %q goes with status error, not %q", ErrBadStatus, reason, status)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return Command{}, errClosed("reporting a result")
	}
	t.contactLocked(t.instanceLocked(instanceID), t.clock.Now())
	switch status {
	case StatePending, StateComplete, StateError, StateTimeout:
	default:
		return Command{}, fmt.Errorf("%w: %q (report pending, complete, error or timeout)", ErrBadStatus, status)
	}
	e := t.cmds[id]
	if e == nil {
		if rc := t.ring.get(id); rc != nil {
			return clone(*rc), t.errFinal(*rc, "its result is no longer accepted")
		}
		return Command{}, t.errUnknown(id)
	}
	switch {
	case e.cmd.State.Terminal():
		return e.snapshot(), t.errFinal(e.cmd, "its result is no longer accepted")
	case e.external:
		return Command{}, fmt.Errorf("%w: %s is completed by the daemon (draw mode), not by a query result", ErrNotDelivered, id)
	case e.cmd.State == StateQueued:
		return Command{}, fmt.Errorf("%w: %s is still queued; report only commands a poll returned", ErrNotDelivered, id)
	}
	stop(&e.ackTimer)
	e.cmd.Acked = true
	errMsg = clip(errMsg, MaxErrorBytes)
	switch status {
	case StateComplete:
		t.finishLocked(e, StateComplete, "", "", result, attachment)
	case StateError:
		if errMsg == "" {
			errMsg = "the command failed in the page without an error message"
		}
		t.finishLocked(e, StateError, reason, errMsg, result, attachment)
	case StateTimeout:
		if errMsg == "" {
			errMsg = "the extension gave up on the command at its execution deadline"
		}
		t.finishLocked(e, StateTimeout, ReasonExecutionTimeout, errMsg, result, attachment)
	}
	return e.snapshot(), nil
}

// Presence reports whether any extension instance is connected, when one was
// last seen (now, if a Poll is in flight) and which. Presence never blocks.
func (t *Tracker) Presence() Presence {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	p := Presence{LastSeen: t.lastSeen, Instance: t.lastInst}
	polling := ""
	for _, inst := range t.instances {
		switch {
		case inst.polls > 0:
			p.Connected = true
			if polling == "" || inst.name == t.lastInst {
				polling = inst.name
			}
		case now.Sub(inst.lastSeen) < t.opts.DisconnectGrace:
			p.Connected = true
		}
	}
	if polling != "" {
		p.LastSeen, p.Instance = now, polling
	}
	return p
}

// instanceLocked returns the instance named name, creating it. t.mu must be
// held.
func (t *Tracker) instanceLocked(name string) *instance {
	inst := t.instances[name]
	if inst == nil {
		inst = &instance{name: name}
		t.instances[name] = inst
	}
	return inst
}

// contactLocked records contact from inst at now and, while it has no Poll in
// flight, makes sure its grace timer runs. t.mu must be held.
func (t *Tracker) contactLocked(inst *instance, now time.Time) {
	inst.lastSeen = now
	t.lastSeen, t.lastInst = now, inst.name
	if inst.polls == 0 && inst.grace == nil && !t.closed {
		inst.grace = t.clock.AfterFunc(t.opts.DisconnectGrace, func() { t.graceExpired(inst) })
	}
}

// graceExpired runs when inst may have been silent for DisconnectGrace. If it
// has, with no Poll in flight, inst is gone: the commands delivered to it fail
// with extension_disconnected. Its undelivered commands were never its; they
// stay queued for the next Poll.
func (t *Tracker) graceExpired(inst *instance) {
	t.mu.Lock()
	if t.closed || t.instances[inst.name] != inst {
		t.mu.Unlock()
		return
	}
	inst.grace = nil
	if inst.polls > 0 {
		t.mu.Unlock()
		return // the Poll re-arms the timer when it returns
	}
	now := t.clock.Now()
	if rest := inst.lastSeen.Add(t.opts.DisconnectGrace).Sub(now); rest > 0 {
		inst.grace = t.clock.AfterFunc(rest, func() { t.graceExpired(inst) })
		t.mu.Unlock()
		return
	}
	delete(t.instances, inst.name)
	var failed []Command
	for inst.running.front != nil {
		e := inst.running.front
		t.finishLocked(e, StateError, ReasonExtensionDisconnected,
			"the extension disconnected while running the command; it may or may not have run; check the page before retrying", nil, nil)
		failed = append(failed, e.snapshot())
	}
	t.mu.Unlock()
	t.log.Info().Str("extension", inst.name).Int("failed", len(failed)).
		Dur("silent", now.Sub(inst.lastSeen)).Msg("extension instance gone")
	for _, c := range failed {
		t.logFailure(c)
	}
}

// MaxErrorBytes bounds the error text kept for a command (in retention and
// in the failed ring); a page can throw an error as large as itself.
const MaxErrorBytes = 4096

// clip shortens s to at most max bytes, at a character boundary, saying how
// much was cut.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes cut)", s[:cut], len(s)-cut)
}
