// Package state manages the daemon's state directory: its permissions, the
// API token, the pid file and the log file names.
package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File names inside the state directory.
const (
	TokenFile = "token"
	PIDFile   = "daemon.pid"
	LogFile   = "daemon.log"
)

// Dir is a state directory. Its zero value is not usable; use Open.
type Dir struct {
	Path string
}

// Open returns the state directory at path, creating it with mode 0700 when
// it does not exist. An existing directory that others can read or write is
// tightened to 0700.
func Open(path string) (Dir, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return Dir{}, fmt.Errorf("creating state dir %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Dir{}, fmt.Errorf("checking state dir %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o700); err != nil {
			return Dir{}, fmt.Errorf("restricting state dir %s to its owner: %w", path, err)
		}
	}
	return Dir{Path: path}, nil
}

// File returns the path of name inside the directory.
func (d Dir) File(name string) string { return filepath.Join(d.Path, name) }

// LoadOrCreateToken returns the API token, creating it (32 random bytes, hex,
// mode 0600) when absent. It is safe against a concurrent creator: the first
// writer wins and both return the same token.
func (d Dir) LoadOrCreateToken() (string, error) {
	tok, err := d.ReadToken()
	if err == nil {
		return tok, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating token: %w", err)
	}
	tok = hex.EncodeToString(b)
	f, err := os.OpenFile(d.File(TokenFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return d.ReadToken()
	}
	if err != nil {
		return "", fmt.Errorf("creating token file: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("writing token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("writing token file: %w", err)
	}
	return tok, nil
}

// ReadToken reads the API token. It returns an error wrapping fs.ErrNotExist
// when no daemon has created one yet.
func (d Dir) ReadToken() (string, error) {
	b, err := os.ReadFile(d.File(TokenFile))
	if err != nil {
		return "", fmt.Errorf("reading token (start the daemon with 'gasoline daemon start' to create it): %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("token file %s is malformed; delete it and restart the daemon", d.File(TokenFile))
	}
	return tok, nil
}
