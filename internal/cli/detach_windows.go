package cli

import (
	"os/exec"
	"syscall"
)

// detachedProcess is DETACHED_PROCESS: the child gets no console, so closing
// the terminal that started it does not end it.
const detachedProcess = 0x00000008

// detach makes cmd outlive the console and process group that started it: a
// new process group (Ctrl-C in the console does not reach it) without a
// console window.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess,
		HideWindow:    true,
	}
}
