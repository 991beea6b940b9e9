package tracker

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/rs/zerolog"
)

// Defaults for zero Options fields.
const (
	DefaultDispatchTimeout = 30 * time.Second
	DefaultAckTimeout      = 3 * time.Second
	DefaultExecTimeout     = 10 * time.Second
	DefaultMaxExecTimeout  = 10 * time.Minute
	DefaultDisconnectGrace = 3 * time.Second
	DefaultResultTTL       = 60 * time.Second
	DefaultExternalTTL     = 10 * time.Minute
	DefaultFailedRingSize  = 100
	DefaultMaxActive       = 32
	DefaultMaxRetained     = 100

	// DefaultClient owns commands submitted with an empty Spec.Client.
	DefaultClient = "direct"
	// DefaultPrefix starts the ids of commands submitted with an empty
	// Spec.Prefix.
	DefaultPrefix = "cmd"
	// DefaultPollMax is how many commands Poll returns at most when asked
	// for max <= 0.
	DefaultPollMax = 16
)

// Tracker owns every command from Submit to its terminal state and for
// Options.ResultTTL after it. Create one with New; all its methods are safe
// for concurrent use. Methods that block (Poll, Wait, WaitAny) take a context
// and return when it ends or when the Tracker is closed.
type Tracker struct {
	opts  Options // defaults applied
	clock Clock
	log   zerolog.Logger
	done  chan struct{} // closed by the first Close

	mu         sync.Mutex
	closed     bool                 // guarded by mu
	seq        uint64               // submission counter; guarded by mu
	finSeq     uint64               // terminal transition counter; guarded by mu
	cmds       map[string]*entry    // retained commands (non-terminal, or terminal within ResultTTL) by id; guarded by mu
	queue      entryList            // queued non-External commands, oldest first; guarded by mu
	queued     chan struct{}        // created by a blocked Poll, closed and cleared when a command is queued; guarded by mu
	clients    map[string]*client   // clients with retained commands; guarded by mu
	instances  map[string]*instance // extension instances seen within DisconnectGrace or polling; guarded by mu
	lastSeen   time.Time            // most recent extension contact; guarded by mu
	lastInst   string               // instance of that contact; guarded by mu
	nPending   int                  // delivered non-terminal commands; guarded by mu
	nExternal  int                  // non-terminal External commands; guarded by mu
	nRetained  int                  // terminal retained commands; guarded by mu
	paramBytes int64                // bytes of Params of non-terminal commands; guarded by mu
	ring       ring                 // failed buffer; guarded by mu
}

// entry is the tracker's record of one command. All fields are guarded by
// Tracker.mu.
type entry struct {
	cmd       Command // the state; DeliveredAt and FinishedAt are never modified once set
	seq       uint64  // submission order across clients
	finSeq    uint64  // finishing order across clients, once terminal
	external  bool
	announced bool // returned by WaitAny since it finished
	askedUser bool // its deadline moved out for the user's answer (WaitingForUser)

	// timer is the command's one running timer besides the ack timer:
	// dispatch (queued), execution (pending), ExternalTTL (External) or
	// retention (terminal).
	timer    Timer
	ackTimer Timer // running from delivery until the first pending or final Report

	client *client
	inst   *instance     // the instance it was delivered to, while pending
	done   chan struct{} // created by the first Wait that blocks; closed at the terminal transition
	ql     link          // in Tracker.queue while queued, in inst.running while pending
	cl     link          // in client.active while non-terminal, in client.retained after
}

// client is the per-client bookkeeping. It exists while the client has
// retained commands and is deleted with its last one. All fields are guarded
// by Tracker.mu.
type client struct {
	name     string
	active   entryList     // non-terminal commands, oldest first
	retained entryList     // terminal retained commands, in finishing order
	finished chan struct{} // created by a blocked WaitAny, closed and cleared when a command of the client finishes
}

