//go:build !linux && !darwin

package proc

// Lookup is ErrUnsupported here: hooks send no process, and the host
// watches none.
func Lookup(int) (Info, error) { return Info{}, ErrUnsupported }

func bootID() (string, error) { return "", ErrUnsupported }

func exitFD(int) (int, error) { return -1, ErrUnsupported }

func ended(int) bool { return false }

// Group is ErrUnsupported here.
func Group(int, int) ([]Info, error) { return nil, ErrUnsupported }

// Environ is not supported here.
func Environ(int, string) (string, bool, error) { return "", false, ErrUnsupported }
