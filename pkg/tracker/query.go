package tracker

import (
	"cmp"
	"context"
	"slices"
)

// Get returns a snapshot of command id without marking it read. For ids no
// longer retained it falls back to the failed ring; otherwise it fails with
// ErrUnknownCommand. Get never blocks.
func (t *Tracker) Get(id string) (Command, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.getLocked(id, "")
}

// Result is Get for clientID, which marks a terminal command read when
// clientID owns it: a read result is simply dropped when its retention ends
// instead of moving to the failed ring, and it leaves its owner's unread
// list. Another client's read marks nothing, so the owner is still reminded.
func (t *Tracker) Result(clientID, id string) (Command, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.getLocked(id, ClientName(clientID))
}

// getLocked looks id up in the retained commands, then the ring, marking a
// terminal command read if reader (a client name, or "" for nobody) owns
// it. t.mu must be held.
func (t *Tracker) getLocked(id, reader string) (Command, error) {
	if e := t.cmds[id]; e != nil {
		if e.cmd.State.Terminal() && e.cmd.Client == reader {
			t.markReadLocked(e)
		}
		return e.snapshot(), nil
	}
	if rc := t.ring.get(id); rc != nil {
		if rc.Client == reader {
			rc.Read = true
		}
		return clone(*rc), nil
	}
	return Command{}, t.errUnknown(id)
}

// markReadLocked marks the terminal command e read, in the ring too. t.mu must
// be held.
func (t *Tracker) markReadLocked(e *entry) {
	e.cmd.Read = true
	if e.cmd.State != StateComplete {
		t.ring.markRead(e.cmd.ID)
	}
}

// Wait blocks until command id is terminal and returns it, marked read when
// clientID owns it (see Result). When
// ctx ends first it returns the command as it stands and ctx.Err(); when the
// Tracker is closed, the snapshot and ErrClosed. Unknown ids fail at once with
// ErrUnknownCommand; ids only in the failed ring return at once.
//
// The wake-up is immediate: the command's channel is closed at its terminal
// transition.
func (t *Tracker) Wait(ctx context.Context, clientID, id string) (Command, error) {
	reader := ClientName(clientID)
	t.mu.Lock()
	e := t.cmds[id]
	if e == nil || e.cmd.State.Terminal() {
		defer t.mu.Unlock()
		return t.getLocked(id, reader)
	}
	if t.closed {
		defer t.mu.Unlock()
		return e.snapshot(), errClosed("waiting for a command")
	}
	if e.done == nil {
		e.done = make(chan struct{})
	}
	done := e.done
	t.mu.Unlock()
	if t.opts.OnWait != nil {
		t.opts.OnWait()
	}

	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.done:
		err = errClosed("waiting for a command")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.cmd.State.Terminal() {
		// The command may have been dropped since (MaxRetained); the waiter
		// still gets what it waited for.
		if e.cmd.Client == reader {
			t.markReadLocked(e)
		}
		err = nil
	}
	return e.snapshot(), err
}

// WaitAny is "wait for any" for one client. It returns the client's terminal,
// retained commands that have not been read and that no earlier WaitAny
// returned, marking them announced (not read), oldest finished first. If
// there are none it returns at once with an empty slice when the client has
// no non-terminal command, and otherwise blocks until one of them finishes.
// When ctx ends first it returns an empty slice and a nil error; when the
// Tracker is closed, an empty slice and ErrClosed. The slice is never nil.
func (t *Tracker) WaitAny(ctx context.Context, clientID string) ([]Command, error) {
	name := ClientName(clientID)
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		c := t.clients[name]
		out := announceLocked(c)
		if len(out) > 0 || c == nil || c.active.n == 0 {
			return out, nil
		}
		if t.closed {
			return out, errClosed("waiting for any command")
		}
		if c.finished == nil {
			c.finished = make(chan struct{})
		}
		wake := c.finished
		t.mu.Unlock()
		if t.opts.OnWait != nil {
			t.opts.OnWait()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			t.mu.Lock()
			return []Command{}, nil
		case <-t.done:
		}
		t.mu.Lock()
	}
}

// announceLocked returns c's unread, unannounced retained commands and marks
// them announced. c may be nil. t.mu must be held.
func announceLocked(c *client) []Command {
	out := []Command{}
	if c == nil {
		return out
	}
	for e := c.retained.front; e != nil; e = c.retained.next(e) {
		if !e.cmd.Read && !e.announced {
			e.announced = true
			out = append(out, e.snapshot())
		}
	}
	return out
}

// List returns one client's commands: non-terminal ones, retained complete
// ones and its entries of the failed ring. The slices are never nil. List
// never blocks.
func (t *Tracker) List(clientID string) Lists {
	name := ClientName(clientID)
	t.mu.Lock()
	defer t.mu.Unlock()
	l := Lists{Pending: []Command{}, Completed: []Command{}}
	if c := t.clients[name]; c != nil {
		for e := c.active.front; e != nil; e = c.active.next(e) {
			l.Pending = append(l.Pending, e.snapshot())
		}
		for e := c.retained.front; e != nil; e = c.retained.next(e) {
			if e.cmd.State == StateComplete {
				l.Completed = append(l.Completed, e.snapshot())
			}
		}
	}
	l.Failed = t.ring.snapshots(func(c *Command) bool { return c.Client == name })
	return l
}

// All is List across every client, for the debug view: pending commands in
// submission order, completed ones in finishing order. All never blocks.
func (t *Tracker) All() Lists {
	t.mu.Lock()
	defer t.mu.Unlock()
	var pending, done []*entry
	for _, c := range t.clients {
		for e := c.active.front; e != nil; e = c.active.next(e) {
			pending = append(pending, e)
		}
		for e := c.retained.front; e != nil; e = c.retained.next(e) {
			if e.cmd.State == StateComplete {
				done = append(done, e)
			}
		}
	}
	slices.SortFunc(pending, func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
	slices.SortFunc(done, func(a, b *entry) int { return cmp.Compare(a.finSeq, b.finSeq) })
	l := Lists{
		Pending:   make([]Command, 0, len(pending)),
		Completed: make([]Command, 0, len(done)),
		Failed:    t.ring.snapshots(nil),
	}
	for _, e := range pending {
		l.Pending = append(l.Pending, e.snapshot())
	}
	for _, e := range done {
		l.Completed = append(l.Completed, e.snapshot())
	}
	return l
}

// Unread returns the client's non-terminal commands and its terminal,
// retained commands not yet read, each oldest first; nil when there are
// none. It backs the "async" status of every tool response. Unread never
// blocks.
func (t *Tracker) Unread(clientID string) (running, ready []Command) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.clients[ClientName(clientID)]
	if c == nil {
		return nil, nil
	}
	for e := c.active.front; e != nil; e = c.active.next(e) {
		running = append(running, e.snapshot())
	}
	for e := c.retained.front; e != nil; e = c.retained.next(e) {
		if !e.cmd.Read {
			ready = append(ready, e.snapshot())
		}
	}
	return running, ready
}

// Stats returns tracker-wide counts. Stats never blocks.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Stats{
		Queued:     t.queue.n,
		Pending:    t.nPending,
		External:   t.nExternal,
		ParamBytes: t.paramBytes,
		Completed:  t.nRetained,
		Failed:     t.ring.len(),
	}
}

// Options returns the options t runs with, defaults applied: its timers, for
// callers that tell clients how long a command may take or stay readable.
func (t *Tracker) Options() Options { return t.opts }
