// Package state manages the daemon's state directory: its ownership and
// permissions, the API token, the daemon's lock, socket, pid and log files.
package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File names inside the state directory.
const (
	TokenFile  = "token"
	PIDFile    = "daemon.pid"
	LogFile    = "daemon.log"
	LockFile   = "daemon.lock"
	SocketFile = "daemon.sock"
)

// maxSocketPath is the longest socket path every platform accepts: sun_path
// holds 104 bytes on macOS and the BSDs, 108 on Linux and Windows, with
// the terminating NUL.
const maxSocketPath = 103

// ErrInsecure means a state dir or one of its files could be read or
// replaced by another user, so its token cannot be trusted. The error says
// how to fix it.
var ErrInsecure = errors.New("insecure gasoline state")

// Dir is a state directory. Its zero value is not usable: the daemon uses
// Open; clients, which only read, may use Dir{Path: p} directly, since every
// read checks ownership.
type Dir struct {
	Path string
}

// Open returns the state directory at path, creating it with mode 0700 when
// it does not exist. It refuses a directory, or a symlink to one, that is
// not owned by the current user; an existing directory of the user's that
// others can read or write is tightened to 0700.
func Open(path string) (Dir, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return Dir{}, fmt.Errorf("creating state dir %s: %w", path, err)
	}
	fi, err := checkDir(path)
	if err != nil {
		return Dir{}, err
	}
	if looseMode(fi.Mode(), 0o077) {
		if err := os.Chmod(path, 0o700); err != nil {
			return Dir{}, fmt.Errorf("restricting state dir %s to its owner: %w", path, err)
		}
	}
	return Dir{Path: path}, nil
}

// Check verifies that the state dir exists and belongs to the current user,
// following a final symlink only when the user owns it. Clients call it
// before trusting the daemon's socket inside the directory.
func (d Dir) Check() error {
	_, err := checkDir(d.Path)
	return err
}

// checkDir returns the directory's own FileInfo after checking its owner and
// the owner of a symlink leading to it.
func checkDir(path string) (fs.FileInfo, error) {
	li, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("checking state dir %s: %w", path, err)
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		if err := checkOwner(li, "state dir symlink "+path); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("checking state dir %s: %w", path, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("state dir %s is not a directory; pass another --state-dir", path)
	}
	if err := checkOwner(fi, "state dir "+path); err != nil {
		return nil, err
	}
	return fi, nil
}

// checkOwner refuses a file of another user.
func checkOwner(fi fs.FileInfo, what string) error {
	uid, ok := owner(fi)
	me := os.Geteuid()
	if !ok || me < 0 || uid == me {
		return nil
	}
	return fmt.Errorf("%w: %s belongs to uid %d, not to you (uid %d): whoever owns it can know or replace the token; use a directory of your own (--state-dir or %s)",
		ErrInsecure, what, uid, me, "GASOLINE_STATE_DIR")
}

// File returns the path of name inside the directory.
func (d Dir) File(name string) string { return filepath.Join(d.Path, name) }

// SocketPath returns the daemon's Unix socket path, and false when the path
// is too long for a socket on some platform: the daemon and its clients
// then use TCP alone.
func (d Dir) SocketPath() (string, bool) {
	p := d.File(SocketFile)
	return p, len(p) <= maxSocketPath
}

// OpenFile opens the private file name inside the directory with flag
// (os.O_CREATE creates it with mode 0600). It never follows a symlink and
// refuses a file that is not a regular file of the current user, so a link
// planted while the directory was open to others cannot redirect a write.
func (d Dir) OpenFile(name string, flag int) (*os.File, error) {
	path := d.File(name)
	f, err := os.OpenFile(path, flag|noFollow, 0o600)
	if err != nil {
		if isSymlinkErr(path, err) {
			return nil, fmt.Errorf("%w: %s is a symbolic link; delete it and try again", ErrInsecure, path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file; delete it and try again", ErrInsecure, path)
	}
	if err := checkOwner(fi, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WriteFile replaces the private file name with data (mode 0600), without
// following a symlink.
func (d Dir) WriteFile(name string, data []byte) error {
	f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadOrCreateToken returns the API token, creating it (32 random bytes, hex,
// mode 0600) when absent. It is safe against concurrent creators, in this
// process or others: the file appears whole or not at all, the first to
// publish wins, and every caller returns that token. An existing token is
// checked as ReadToken checks it.
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
	// Publish atomically: write a private temporary file, then link it into
	// place. Link fails when the token exists, so a concurrent creator's
	// token wins and nobody ever reads a half-written file.
	tmp, err := os.CreateTemp(d.Path, ".token-*")
	if err != nil {
		return "", fmt.Errorf("creating token file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("creating token file: %w", err)
	}
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing token file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing token file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing token file: %w", err)
	}
	if err := os.Link(tmp.Name(), d.File(TokenFile)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return d.ReadToken()
		}
		return "", fmt.Errorf("publishing token file: %w", err)
	}
	return tok, nil
}

// ReadToken reads the API token. It returns an error wrapping fs.ErrNotExist
// when no daemon has created one yet, and one wrapping ErrInsecure when the
// directory or the token belongs to another user, or when the token is a
// symlink or readable or writable by others: a token others may know must
// not be used, and the error says how to replace it.
func (d Dir) ReadToken() (string, error) {
	if _, err := checkDir(d.Path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("reading token (start the daemon with 'gasoline daemon start' to create it): %w", err)
		}
		return "", err
	}
	path := d.File(TokenFile)
	f, err := d.OpenFile(TokenFile, os.O_RDONLY)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("reading token (start the daemon with 'gasoline daemon start' to create it): %w", err)
		}
		if errors.Is(err, ErrInsecure) {
			return "", fmt.Errorf("%w; it is replaced with a new one when the daemon starts without it: 'gasoline daemon stop; rm %s; gasoline daemon start'", err, path)
		}
		return "", fmt.Errorf("reading token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("reading token: %w", err)
	}
	if looseMode(fi.Mode(), 0o077) {
		return "", fmt.Errorf("%w: token file %s has mode %04o, so other users may have read it and could drive your browser; "+
			"replace it with a new one: 'gasoline daemon stop; rm %s; gasoline daemon start'",
			ErrInsecure, path, fi.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("reading token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("token file %s is malformed; delete it and restart the daemon", path)
	}
	return tok, nil
}
