//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// detach makes cmd outlive the terminal and process group that started it:
// a new session, so a Ctrl-C or a closed terminal does not reach the daemon.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
