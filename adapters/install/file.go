package install

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/notch-web/notch-web/internal/textrule"
)

// A settings file is the user's: notch-web touches it as carefully as a
// text editor would. It reads only a regular file, and never blocks on
// something else standing at the path (a FIFO, a device); it writes through
// a symlink to its target, even a target that does not exist yet; it writes
// a temporary file with the final mode (never wider for an instant) and
// renames it over the file; and just before that rename it reads the file
// again, so that a change the user saved meanwhile is merged or refused,
// never lost.

// FileError is a settings file notch-web cannot or will not change: which
// file, what is wrong, and what the human can do. Its message is one line
// with the path quoted.
type FileError struct {
	Path    string
	Problem string // what is wrong, e.g. "not a regular file (a directory)"
	Fix     string // what to do, e.g. "move it away and run again"
	Err     error  // the cause, for errors.Is (ErrSyntax, fs.ErrPermission…)
}

func (e *FileError) Error() string {
	return textrule.Quote(e.Path) + ": " + e.Problem + "; " + e.Fix
}

func (e *FileError) Unwrap() error { return e.Err }

// errChanged is a file that changed between its read and our write.
var errChanged = errors.New("changed while notch-web was editing it")

// maxLinks bounds how many symlinks are followed, as the kernel does.
const maxLinks = 40

// resolve follows path's symlinks to the file notch-web reads and writes.
// A link whose target does not exist resolves to that target (written
// there, the link stays a link), provided the target's folder exists; a
// missing path resolves to itself (its folder is created when written).
func resolve(path string) (string, error) {
	real := path
	for range maxLinks {
		fi, err := os.Lstat(real)
		if errors.Is(err, fs.ErrNotExist) {
			if real != path {
				if _, err := os.Stat(filepath.Dir(real)); err != nil {
					return "", &FileError{Path: path, Err: err,
						Problem: "a symlink to " + textrule.Quote(real) + ", whose folder does not exist",
						Fix:     "create that folder (or remove the link) and run again"}
				}
			}
			return real, nil
		}
		if err != nil {
			return "", readError(path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return real, nil
		}
		dest, err := os.Readlink(real)
		if err != nil {
			return "", readError(path, err)
		}
		if !filepath.IsAbs(dest) {
			// Relative to the link's own folder as the kernel sees it,
			// which may itself be reached through links.
			dir, err := filepath.EvalSymlinks(filepath.Dir(real))
			if err != nil {
				dir = filepath.Dir(real)
			}
			dest = filepath.Join(dir, dest)
		}
		real = dest
	}
	return "", &FileError{Path: path, Problem: "a symlink loop (more than 40 links)", Fix: "fix the links and run again"}
}

// readError words a failure to read path.
func readError(path string, err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	fix := "check it and run again"
	if errors.Is(err, fs.ErrPermission) {
		fix = "make it readable to you (or run as its owner) and run again"
	}
	return &FileError{Path: path, Problem: "cannot read it: " + bare(err), Fix: fix, Err: err}
}

// bare is err without the path and operation an *os.PathError repeats
// (the message names the file already, quoted).
func bare(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// kindOf names a file type for a human.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a file"
}

// notRegular is the refusal of what is not a regular file.
func notRegular(path string, m fs.FileMode) error {
	return &FileError{Path: path, Problem: "not a regular file (" + kindOf(m) + ")",
		Fix: "notch-web edits only regular files: move it away and run again"}
}

// snapshot is a settings file as read: its bytes and mode, or that it does
// not exist.
type snapshot struct {
	exists bool
	src    []byte
	mode   fs.FileMode
}

// readFile reads the resolved file real (path names it for messages). It
// looks before it opens, and opens without blocking, so a FIFO or a device
// at the path is refused at once; it reads at most maxSettings bytes.
func readFile(path, real string) (snapshot, error) {
	fi, err := os.Lstat(real)
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot{mode: 0o644}, nil
	}
	if err != nil {
		return snapshot{}, readError(path, err)
	}
	if !fi.Mode().IsRegular() {
		return snapshot{}, notRegular(path, fi.Mode())
	}
	f, err := openNonBlocking(real)
	if err != nil {
		return snapshot{}, readError(path, err)
	}
	defer f.Close()
	// What was opened is what was looked at (not swapped for a FIFO in
	// between).
	if got, err := f.Stat(); err != nil || !got.Mode().IsRegular() || !os.SameFile(fi, got) {
		if err == nil && !got.Mode().IsRegular() {
			return snapshot{}, notRegular(path, got.Mode())
		}
		return snapshot{}, &FileError{Path: path, Err: errChanged, Problem: "it was replaced while notch-web read it", Fix: "run again"}
	}
	src, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err != nil {
		return snapshot{}, readError(path, err)
	}
	if len(src) > maxSettings {
		return snapshot{}, &FileError{Path: path, Problem: fmt.Sprintf("larger than %d MiB, not a settings file", maxSettings>>20),
			Fix: "move it away and run again"}
	}
	return snapshot{exists: true, src: src, mode: fi.Mode().Perm()}, nil
}

