//go:build !unix

package upload

import "os"

// openFlags open a file for reading (no named pipes to block on here).
const openFlags = os.O_RDONLY
