// Package fsx holds the file primitives every store in notch-web shares: an
// atomic replace (a reader never sees half a file), a bounded read that never
// stands in the way of such a replace, an exclusive advisory lock that also
// excludes other processes, and a watch that survives rename-into-place.
package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrTooLarge: ReadFileLimit refused a file larger than its limit.
var ErrTooLarge = errors.New("too large")

// ErrNotRegular: OpenRegular (and so ReadFileLimit) found something other
// than a regular file at the path: a FIFO, a device, a socket, a directory.
var ErrNotRegular = errors.New("not a regular file")

// WriteFileAtomic replaces path with data so that a reader sees the old
// file or the new one, never half of either: it writes a temporary file in
// the same directory (a rename is only atomic within one file system),
// fsyncs it, renames it over path and fsyncs the directory where the
// platform supports it, so the rename itself survives a power cut. The file
// is mode 0644; a missing directory is created (0755). os.Rename replaces
// an existing file on Windows too; there a rename that collides with a
// reader holding the file open is retried briefly.
func WriteFileAtomic(path string, data []byte) error {
	return writeFileAtomic(path, data, 0o644, true)
}

// WriteFilePrivate is WriteFileAtomic for a file that holds a secret (a
// key, a token, a push endpoint): the file is mode 0600, readable by this
// user only, from its first byte — the temporary file is never wider.
func WriteFilePrivate(path string, data []byte) error {
	return writeFileAtomic(path, data, 0o600, true)
}

// WriteFileAtomicNoSync is WriteFileAtomic without the two fsyncs: the
// replace is just as atomic (a reader never sees half a file), but after a
// power cut the file may hold the old bytes, or none. It is for a file
// rewritten so often that the next write repairs that anyway, such as
// state.json's heartbeat, where an fsync every beat would only wear the disk.
func WriteFileAtomicNoSync(path string, data []byte) error {
	return writeFileAtomic(path, data, 0o644, false)
}

// WriteFilePrivateNoSync is WriteFileAtomicNoSync for a file only this
// user may read (0600 from its first byte): one rewritten often that names
// what is not everyone's business, such as live.json (each live row's
// process, tmux pane and transcript path).
func WriteFilePrivateNoSync(path string, data []byte) error {
	return writeFileAtomic(path, data, 0o600, false)
}

func writeFileAtomic(path string, data []byte, perm os.FileMode, durable bool) error {
	if err := replace(path, data, perm, durable); err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return nil
}

// tempPrefix names WriteFileAtomic's temporary files: hidden, and
// recognisably path's, so a leftover from a killed writer can be found.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// RemoveStaleTemps deletes temporary files a killed writer of path left
// behind: those whose writer process is gone, whatever their age, so that
// restarts in a loop cannot pile them up; and those older than olderThan at
// now (a young one of a live writer may be in flight).
func RemoveStaleTemps(path string, olderThan time.Duration, now time.Time) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	prefix := tempPrefix(path)
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if writerGone(strings.TrimPrefix(e.Name(), prefix)) {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > olderThan {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

// OpenRegular opens a file for reading, refusing at once (an error wrapping
// ErrNotRegular, naming path and what is there) anything but a regular
// file: opening a FIFO for reading waits for a writer, forever if none
// comes, and a device may never end. It opens without waiting (O_NONBLOCK)
// and then looks at what it opened (fstat), so nothing put at path in
// between is read instead. It opens the file so as never to stand in the
// way of a writer's rename (see openShared). A missing file is an error
// wrapping fs.ErrNotExist.
func OpenRegular(path string) (*os.File, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w (%s)", path, ErrNotRegular, KindOf(fi.Mode()))
	}
	return f, nil
}

// KindOf names what a file of mode m is, as a person says it: "a FIFO",
// "a directory", "a device"…
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// ReadFileLimit reads a whole regular file (OpenRegular: anything else is
// refused at once), refusing one larger than limit (with an error wrapping
// ErrTooLarge) rather than reading it into memory. A missing file is an
// error wrapping fs.ErrNotExist.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("reading %s: %w: more than %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}

// CheckWritable makes sure dir exists (creating it) and that a file can be
// created in it, so that a directory notch-web cannot write is named at
// start rather than failing every write after. Its error names dir and why.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, ".notch-web-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cannot remove a file in %s: %w", dir, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the *PathError's own path and operation, which the
// caller's message already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// createTemp creates path's next temporary file (0600) beside it, named
// tempPrefix, this process's id, "-" and a random part: a leftover whose
// writer is gone can then be told from one in flight whatever its age.
func createTemp(path string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
}

// writerGone reports whether the temporary file name (after its prefix)
// names a process that is no longer running, so that it is certainly a
// killed writer's. Unknown (an older name, a platform that cannot tell, this
// very process) is false.
func writerGone(rest string) bool {
	pidText, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return !processAlive(pid)
}
