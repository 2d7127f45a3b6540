//go:build linux

package install

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at a and b in one step (renameat2's
// RENAME_EXCHANGE); ok is false where the file system cannot, and then
// nothing was done.
func exchange(a, b string) (ok bool, err error) {
	return renameat2(a, b, unix.RENAME_EXCHANGE)
}

// renameNoReplace renames a to b unless b exists (RENAME_NOREPLACE: an
// fs.ErrExist error); ok is false where the file system cannot.
func renameNoReplace(a, b string) (ok bool, err error) {
	return renameat2(a, b, unix.RENAME_NOREPLACE)
}

func renameat2(a, b string, flags uint) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, flags)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return false, nil
	}
	return true, err
}
