//go:build unix

package bridge

import (
	"io"
	"os"
	"syscall"
)

// pollable returns a reader of the same input that parks in the runtime's
// network poller instead of blocking a thread in read(2), and a function
// that undoes the change. It applies to pipes and sockets (what MCP clients
// give their servers); anything else is returned as is.
//
// A blocking read holds its thread and P in a system call, so the goroutine
// a new line is handed to waits for the scheduler to take the P back; on a
// pollable file the reader parks and the handler runs at once. That handoff
// was the largest part of the bridge's added latency.
func pollable(r io.Reader) (io.Reader, func()) {
	f, ok := r.(*os.File)
	if !ok {
		return r, func() {}
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return r, func() {}
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return r, func() {}
	}
	// O_NONBLOCK belongs to the open file description, shared with the
	// original descriptor: restore it when done.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return r, func() {}
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	return nf, func() {
		syscall.SetNonblock(fd, false)
		nf.Close()
	}
}
