package tracker

import "time"

// maxWaitingBytes bounds Command.WaitingFor (an origin) and
// Command.WaitingOn.
const maxWaitingBytes = 300

// UserAnswerWindow is how long a command waits for the user's answer when
// the extension asks them to allow its origin (extension/origins/): the
// command's deadline, here and in the extension, moves out by it when the
// asking starts, so the user has a person's time to answer, not what is
// left of a deadline sized for the page. The extension's USER_ANSWER_MS
// (extension/contract.js) is generated from it.
const UserAnswerWindow = 120 * time.Second

// WaitingForUser records on pending command id what the extension asks the
// user before running it (the origin its prompt names; "" once the user
// answered) and returns the command's snapshot. The first time an origin is
// recorded the command's execution deadline restarts at UserAnswerWindow
// plus its Timeout from now (the extension moves its own deadline alike,
// earlier, as it asked before it posted), and Timeout becomes the whole
// deadline since delivery. A command that is not pending, or unknown, is
// left as it is (its snapshot, or a zero Command).
func (t *Tracker) WaitingForUser(id, origin string) Command {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.cmds[id]
	if e == nil {
		return Command{}
	}
	if e.cmd.State != StatePending || e.external {
		return e.snapshot()
	}
	e.cmd.WaitingFor = clip(origin, maxWaitingBytes)
	if origin != "" && !e.askedUser && !t.closed {
		e.askedUser = true
		now := t.clock.Now()
		left := UserAnswerWindow + e.cmd.Timeout
		stop(&e.timer)
		e.timer = t.clock.AfterFunc(left, func() { t.execExpired(e) })
		if e.cmd.DeliveredAt != nil {
			e.cmd.Timeout = now.Sub(*e.cmd.DeliveredAt) + left
		}
	}
	return e.snapshot()
}

// WaitingOn records on pending command id what its action waits for in the
// page (text, "" once it waits no more) and returns the command's
// snapshot. It only informs: the deadline stays. A command that is not
// pending, or unknown, is left as it is (its snapshot, or a zero Command).
func (t *Tracker) WaitingOn(id, text string) Command {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.cmds[id]
	if e == nil {
		return Command{}
	}
	if e.cmd.State == StatePending && !e.external {
		e.cmd.WaitingOn = clip(text, maxWaitingBytes)
	}
	return e.snapshot()
}
