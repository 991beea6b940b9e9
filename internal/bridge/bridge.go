// Package bridge is gasoline-mcp: it relays newline-delimited JSON-RPC
// between an MCP client on stdio and the gasoline daemon's POST /mcp,
// starting the daemon when none answers.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/gasoline-mcp/gasoline/internal/client"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/toolpolicy"
)

// MaxInFlight is how many requests the bridge relays at once; stdin is not
// read further while that many are in flight.
const MaxInFlight = 64

// Options configure a Bridge.
type Options struct {
	Port      int    // daemon port (resolved, non-zero)
	StateDir  string // daemon state directory (resolved, absolute)
	DaemonBin string // daemon executable; "" finds it (see findDaemon)
	Timeouts  Timeouts
	// Policy says which calls are idempotent, need the browser or block;
	// nil is toolpolicy.Default, the daemon's tools.
	Policy *toolpolicy.Table
	Logger zerolog.Logger // diagnostics; never the protocol stream
	// Project is the agent's project folder, sent with every request
	// (apitype.HeaderProject) after the client's roots, when it declared
	// that capability: the bridge's working directory, since the agent
	// starts it in its project. "" sends none.
	Project string
}

// Bridge relays one MCP session. Create it with New and run it once with
// Serve.
type Bridge struct {
	opts     Options
	log      zerolog.Logger
	client   *client.Client
	clientID string
	state    state.Dir
	starter  starter

	outMu sync.Mutex
	out   *bufio.Writer // guarded by outMu

	mu       sync.Mutex
	closing  bool                 // no new handler starts once set; guarded by mu
	inflight map[string]*inflight // requests in flight by raw id; guarded by mu
	wg       sync.WaitGroup
	sem      chan struct{}

	// version is the protocol version initialize negotiated (a string).
	version atomic.Value
	// roots are the client's roots (MCP), its project folders with Project.
	roots roots
}

// inflight is a request being relayed, which the client may cancel.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // set under Bridge.mu by a notifications/cancelled
}

// New returns a Bridge that writes protocol messages, and nothing else, to
// stdout. It does not contact the daemon.
func New(opts Options, stdout io.Writer) *Bridge {
	if opts.Timeouts == (Timeouts{}) {
		opts.Timeouts = DefaultTimeouts
	}
	if opts.Policy == nil {
		opts.Policy = toolpolicy.Default
	}
	b := &Bridge{
		opts:     opts,
		log:      opts.Logger,
		clientID: newClientID(),
		state:    state.Dir{Path: opts.StateDir},
		out:      bufio.NewWriterSize(stdout, 32<<10),
		sem:      make(chan struct{}, MaxInFlight),
		inflight: make(map[string]*inflight),
	}
	if _, err := b.state.ReadToken(); err != nil {
		b.log.Debug().Err(err).Msg("no usable token yet; the first call will start the daemon or say what is wrong")
	}
	b.client = client.Local(opts.Port, opts.StateDir)
	b.starter.start = b.startDaemon
	return b
}

// ClientID returns the id this bridge session sends to the daemon.
func (b *Bridge) ClientID() string { return b.clientID }

// Serve relays messages from stdin until it ends or ctx is cancelled. At the
// end of stdin it waits for the requests in flight (each bounded by its
// timeout) and returns nil. When ctx ends it abandons them unanswered and
// returns nil; a read blocked on stdin is then left behind, so the caller
// should exit soon after.
func (b *Bridge) Serve(ctx context.Context, stdin io.Reader) error {
	defer b.client.CloseIdleConnections()
	readErr := make(chan error, 1)
	go func() { readErr <- b.readLoop(ctx, stdin) }()
	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
	}
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	b.wg.Wait()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	return nil
}

