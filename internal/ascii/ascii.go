// Package ascii checks short tokens from outside (a tmux pane, a boot id, a
// session id) against a set of ASCII characters and a length: a regexp's
// ^[class]{min,max}$ without the regexp.
//
// Go's regexp compiles a bounded repeat into one copy of its class per
// repeat, so ^/[A-Za-z0-9._/@+=:-]{1,199}$ is a program of hundreds of
// instructions, built when the package is initialized — in every start of
// every binary that links it, "notch-web hook" (which an agent waits for on
// each hook) as much as the host. A Set is 256 booleans built from a
// string, and Span one pass over the token.
package ascii

// Digits, Lower, Upper and Letters are the usual classes, to be joined
// with a token's own punctuation.
const (
	Digits  = "0123456789"
	Lower   = "abcdefghijklmnopqrstuvwxyz"
	Upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Letters = Upper + Lower
	Alnum   = Letters + Digits
)

// Set is a set of ASCII bytes.
type Set [256]bool

// NewSet is the set of every byte of chars; chars is ASCII (a byte above
// 0x7f in it panics: a set is written in the code, never read from outside).
func NewSet(chars ...string) *Set {
	var s Set
	for _, c := range chars {
		for i := range len(c) {
			if c[i] > 0x7f {
				panic("ascii.NewSet: not ASCII: " + c)
			}
			s[c[i]] = true
		}
	}
	return &s
}

// Has reports whether b is in s.
func (s *Set) Has(b byte) bool { return s[b] }

// Span reports whether x is min to max bytes, every one of them in s, as
// ^[s]{min,max}$ would (s being ASCII, a byte is a character).
func (s *Set) Span(x string, min, max int) bool {
	if len(x) < min || len(x) > max {
		return false
	}
	for i := range len(x) {
		if !s[x[i]] {
			return false
		}
	}
	return true
}