// New returns a Tracker configured by opts; zero fields take their defaults.
// Call Close to stop its timers.
func New(opts Options) *Tracker {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	if opts.Clock == nil {
		opts.Clock = RealClock()
	}
	def(&opts.DispatchTimeout, DefaultDispatchTimeout)
	def(&opts.AckTimeout, DefaultAckTimeout)
	def(&opts.ExecTimeout, DefaultExecTimeout)
	def(&opts.MaxExecTimeout, DefaultMaxExecTimeout)
	def(&opts.DisconnectGrace, DefaultDisconnectGrace)
	def(&opts.ResultTTL, DefaultResultTTL)
	def(&opts.ExternalTTL, DefaultExternalTTL)
	defInt(&opts.FailedRingSize, DefaultFailedRingSize)
	defInt(&opts.MaxActive, DefaultMaxActive)
	defInt(&opts.MaxRetained, DefaultMaxRetained)
	defInt(&opts.MaxActiveTotal, DefaultMaxActiveTotal)
	if opts.MaxParamBytes <= 0 {
		opts.MaxParamBytes = DefaultMaxParamBytes
	}
	if opts.ExecTimeout > opts.MaxExecTimeout {
		opts.ExecTimeout = opts.MaxExecTimeout
	}
	return &Tracker{
		opts:      opts,
		clock:     opts.Clock,
		log:       opts.Logger,
		done:      make(chan struct{}),
		cmds:      make(map[string]*entry),
		clients:   make(map[string]*client),
		instances: make(map[string]*instance),
		ring:      newRing(opts.FailedRingSize),
	}
}

// Close stops every timer and wakes every blocked Poll, Wait and WaitAny,
// which return ErrClosed. It fails no command; snapshots stay readable, but
// Submit, Report, Complete and Cancel return ErrClosed afterwards. Close may
// be called multiple times, potentially concurrently.
func (t *Tracker) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.closed = true
	for _, e := range t.cmds {
		stop(&e.timer)
		stop(&e.ackTimer)
	}
	for _, inst := range t.instances {
		stop(&inst.grace)
	}
	close(t.done)
}

// Submit creates a command in state queued, or External and waiting to be
// completed, owned by spec.Client. Its id is spec.Prefix, "_" and a ULID.
// It fails with ErrQueueFull when the client already has Options.MaxActive
// non-terminal commands, or when the tracker would exceed its global caps
// (Options.MaxActiveTotal, Options.MaxParamBytes); the error says which.
// It fails with ErrClosed after Close. Submit never blocks.
//
// The tracker keeps spec.Params as given: the caller must not modify it
// afterwards.
func (t *Tracker) Submit(spec Spec) (Command, error) {
	name := ClientName(spec.Client)
	prefix := spec.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = t.opts.ExecTimeout
	}
	timeout = min(timeout, t.opts.MaxExecTimeout)
	now := t.clock.Now()
	id := newID(prefix, now)

	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return Command{}, errClosed("submitting a command")
	}
	c := t.clients[name]
	if c != nil && c.active.n >= t.opts.MaxActive {
		return Command{}, fmt.Errorf("%w: client %q already has %d commands queued or running, the limit; wait for some to finish or cancel some, then submit again",
			ErrQueueFull, name, t.opts.MaxActive)
	}
	if err := t.admitLocked(len(spec.Params)); err != nil {
		return Command{}, err
	}
	if c == nil {
		c = &client{name: name, active: entryList{byClient: true}, retained: entryList{byClient: true}}
		t.clients[name] = c
	}
	t.seq++
	e := &entry{
		cmd: Command{
			ID:        id,
			Client:    name,
			Action:    spec.Action,
			Params:    spec.Params,
			State:     StateQueued,
			Timeout:   timeout,
			External:  spec.External,
			CreatedAt: now,
		},
		seq:      t.seq,
		external: spec.External,
		client:   c,
	}
	t.cmds[id] = e
	t.chargeLocked(e)
	c.active.pushBack(e)
	if spec.External {
		t.nExternal++
		e.timer = t.clock.AfterFunc(t.opts.ExternalTTL, func() { t.externalExpired(e) })
		return e.snapshot(), nil
	}
	t.queue.pushBack(e)
	e.timer = t.clock.AfterFunc(t.opts.DispatchTimeout, func() { t.dispatchExpired(e) })
	if t.queued != nil {
		close(t.queued)
		t.queued = nil
	}
	return e.snapshot(), nil
}

