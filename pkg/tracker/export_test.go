package tracker

// Test hooks: they let tests wait for a goroutine to block instead of
// sleeping.

// Waiting reports whether a Wait has blocked, or is about to, on the
// non-terminal command id.
func (t *Tracker) Waiting(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.cmds[id]
	return e != nil && e.done != nil && !e.cmd.State.Terminal()
}

// WaitingAny reports whether a WaitAny of client has blocked, or is about to.
func (t *Tracker) WaitingAny(client string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.clients[ClientName(client)]
	return c != nil && c.finished != nil
}

// Polling returns how many Polls of instance are in flight. A Poll counts
// from its first look at the queue, under the lock, so a test that sees it
// and then queues a command can rely on the Poll picking it up.
func (t *Tracker) Polling(instance string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if inst := t.instances[instance]; inst != nil {
		return inst.polls
	}
	return 0
}

// Sizes returns how many commands, clients and instances the tracker keeps
// bookkeeping for.
func (t *Tracker) Sizes() (cmds, clients, instances int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.cmds), len(t.clients), len(t.instances)
}
