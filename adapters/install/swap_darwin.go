//go:build darwin

package install

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at a and b in one step (renamex_np's
// RENAME_SWAP); ok is false where the file system cannot, and then
// nothing was done.
func exchange(a, b string) (ok bool, err error) {
	return renamex(a, b, unix.RENAME_SWAP)
}

// renameNoReplace renames a to b unless b exists (RENAME_EXCL: an
// fs.ErrExist error); ok is false where the file system cannot.
func renameNoReplace(a, b string) (ok bool, err error) {
	return renamex(a, b, unix.RENAME_EXCL)
}

func renamex(a, b string, flags uint32) (bool, error) {
	err := unix.RenamexNp(a, b, flags)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return false, nil
	}
	return true, err
}