// Complete finishes the External command id with result. It fails with
// ErrFinal (with the command's snapshot) when the command already finished,
// and ErrUnknownCommand when id is unknown or not External. The tracker keeps result as given: the caller
// must not modify it afterwards.
func (t *Tracker) Complete(id string, result json.RawMessage) (Command, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return Command{}, errClosed("completing a command")
	}
	e := t.cmds[id]
	if e == nil {
		if rc := t.ring.get(id); rc != nil {
			return clone(*rc), t.errFinal(*rc, "it cannot be completed again; start a new one")
		}
		return Command{}, t.errUnknown(id)
	}
	if e.cmd.State.Terminal() {
		return e.snapshot(), t.errFinal(e.cmd, "it cannot be completed again; start a new one")
	}
	if !e.external {
		return Command{}, fmt.Errorf("%w: %s is not an external (draw-mode) command; extensions report results through a query result instead", ErrUnknownCommand, id)
	}
	t.finishLocked(e, StateComplete, "", "", result, nil)
	return e.snapshot(), nil
}

// CancelExternal ends the External command id as cancelled with reason
// ReasonCancelled and msg (the user cancelled a draw-mode session, or its
// overlay could not be shown). It fails like Complete.
func (t *Tracker) CancelExternal(id, msg string) (Command, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return Command{}, errClosed("cancelling a command")
	}
	e := t.cmds[id]
	if e == nil {
		if rc := t.ring.get(id); rc != nil {
			return clone(*rc), t.errFinal(*rc, "there is nothing left to cancel")
		}
		return Command{}, t.errUnknown(id)
	}
	if e.cmd.State.Terminal() {
		return e.snapshot(), t.errFinal(e.cmd, "there is nothing left to cancel")
	}
	if !e.external {
		return Command{}, fmt.Errorf("%w: %s is not an external (draw-mode) command", ErrUnknownCommand, id)
	}
	t.finishLocked(e, StateCancelled, ReasonCancelled, clip(msg, MaxErrorBytes), nil, nil)
	return e.snapshot(), nil
}

// Cancel moves client's queued or pending command id to cancelled. A
// cancelled queued command is never delivered; a cancelled pending one may
// already have run, and its extension's later report is refused with
// ErrFinal. Cancel fails with ErrFinal (and the command's snapshot) when the
// command already finished, and ErrUnknownCommand when id is unknown or
// belongs to another client.
func (t *Tracker) Cancel(clientID, id string) (Command, error) {
	name := ClientName(clientID)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return Command{}, errClosed("cancelling a command")
	}
	e := t.cmds[id]
	if e == nil || e.cmd.Client != name {
		if rc := t.ring.get(id); e == nil && rc != nil && rc.Client == name {
			return clone(*rc), t.errFinal(*rc, "there is nothing left to cancel")
		}
		return Command{}, t.errUnknown(id)
	}
	if e.cmd.State.Terminal() {
		return e.snapshot(), t.errFinal(e.cmd, "there is nothing left to cancel; read its result instead")
	}
	msg := "cancelled by its client before an extension took it"
	if e.cmd.Delivered {
		msg = "cancelled by its client after it was handed to the extension; it may or may not have run, check the page before retrying"
	}
	t.finishLocked(e, StateCancelled, ReasonCancelled, msg, nil, nil)
	return e.snapshot(), nil
}