// readLoop dispatches each line of stdin to its own goroutine, at most
// MaxInFlight at once. It returns nil at the end of input.
func (b *Bridge) readLoop(ctx context.Context, stdin io.Reader) error {
	lr := newLineReader(stdin, MaxLine)
	for {
		line, oversized, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if oversized {
			id := idFromHead(line)
			if id == nil {
				id = json.RawMessage("null")
			}
			b.log.Warn().RawJSON("id", id).Msg("dropped a message over the size limit")
			b.writeError(id, rpcError{
				Code:    codeInvalidRequest,
				Message: fmt.Sprintf("message over the %d MB limit of gasoline-mcp; send large content in smaller pieces", MaxLine>>20),
			})
			continue
		}
		select {
		case b.sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		if !b.start() {
			<-b.sem
			return nil
		}
		go func() {
			defer b.wg.Done()
			defer func() { <-b.sem }()
			b.handle(ctx, line)
		}()
	}
}

// start registers a handler with wg unless Serve is closing.
func (b *Bridge) start() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closing {
		return false
	}
	b.wg.Add(1)
	return true
}

// track records a request in flight so that the client can cancel it. A
// second request reusing an id in flight is not tracked (nil).
func (b *Bridge) track(id json.RawMessage, cancel context.CancelFunc) *inflight {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.inflight[string(id)]; dup {
		return nil
	}
	c := &inflight{cancel: cancel}
	b.inflight[string(id)] = c
	return c
}

func (b *Bridge) untrack(id json.RawMessage, c *inflight) {
	if c == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inflight[string(id)] == c {
		delete(b.inflight, string(id))
	}
}

// cancel aborts the request in flight with id, if any (notifications/cancelled).
func (b *Bridge) cancel(id json.RawMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.inflight[string(id)]; ok {
		c.cancelled = true
		c.cancel()
	}
}

func (b *Bridge) wasCancelled(c *inflight) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return c.cancelled
}

// handle relays one line, a message or (when 2025-03-26 was negotiated) a
// batch, and writes its answer, if it has one.
func (b *Bridge) handle(ctx context.Context, line []byte) {
	if b.isBatch(line) {
		b.handleBatch(ctx, line)
		return
	}
	b.relay(ctx, line, b.writeLine)
}

// relay relays one message and hands its answer, if it has one, to answer.
// Progress notifications are written as they come.
func (b *Bridge) relay(ctx context.Context, line []byte, answer func([]byte)) {
	m := peek(line, b.opts.Policy)
	if b.roots.take(line, &m, b.writeLine) {
		return // the client's answer to the bridge's own roots/list
	}
	timeout := b.opts.Timeouts.For(&m)
	var callCtx context.Context
	var cancel context.CancelFunc
	var relay func([]byte)
	if m.wantsProgress() {
		// Progress comes as it happens; the timeout counts from the last
		// message, within the cap.
		var touch func()
		callCtx, cancel, touch = idleContext(ctx, timeout, b.opts.Timeouts.progressCap())
		relay = func(n []byte) {
			touch()
			b.writeLine(n)
		}
	} else {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	if id := m.cancels(); id != nil {
		b.cancel(id) // and relay the notification all the same
	}
	var call *inflight
	if m.parsed && m.answerable() {
		call = b.track(m.ID, cancel)
		defer b.untrack(m.ID, call)
	}

	reply, err := b.call(callCtx, ctx, line, &m, relay)
	resp := b.restartNotice(&m, reply)
	if ctx.Err() != nil {
		return // shutting down: nobody is listening
	}
	if call != nil && b.wasCancelled(call) {
		// The client gave up on it: a cancelled request gets no answer.
		b.log.Info().RawJSON("id", m.ID).Str("call", m.label()).Msg("cancelled by the client")
		return
	}
	// Notifications and client responses are never answered, even when the
	// daemon fails them.
	owed := m.answerable()
	if err != nil {
		rerr := b.rpcErrorFor(callCtx, err, &m, timeout)
		ev := b.log.Warn().Err(err).Str("call", m.label()).Int("code", rerr.Code)
		if m.ID != nil {
			ev = ev.RawJSON("id", m.ID)
		}
		ev.Msg("call failed")
		if owed {
			answer(errorMessage(m.replyID(), rerr))
		}
		return
	}
	if !owed && m.parsed {
		if resp != nil {
			b.log.Warn().Str("call", m.label()).Msg("daemon answered a notification; answer dropped")
		}
		return
	}
	if resp == nil {
		if m.parsed {
			answer(errorMessage(m.ID, rpcError{
				Code:    codeInternal,
				Message: fmt.Sprintf("gasoline daemon accepted %s but sent no answer; this is a daemon bug, please report it", m.label()),
			}))
		}
		return
	}
	b.noteVersion(&m, resp)
	answer(resp)
}

// call posts line to the daemon, starting the daemon and retrying as the
// failure allows: a request that never reached a daemon is retried once
// after starting one; an idempotent request whose connection broke is
// retried once. (The client itself retries a 401 after the token changed.)
// With relay, the call accepts notifications before its response (progress)
// and hands each to relay as it arrives.
func (b *Bridge) call(ctx, base context.Context, line []byte, m *message, relay func([]byte)) (client.Reply, error) {
	idem := m.idempotent()
	gen := b.starter.generation()
	ctx = client.WithProject(ctx, append(b.roots.folders(), b.opts.Project)...)
	post := func() (client.Reply, error) {
		if relay != nil {
			return b.client.CallStream(ctx, b.clientID, line, idem, relay)
		}
		return b.client.Call(ctx, b.clientID, line, idem)
	}
	reply, err := post()
	switch {
	case err == nil:
		return reply, nil
	case errors.Is(err, client.ErrUnreachable):
		b.log.Info().Str("call", m.label()).Msg("daemon unreachable; starting it and retrying")
		if err := b.ensureDaemon(ctx, base, gen); err != nil {
			return client.Reply{}, err
		}
		return post()
	case errors.Is(err, client.ErrConnLost):
		if !idem {
			return client.Reply{}, &restartedError{err: err}
		}
		b.log.Info().Err(err).Str("call", m.label()).Msg("connection lost; retrying the idempotent call")
		gen = b.starter.generation()
		reply, err = post()
		if errors.Is(err, client.ErrUnreachable) {
			if err := b.ensureDaemon(ctx, base, gen); err != nil {
				return client.Reply{}, err
			}
			reply, err = post()
		}
		return reply, err
	}
	return client.Reply{}, err
}

// ensureDaemon starts the daemon unless another call already did after gen
// was taken, then picks up the token it may have created.
func (b *Bridge) ensureDaemon(ctx, base context.Context, gen uint64) error {
	if err := b.starter.ensure(ctx, base, gen); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &startError{err: err, log: b.logFile()}
	}
	b.reloadToken()
	return nil
}

