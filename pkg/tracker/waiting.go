package tracker

// maxWaitingBytes bounds Command.WaitingFor (an origin).
const maxWaitingBytes = 300

// WaitingForUser records on pending command id what the extension asks the
// user before running it (the origin its prompt names; "" once the user
// answered) and returns the command's snapshot. A command that is not
// pending, or unknown, is left as it is (its snapshot, or a zero Command).
func (t *Tracker) WaitingForUser(id, origin string) Command {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.cmds[id]
	if e == nil {
		return Command{}
	}
	if e.cmd.State == StatePending && !e.external {
		e.cmd.WaitingFor = clip(origin, maxWaitingBytes)
	}
	return e.snapshot()
}
