package fsx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// write puts data in the spare and exchanges it with the file; without a
// spare it makes one from data (and exchanges it with the file only when
// that is a regular file; a directory put in the file's place while a
// spare exists would be swapped to the spare's name, and nothing does
// that). Whatever goes wrong with the spare, the
// write still happens: into a new spare, or (no leases or no exchange on
// this file system) as a plain replace from then on.
func (r *Rewriter) write(data []byte) error {
	if r.spare != "" {
		err := rewriteSpare(r.spare, data)
		if err == nil {
			if err = exchange(r.spare, r.Path); err == nil {
				return nil
			}
		}
		// A reader holds the spare (the file it opened a beat ago), or
		// the spare is gone: let it go, and make a new one.
		syscall.Unlink(r.spare)
		r.spare = ""
		if unsupported(err) {
			r.plain = true
			return WriteFileAtomicNoSync(r.Path, data)
		}
	}
	fd, tmp, err := openTemp(r.Path, 0o644)
	if errors.Is(err, syscall.ENOENT) {
		if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", r.Path, unwrapPath(err))
		}
		fd, tmp, err = openTemp(r.Path, 0o644)
	}
	if err == nil {
		err = writeAll(fd, data)
		if err == nil {
			err = exactMode(fd, filepath.Dir(r.Path), 0o644)
		}
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
	}
	if err != nil {
		if tmp != "" {
			syscall.Unlink(tmp)
		}
		return fmt.Errorf("writing %s: %w", r.Path, unwrapPath(err))
	}
	// The new file takes the old one's place, and the old one becomes the
	// spare: only a regular file (an exchange would as well swap in a
	// directory or a symlink that is in the way, which a rename refuses or
	// replaces).
	var st syscall.Stat_t
	if syscall.Lstat(r.Path, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
		err = exchange(tmp, r.Path)
		if err == nil {
			r.spare = tmp // the old file
			return nil
		}
		if unsupported(err) {
			r.plain = true
		}
	}
	// No file to exchange with (the first write, or it was removed), or
	// no exchange here: an ordinary rename.
	if err := retry(func() error { return syscall.Rename(tmp, r.Path) }); err != nil {
		syscall.Unlink(tmp)
		return fmt.Errorf("writing %s: %w", r.Path, err)
	}
	return nil
}

// rewriteSpare writes data over the spare under a write lease: the kernel
// grants it only while no one else has the file open, and no one can open
// it through the file's name any more, so no reader sees it change. A
// reader that still holds it (EAGAIN) keeps it as it was.
func rewriteSpare(spare string, data []byte) (err error) {
	var fd int
	if err := retry(func() (err error) {
		fd, err = syscall.Open(spare, syscall.O_WRONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		return err
	}); err != nil {
		return err
	}
	defer func() {
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
	}()
	if err := retry(func() error { return lease(fd, syscall.F_WRLCK) }); err != nil {
		return err
	}
	defer func() {
		if uerr := lease(fd, syscall.F_UNLCK); err == nil {
			err = uerr
		}
	}()
	for off := 0; off < len(data); {
		n, err := syscall.Pwrite(fd, data[off:], int64(off))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		off += n
	}
	return retry(func() error { return syscall.Ftruncate(fd, int64(len(data))) })
}

func lease(fd, kind int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, kind)
	return err
}

// exchange swaps two names atomically: a reader of either sees one file or
// the other, never none.
func exchange(a, b string) error {
	return retry(func() error { return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) })
}

// unsupported reports a file system (or kernel) without leases or without
// RENAME_EXCHANGE: no spare will ever work there.
func unsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP)
}

func (r *Rewriter) close() error {
	if r.spare == "" {
		return nil
	}
	err := syscall.Unlink(r.spare)
	r.spare = ""
	if err != nil && !errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("removing the spare of %s: %w", r.Path, err)
	}
	return nil
}
