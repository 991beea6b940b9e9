// Package config resolves the settings every gasoline binary shares: the
// daemon port and the state directory, from flag, environment or default.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Defaults and environment variable names of the configuration contract.
const (
	DefaultPort = 7890
	EnvPort     = "GASOLINE_PORT"
	EnvStateDir = "GASOLINE_STATE_DIR"
)

// Port returns flagValue when it is non-zero, else $GASOLINE_PORT, else 7890.
func Port(flagValue int) (int, error) {
	if flagValue != 0 {
		return checkPort(flagValue)
	}
	if s := os.Getenv(EnvPort); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not a port number", EnvPort, s)
		}
		return checkPort(p)
	}
	return DefaultPort, nil
}

func checkPort(p int) (int, error) {
	if p < 1 || p > 65535 {
		return 0, fmt.Errorf("port %d is out of range 1-65535", p)
	}
	return p, nil
}

// StateDir returns flagValue when non-empty, else $GASOLINE_STATE_DIR, else
// ~/.gasoline. The result is absolute.
func StateDir(flagValue string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = os.Getenv(EnvStateDir)
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("finding home directory for the default state dir (set --state-dir or %s): %w", EnvStateDir, err)
		}
		dir = filepath.Join(home, ".gasoline")
	}
	return filepath.Abs(dir)
}

// BaseURL is the daemon's loopback URL for port.
func BaseURL(port int) string {
	return "http://127.0.0.1:" + strconv.Itoa(port)
}