// readSettings resolves path and reads it.
func readSettings(path string) (real string, s snapshot, err error) {
	if real, err = resolve(path); err != nil {
		return "", snapshot{}, err
	}
	s, err = readFile(path, real)
	return real, s, err
}

// replace puts data in place of the resolved file real with mode: a
// temporary file beside it, created with that mode (so the bytes are
// never readable more widely than the file's own), synced, then put in
// place by commit as long as real is still as was (else errChanged, and
// the file is as the other writer left it), and the folder synced.
// raceAt, when set, runs in commit's last moment before the swap (a
// test's racing save).
func replace(path, real string, data []byte, was snapshot, raceAt func()) (err error) {
	dir := filepath.Dir(real)
	if !was.exists {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return writeError(path, err)
		}
	}
	tmp, err := createTemp(real, was.mode)
	if err != nil {
		return writeError(path, err)
	}
	defer func() {
		// A racing save kept at the temporary name is not ours to remove.
		if err != nil && !errors.Is(err, errRaced) {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// The umask may have narrowed the mode: an existing file's is set
	// exactly (never wider than it: the temporary file holds nothing yet);
	// a new file keeps what the umask left of 0644, as any file the user
	// creates would (under umask 077: 0600), never widened past it.
	if fi, err := tmp.Stat(); err == nil && was.exists && fi.Mode().Perm() != was.mode {
		if err := tmp.Chmod(was.mode); err != nil {
			return writeError(path, err)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Sync(); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Close(); err != nil {
		return writeError(path, err)
	}
	if err := commit(path, real, tmp.Name(), was, raceAt); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// commit puts the new file, at tmp, in place of real if real is still as
// was. No agent takes a lock on the files edited here that could be
// honoured (Claude Code 2.1 locks only ~/.claude.json, with a ".lock"
// directory; Codex and Gemini CLI none), so the check is a compare: real
// is read again (a save found there is errChanged: edited again in turn,
// nothing written), then, where the system swaps two names in one step
// (Linux's RENAME_EXCHANGE, macOS's RENAME_SWAP), put in place by a swap
// whose displaced file is compared too — a save that came in the moment
// between is kept beside the file, named so (errRaced), never removed. A
// file that did not exist is created only if it still does not
// (RENAME_NOREPLACE). Elsewhere a plain rename follows the compare, and
// that rename is the one moment a save can be lost.
func commit(path, real, tmp string, was snapshot, raceAt func()) error {
	if !was.exists {
		switch ok, err := renameNoReplace(tmp, real); {
		case ok && errors.Is(err, fs.ErrExist):
			return errChanged
		case ok && err != nil:
			return writeError(path, err)
		case ok:
			return nil
		}
	}
	now, err := readFile(path, real)
	if err != nil {
		return err
	}
	if now.exists != was.exists || !bytes.Equal(now.src, was.src) {
		return errChanged
	}
	if raceAt != nil {
		raceAt()
	}
	if ok, err := exchange(tmp, real); ok {
		if err != nil {
			return writeError(path, err)
		}
		if displaced, err := os.ReadFile(tmp); err == nil && bytes.Equal(displaced, was.src) {
			os.Remove(tmp)
			return nil
		}
		// Not swapped back: another program may have read ours already.
		return keepDisplaced(path, real, tmp)
	}
	if err := os.Rename(tmp, real); err != nil {
		return writeError(path, err)
	}
	return nil
}

// errRaced is a save that came in the moment notch-web put its file in
// place: kept beside it.
var errRaced = errors.New("another save raced notch-web's write")

// keepDisplaced keeps the file a racing save left, displaced to tmp,
// beside real under a name that says so (never over another file), and
// reports where: nothing anybody saved is removed.
func keepDisplaced(path, real, tmp string) error {
	kept := tmp
	base := real + ".raced-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	for i := 1; i < 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		// A link never replaces a file already there (a rename would).
		if err := os.Link(tmp, name); err == nil {
			os.Remove(tmp)
			kept = name
			break
		} else if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return &FileError{Path: path, Err: errRaced, Problem: "another program saved it in the moment notch-web wrote it: notch-web's change is in place",
		Fix: "nothing is lost: that save is " + textrule.Quote(kept) + "; put back what you need of it and run again"}
}

// createTemp creates a new file beside real, named as internal/fsx names
// its temporary files (".<name>.tmp-<random>"), with mode.
func createTemp(real string, mode fs.FileMode) (*os.File, error) {
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(filepath.Dir(real), "."+filepath.Base(real)+".tmp-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("cannot name a temporary file")
}

// writeError words a failure to write path; the file itself is unchanged.
func writeError(path string, err error) error {
	fix := "nothing was changed; check the disk and run again"
	if errors.Is(err, fs.ErrPermission) {
		fix = "nothing was changed; make its folder writable to you (or run as its owner) and run again"
	}
	return &FileError{Path: path, Problem: "cannot write it: " + bare(err), Fix: fix, Err: err}
}

// syncDir makes a rename durable where the platform can (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
