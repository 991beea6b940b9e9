//go:build !unix

package bridge

import "io"

// pollable returns r unchanged where the unix fast path does not apply.
func pollable(r io.Reader) (io.Reader, func()) { return r, func() {} }
