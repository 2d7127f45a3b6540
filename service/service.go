// Package service writes the platform's own user service that starts
// notch-web at login and again after a crash: a systemd user unit on Linux,
// a launchd LaunchAgent on macOS, a scheduled task at logon on Windows
// (docs/service.md). It renders the files (pure, golden-tested), writes
// them as the hooks installer writes settings — atomically, never widening
// a mode, a backup kept — and never overwrites silently a file someone
// edited since notch-web wrote it: each file carries the hash of what
// notch-web wrote, and one that no longer matches is refused without
// --force. Running systemctl, launchctl or schtasks is the caller's.
package service

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// Spec is what the service runs: the binary by its absolute path, the
// host's flags, and the DSH home (where launchd's log goes).
type Spec struct {
	Exe     string
	Args    []string
	DSHHome string
}

// Name is the service's name: the systemd unit's and the task's.
const Name = "notch-web"

// Label is the LaunchAgent's label.
const Label = "io.notch-web.host"

// LogName is the log file launchd writes in the DSH home's
// state/agents-notch/ (systemd's is the journal, the task's nowhere: the
// host's log is its stderr).
const LogName = "notch-web.log"

// LogPath is the launchd service's log file.
func LogPath(dshHome string) string {
	return filepath.Join(dshHome, "state", "agents-notch", LogName)
}

// ErrEdited is Write's refusal of a file someone changed since notch-web
// wrote it (or that notch-web never wrote).
var ErrEdited = errors.New("was changed since notch-web wrote it (or notch-web did not write it): --force replaces it, keeping a backup")

// markRE finds the line that carries the hash, in any of the formats.
var markRE = regexp.MustCompile(`(?m)^.*notch-web-sha256: ([0-9a-f]{64}).*\n`)

// sealed puts the hash of body (its mark line left out) into its mark
// line, where body holds the placeholder "{{sha256}}".
func sealed(body string) []byte {
	const ph = "{{sha256}}"
	i := bytes.Index([]byte(body), []byte(ph))
	if i < 0 {
		panic("service: a template without its mark")
	}
	start := bytes.LastIndexByte([]byte(body[:i]), '\n') + 1
	end := i + bytes.IndexByte([]byte(body[i:]), '\n') + 1
	sum := sha256.Sum256([]byte(body[:start] + body[end:]))
	return []byte(body[:i] + hex.EncodeToString(sum[:]) + body[i+len(ph):])
}

// Intact reports whether b is a file notch-web wrote and nobody changed:
// its mark's hash is that of the rest.
func Intact(b []byte) bool {
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) { // the task's UTF-16LE
		b = fromUTF16(b[2:])
	}
	m := markRE.FindSubmatchIndex(b)
	if m == nil {
		return false
	}
	rest := append(append([]byte{}, b[:m[0]]...), b[m[1]:]...)
	sum := sha256.Sum256(rest)
	return hex.EncodeToString(sum[:]) == string(b[m[2]:m[3]])
}

// Result says what Write did.
type Result struct {
	Path    string
	Changed bool   // the file was written (else it already said this)
	Backup  string // where the replaced file was kept, "" for none
}

// Write puts content at path unless a file there was edited since
// notch-web wrote it (ErrEdited; force replaces it, keeping a backup). The
// write is atomic and keeps an existing file's mode (never widened) and
// its symlink.
func Write(path string, content []byte, force bool, now time.Time) (Result, error) {
	res := Result{Path: path}
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	old, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return res, err
		}
		if err := fsx.WriteFileAtomic(target, content); err != nil {
			return res, err
		}
		res.Changed = true
		return res, nil
	case err != nil:
		return res, err
	}
	if bytes.Equal(old, content) {
		return res, nil
	}
	if !Intact(old) {
		if !force {
			return res, fmt.Errorf("%s %w", path, ErrEdited)
		}
		res.Backup = target + ".bak-" + strconv.FormatInt(now.UnixMilli(), 10)
		if err := fsx.WriteFilePrivate(res.Backup, old); err != nil {
			return res, fmt.Errorf("keeping a backup of %s: %w", path, err)
		}
	}
	if err := writeKeepingMode(target, content); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

// writeKeepingMode replaces an existing file atomically with its own mode:
// a file narrower than 0644 is written 0600 and given its mode back, so it
// is never readable by more than it was.
func writeKeepingMode(path string, content []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	if perm == 0o644 {
		return fsx.WriteFileAtomic(path, content)
	}
	if err := fsx.WriteFilePrivate(path, content); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}

// Remove deletes the file notch-web wrote at path; one that was edited
// since is kept unless force (then it is kept as a backup).
func Remove(path string, force bool, now time.Time) (Result, error) {
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	if !Intact(old) {
		if !force {
			return res, fmt.Errorf("%s %w", path, ErrEdited)
		}
		res.Backup = path + ".bak-" + strconv.FormatInt(now.UnixMilli(), 10)
		if err := fsx.WriteFilePrivate(res.Backup, old); err != nil {
			return res, err
		}
	}
	if err := os.Remove(path); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}
