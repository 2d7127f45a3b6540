//go:build !linux && !darwin

package install

// exchange cannot swap two files in one step here: ok is false, and the
// caller compares just before a plain rename.
func exchange(a, b string) (ok bool, err error) { return false, nil }

// renameNoReplace cannot refuse an existing file in one step here.
func renameNoReplace(a, b string) (ok bool, err error) { return false, nil }
