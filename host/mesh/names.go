package mesh

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// MaxName is the longest machine name: one NATS subject token, short
// enough for a label on the board.
const MaxName = 63

// ErrName: a machine name that cannot be a subject token.
var ErrName = errors.New("invalid machine name")

// CheckName accepts a machine name: lower-case letters, digits and inner
// hyphens, 1 to MaxName of them. A name is one token of the subjects a
// machine may publish on (notch.<name>.…), so it can hold no dot, space or
// wildcard.
func CheckName(name string) error {
	if name == "" || len(name) > MaxName {
		return fmt.Errorf("%w %q: want 1 to %d characters", ErrName, name, MaxName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0 && i < len(name)-1
		if !ok {
			return fmt.Errorf("%w %q: use a-z, 0-9 and inner hyphens, e.g. build-box", ErrName, name)
		}
	}
	return nil
}

// NameFrom turns a host name into a machine name: lower case, its first
// label only, anything else a hyphen; "machine" when nothing is left.
func NameFrom(host string) string {
	host, _, _ = strings.Cut(strings.ToLower(host), ".")
	b := []byte(host)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	s := strings.Trim(string(b), "-")
	if len(s) > MaxName {
		s = strings.TrimRight(s[:MaxName], "-")
	}
	if s == "" {
		return "machine"
	}
	return s
}

// DefaultName is this machine's host name as a machine name.
func DefaultName() string {
	h, _ := os.Hostname()
	return NameFrom(h)
}
