//go:build unix

package upload

import "syscall"

// openFlags open a file for reading without blocking on a named pipe: Read
// refuses anything but a regular file once it is open.
const openFlags = syscall.O_RDONLY | syscall.O_NONBLOCK
