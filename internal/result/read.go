package result

import (
	"context"
	"errors"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// Every read of a stored output by id goes through Open, which applies the
// one ownership rule (Owns) whatever the path: command_result's modes and
// images, resources/read.

// ErrNoStore is returned by every store operation of a Keeper that keeps no
// output store.
var ErrNoStore = errors.New("this daemon keeps no output store")

// ErrUnknown is returned for an id the client may not read: unknown,
// expired, or another client's. It does not tell these apart, so that ids
// do not leak from one client to another.
var ErrUnknown = fmt.Errorf("%w: not a command or stored output of this client", tracker.ErrUnknownCommand)

// NotCompleteError is returned by Open for a command that has no output to
// read: still running, or ended without a result.
type NotCompleteError struct {
	Command tracker.Command
}

func (e *NotCompleteError) Error() string {
	return fmt.Sprintf("command %s is %s and has no output to read", e.Command.ID, e.Command.State)
}

// Owns reports whether client may read the output stored under id, by any
// path. This is the one ownership rule: a command the tracker still knows
// is its client's; any other output (a command's whose retention ended, a
// network body read into the store, an annotation's crop) is the client's
// recorded when it was stored (Put, Report, FinishDraw). An output nobody
// is recorded as owning is nobody's to read.
func (k *Keeper) Owns(client, id string) bool {
	if c, err := k.trk.Get(id); err == nil {
		return c.Client == tracker.ClientName(client)
	}
	o := &k.owners
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.byID[id]
	return ok && owner == tracker.ClientName(client)
}

// Open makes the output of id ready for client to read and returns its
// handle. It fails with ErrUnknown when client does not own id (Owns) or
// nothing is stored under it, with a *NotCompleteError for a command the
// tracker knows that has no output, with output.ErrEvicted when the output
// was dropped under the store's byte budget, and with ErrNoStore. A
// complete command's inline result is stored now, so that every read mode
// works on every result; a command whose retention ended is read from the
// store while its output lives there. Opening a command's output counts as
// reading its result (tracker.Result).
func (k *Keeper) Open(client, id string) (output.Handle, error) {
	if k.store == nil {
		return output.Handle{}, ErrNoStore
	}
	if !k.Owns(client, id) {
		return output.Handle{}, ErrUnknown
	}
	c, err := k.trk.Get(id)
	if err == nil && c.Reason == tracker.ReasonResultExpired {
		// Its retention ended unread; a stored output lives on under the
		// byte budget, so read it as if the tracker had forgotten it.
		err = tracker.ErrUnknownCommand
	}
	switch {
	case err == nil && c.State != tracker.StateComplete:
		return output.Handle{}, &NotCompleteError{Command: c}
	case err == nil:
		if err := k.Readable(c); err != nil {
			return output.Handle{}, err
		}
	case !errors.Is(err, tracker.ErrUnknownCommand):
		return output.Handle{}, err
	}
	h, err := k.store.Handle(id)
	if errors.Is(err, output.ErrNotFound) {
		return output.Handle{}, ErrUnknown
	}
	if err != nil {
		return output.Handle{}, err
	}
	k.trk.Result(client, id)
	return h, nil
}

// Handle returns the handle of the output stored under id when client may
// read it, without storing or marking anything (see Open for the errors).
func (k *Keeper) Handle(client, id string) (output.Handle, error) {
	if k.store == nil {
		return output.Handle{}, ErrNoStore
	}
	if !k.Owns(client, id) {
		return output.Handle{}, ErrUnknown
	}
	return k.store.Handle(id)
}

// Raw returns the output of id whole, as output.Store.Raw does, with its
// handle, after Open.
func (k *Keeper) Raw(client, id string) (string, output.Handle, error) {
	h, err := k.Open(client, id)
	if err != nil {
		return "", h, err
	}
	text, err := k.store.Raw(id)
	return text, h, err
}

// Content returns the output of id whole whatever its size, as
// output.Store.Content does, after Open.
func (k *Keeper) Content(client, id string) (string, error) {
	if _, err := k.Open(client, id); err != nil {
		return "", err
	}
	return k.store.Content(id)
}

// Slice returns a slice of the output of id, as output.Store.Slice does,
// after Open.
func (k *Keeper) Slice(client, id string, req output.SliceRequest) (output.SliceResult, error) {
	if _, err := k.Open(client, id); err != nil {
		return output.SliceResult{}, err
	}
	return k.store.Slice(id, req)
}

// Extract returns what extraction finds in the output of id, as
// output.Store.Extract does, after Open.
func (k *Keeper) Extract(ctx context.Context, client, id string, req output.ExtractRequest) (output.ExtractResult, error) {
	if _, err := k.Open(client, id); err != nil {
		return output.ExtractResult{}, err
	}
	return k.store.Extract(ctx, id, req)
}

// ContentOf returns the whole output of c, a command its caller already
// holds (a presenter shaping c's result for its client): the stored
// output's content, after Readable.
func (k *Keeper) ContentOf(c tracker.Command) (string, error) {
	if err := k.Readable(c); err != nil {
		return "", err
	}
	return k.store.Content(c.ID)
}

// SliceOf is Slice for a command its caller already holds (see ContentOf).
func (k *Keeper) SliceOf(c tracker.Command, req output.SliceRequest) (output.SliceResult, error) {
	if err := k.Readable(c); err != nil {
		return output.SliceResult{}, err
	}
	return k.store.Slice(c.ID, req)
}

// Oversize reports whether content is above the store's inline threshold;
// false when there is no store.
func (k *Keeper) Oversize(content string) bool {
	return k.store != nil && k.store.Oversize(content)
}