// finishLocked moves e, which must not be terminal, to the terminal state
// with reason, message, result and attachment: it stops e's timers, takes it out of the
// queue or its instance, retains it for ResultTTL, records a failure in the
// ring, and wakes its waiters. t.mu must be held.
func (t *Tracker) finishLocked(e *entry, state State, reason, msg string, result json.RawMessage, attachment any) {
	now := t.clock.Now()
	stop(&e.timer)
	stop(&e.ackTimer)
	e.cmd.WaitingFor, e.cmd.WaitingOn = "", ""
	switch {
	case e.external:
		t.nExternal--
	case e.cmd.State == StateQueued:
		t.queue.remove(e)
	case e.cmd.State == StatePending:
		e.inst.running.remove(e)
		e.inst = nil
		t.nPending--
	}
	t.releaseLocked(e)
	e.cmd.State = state
	e.cmd.Reason = reason
	e.cmd.Error = msg
	e.cmd.Result = result
	e.cmd.Attachment = attachment
	e.cmd.FinishedAt = &now
	t.finSeq++
	e.finSeq = t.finSeq

	c := e.client
	c.active.remove(e)
	c.retained.pushBack(e)
	t.nRetained++
	if state != StateComplete {
		t.ring.push(e.snapshot())
	}
	if e.done != nil {
		close(e.done)
	}
	if c.finished != nil {
		close(c.finished)
		c.finished = nil
	}
	e.timer = t.clock.AfterFunc(t.opts.ResultTTL, func() { t.retentionExpired(e) })
	if c.retained.n > t.opts.MaxRetained {
		t.dropLocked(c.retained.front)
	}
}

// dropLocked ends the retention of the terminal command e. A complete result
// nobody read goes to the failed ring as expired. The client's bookkeeping
// goes with its last command. t.mu must be held.
func (t *Tracker) dropLocked(e *entry) {
	stop(&e.timer)
	delete(t.cmds, e.cmd.ID)
	c := e.client
	c.retained.remove(e)
	t.nRetained--
	if c.active.n == 0 && c.retained.n == 0 {
		delete(t.clients, c.name)
	}
	if e.cmd.State == StateComplete && !e.cmd.Read {
		now := t.clock.Now()
		x := e.snapshot()
		x.State = StateExpired
		x.Reason = ReasonResultExpired
		x.Error = fmt.Sprintf("result expired after %s without being read", fmtDur(t.opts.ResultTTL))
		x.FinishedAt = &now
		t.ring.push(x)
	}
}

// The timer callbacks. Each runs in its own goroutine (or the fake clock's
// Advance), takes the lock and checks that its transition still applies: a
// timer stopped too late to prevent the call finds its command moved on.

func (t *Tracker) dispatchExpired(e *entry) {
	t.timerFinish(e, func() bool { return e.cmd.State == StateQueued },
		StateExpired, ReasonExtensionNoResponse,
		fmt.Sprintf("no extension took the command within %s; check that the gasoline extension is installed, paired and connected, then submit it again", fmtDur(t.opts.DispatchTimeout)))
}

func (t *Tracker) ackExpired(e *entry) {
	t.timerFinish(e, func() bool { return e.cmd.State == StatePending && !e.cmd.Acked },
		StateExpired, ReasonExtensionNoResponse,
		fmt.Sprintf("the extension took the command but did not acknowledge it within %s; it may or may not have run, check the page before retrying", fmtDur(t.opts.AckTimeout)))
}

func (t *Tracker) execExpired(e *entry) {
	t.timerFinish(e, func() bool { return e.cmd.State == StatePending },
		StateTimeout, ReasonExecutionTimeout,
		fmt.Sprintf("the command did not finish within its %s execution deadline; it may still be running in the page; give it a longer timeout if it needs more time", fmtDur(e.cmd.Timeout)))
}

func (t *Tracker) externalExpired(e *entry) {
	t.timerFinish(e, func() bool { return e.cmd.State == StateQueued },
		StateExpired, ReasonWaitExpired,
		fmt.Sprintf("nothing completed the command within %s; start it again if it is still needed", fmtDur(t.opts.ExternalTTL)))
}