// startDaemon runs one `gasoline daemon start`.
func (b *Bridge) startDaemon(ctx context.Context) error {
	bin, err := findDaemon(b.opts.DaemonBin)
	if err != nil {
		return err
	}
	b.log.Info().Str("bin", bin).Int("port", b.opts.Port).Str("state_dir", b.opts.StateDir).Msg("starting the daemon")
	if err := startDaemon(ctx, bin, b.opts.Port, b.opts.StateDir); err != nil {
		return err
	}
	b.log.Info().Msg("daemon started")
	return nil
}

// reloadToken rereads the token file after a start, which may have
// created it, saving the first call a refused attempt.
func (b *Bridge) reloadToken() {
	tok, err := b.state.ReadToken()
	if err != nil {
		b.log.Warn().Err(err).Msg("rereading the token")
		return
	}
	b.client.SetToken(tok)
}

// writeLine writes one protocol message and a newline to stdout and
// flushes it. A message that spans lines is compacted first.
func (b *Bridge) writeLine(msg []byte) {
	msg = bytes.TrimRight(msg, " \t\r\n")
	if bytes.IndexByte(msg, '\n') >= 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, msg); err != nil {
			b.log.Error().Err(err).Msg("daemon answered with invalid JSON; dropped")
			return
		}
		msg = buf.Bytes()
	}
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.out.Write(msg)
	b.out.WriteByte('\n')
	if err := b.out.Flush(); err != nil {
		b.log.Error().Err(err).Msg("writing to stdout")
	}
}

// writeError writes a JSON-RPC error response addressed to id.
func (b *Bridge) writeError(id json.RawMessage, e rpcError) { b.writeLine(errorMessage(id, e)) }

// errorMessage encodes a JSON-RPC error response addressed to id.
func errorMessage(id json.RawMessage, e rpcError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, e}) // cannot fail: id is valid JSON from a decoded message
	return msg
}
