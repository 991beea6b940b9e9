//go:build !linux

package client

// PortHolder cannot find the process listening on a port here; errors say
// "pid unknown".
func PortHolder(int) (int, bool) { return 0, false }