// timerFinish finishes e if the tracker is open and applies() still holds,
// then logs the failure.
func (t *Tracker) timerFinish(e *entry, applies func() bool, state State, reason, msg string) {
	t.mu.Lock()
	if t.closed || !applies() {
		t.mu.Unlock()
		return
	}
	t.finishLocked(e, state, reason, msg, nil, nil)
	c := e.snapshot()
	t.mu.Unlock()
	t.logFailure(c)
}

func (t *Tracker) retentionExpired(e *entry) {
	t.mu.Lock()
	if t.closed || t.cmds[e.cmd.ID] != e {
		t.mu.Unlock()
		return
	}
	unread := e.cmd.State == StateComplete && !e.cmd.Read
	e.timer = nil
	t.dropLocked(e)
	c := e.snapshot()
	t.mu.Unlock()
	if unread {
		t.log.Info().Str("correlation_id", c.ID).Str("client", c.Client).Str("action", c.Action).
			Str("reason", ReasonResultExpired).Msg("result expired unread")
	}
}

func (t *Tracker) logFailure(c Command) {
	t.log.Info().Str("correlation_id", c.ID).Str("client", c.Client).Str("action", c.Action).
		Str("extension", c.Extension).Str("state", string(c.State)).Str("reason", c.Reason).
		Msg(c.Error)
}

// snapshot returns a copy of e's command. t.mu must be held.
func (e *entry) snapshot() Command { return clone(e.cmd) }

// clone copies c deeply enough that changing the copy cannot change the
// tracker: the time pointers are copied, Params and Result are shared.
func clone(c Command) Command {
	if c.DeliveredAt != nil {
		v := *c.DeliveredAt
		c.DeliveredAt = &v
	}
	if c.FinishedAt != nil {
		v := *c.FinishedAt
		c.FinishedAt = &v
	}
	return c
}

// stop stops *tm, if set, and clears it.
func stop(tm *Timer) {
	if *tm != nil {
		(*tm).Stop()
		*tm = nil
	}
}

// newID returns prefix, "_" and a ULID of now with 80 bits from crypto/rand:
// unique, sortable by time and not guessable from other ids. It needs no lock:
// crypto/rand.Reader is safe for concurrent use and never fails.
func newID(prefix string, now time.Time) string {
	var text [ulid.EncodedSize]byte
	_ = ulid.MustNew(ulid.Timestamp(now), rand.Reader).MarshalTextTo(text[:])
	var b strings.Builder
	b.Grow(len(prefix) + 1 + len(text))
	b.WriteString(prefix)
	b.WriteByte('_')
	b.Write(text[:])
	return b.String()
}

// ClientName is the name the tracker (and every owner record keyed like
// it) gives client: "" is DefaultClient. It is the one place a client name
// is normalised.
func ClientName(c string) string {
	if c == "" {
		return DefaultClient
	}
	return c
}

func (t *Tracker) errUnknown(id string) error {
	return fmt.Errorf("%w: %s (results are kept %s after completion and failures are listed a while longer; check the id or submit the command again)",
		ErrUnknownCommand, id, fmtDur(t.opts.ResultTTL))
}

func (t *Tracker) errFinal(c Command, next string) error {
	if c.Reason != "" {
		return fmt.Errorf("%w: %s is already %s (%s); %s", ErrFinal, c.ID, c.State, c.Reason, next)
	}
	return fmt.Errorf("%w: %s is already %s; %s", ErrFinal, c.ID, c.State, next)
}

func errClosed(doing string) error {
	return fmt.Errorf("%s: %w (the daemon is shutting down; retry once it runs again)", doing, ErrClosed)
}

// fmtDur formats d the way people write timeouts: "3s", "60s", "10m", "1.5s".
func fmtDur(d time.Duration) string {
	switch {
	case d >= 2*time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
