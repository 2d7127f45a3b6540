//go:build unix

package fsx

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// replace writes data to a new temporary file beside path and renames it
// over path, in as few system calls as the job takes: open, write, close,
// rename (and the two fsyncs when durable). state.json's heartbeat makes
// this call three times a second for as long as the host runs, so what
// os.CreateTemp and os.Rename add around it is left out: a stat of the
// directory (it is created only when the open finds it missing), the
// poller's registration of a regular file (two fcntls and an epoll_ctl
// that fails), the random name's getpid, a stat of the destination, and
// an fchmod once the directory is known not to narrow the mode.
func replace(path string, data []byte, perm os.FileMode, durable bool) (err error) {
	dir := filepath.Dir(path)
	fd, tmp, err := openTemp(path, perm)
	if errors.Is(err, syscall.ENOENT) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		fd, tmp, err = openTemp(path, perm)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			if fd >= 0 {
				syscall.Close(fd)
			}
			syscall.Unlink(tmp)
		}
	}()
	if err = writeAll(fd, data); err != nil {
		return err
	}
	if err = exactMode(fd, dir, perm); err != nil {
		return err
	}
	if durable {
		if err = retry(func() error { return syscall.Fsync(fd) }); err != nil {
			return err
		}
	}
	err, fd = syscall.Close(fd), -1
	if err != nil {
		return err
	}
	if err = retry(func() error { return syscall.Rename(tmp, path) }); err != nil {
		return err
	}
	if durable {
		// Best effort: some file systems refuse to fsync a directory, and
		// the file is already in place.
		syncDir(dir)
	}
	return nil
}

// pid is this process's id, as temporary files are named.
var pid = strconv.Itoa(os.Getpid())

// tempSeq numbers the temporary files; it starts at random so that a
// leftover of an earlier process with this pid (a container's pids repeat)
// is unlikely to be in the way.
var tempSeq atomic.Uint64

var seedSeq sync.Once

// openTemp creates path's next temporary file, named as createTemp names
// it (tempPrefix, the pid, "-", a number), exclusively: never another
// writer's file, never an existing one.
func openTemp(path string, perm os.FileMode) (int, string, error) {
	seedSeq.Do(func() { tempSeq.Store(uint64(rand.Uint32())) })
	base := filepath.Join(filepath.Dir(path), tempPrefix(path)+pid+"-")
	for range 10000 {
		name := base + strconv.FormatUint(tempSeq.Add(1), 10)
		var fd int
		err := retry(func() (err error) {
			fd, err = syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, uint32(perm.Perm()))
			return err
		})
		if err == nil {
			return fd, name, nil
		}
		if !errors.Is(err, syscall.EEXIST) {
			return -1, name, err
		}
	}
	return -1, "", &os.PathError{Op: "createtemp", Path: base + "*", Err: os.ErrExist}
}

// writeAll writes all of data to fd.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// exactModes remembers, per directory and mode, that a file created there
// comes out with exactly that mode: the umask and the directory's default
// ACL, which can only narrow a new file's mode, leave it alone. They are
// not expected to change while the process runs; if they did, a file
// could come out narrower than perm, never wider.
var exactModes sync.Map // dir + "\x00" + mode → true

// exactMode makes a new file's mode exactly perm: the open's mode passes
// through the umask (and a default ACL), and state.json must be readable
// by the window, maybe another user's process. The first file of each
// directory is checked with fstat; only where the mode came out narrower
// is every file chmodded.
func exactMode(fd int, dir string, perm os.FileMode) error {
	key := dir + "\x00" + strconv.FormatUint(uint64(perm.Perm()), 8)
	if _, ok := exactModes.Load(key); ok {
		return nil
	}
	var st syscall.Stat_t
	if err := retry(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return err
	}
	if os.FileMode(st.Mode).Perm() == perm.Perm() {
		exactModes.Store(key, true)
		return nil
	}
	return retry(func() error { return syscall.Fchmod(fd, uint32(perm.Perm())) })
}

// retry calls f again while it is interrupted by a signal.
func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
