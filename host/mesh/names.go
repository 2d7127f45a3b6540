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
// machine may publish on (notch.m.<name>.…), so it can hold no dot, space
// or wildcard.
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

// reservedNames are names the hub itself uses — its pairing service's
// subject token, its users' and its server's — which no machine may pair
// under (nor the hub's own name: hub.reserved).
var reservedNames = []string{"pair", pairUser, hubUser}

// Subjects. Every machine's live in a namespace of their own, notch.m.,
// that no service of the hub shares: a machine's rights (its own
// notch.m.<name>.… subjects) can never reach the pairing service
// (notch.pair.<id>) whatever it is named.
const machineSpace = "notch.m."

// machineSubject is one of a machine's subjects.
func machineSubject(machine, what string) string { return machineSpace + machine + "." + what }

// What a machine publishes — its board, its cards, its beat (presence) and
// its goodbye — all under notch.m.<name>.pub., so that a viewer takes them
// on one subscription, in the order the machine sent them (a goodbye is
// never overtaken by the board before it); and what only the hub sends
// it: the ✕ and the answers to its cards.
const pubSpace = "pub."

func boardSubject(machine string) string   { return machineSubject(machine, pubSpace+"board") }
func cardsSubject(machine string) string   { return machineSubject(machine, pubSpace+"cards") }
func beatSubject(machine string) string    { return machineSubject(machine, pubSpace+"beat") }
func goneSubject(machine string) string    { return machineSubject(machine, pubSpace+"gone") }
func finishSubject(machine string) string  { return machineSubject(machine, "finish") }
func approveSubject(machine string) string { return machineSubject(machine, "approve") }
func steerSubject(machine string) string   { return machineSubject(machine, "steer") }
func launchSubject(machine string) string  { return machineSubject(machine, "launch") }

// published reads a subject a machine publishes on: the machine and what
// (board, cards, beat, gone), or "" when it is not one.
func published(subject string) (machine, what string) {
	what = subject[strings.LastIndexByte(subject, '.')+1:]
	if machine = subjectMachine(subject, pubSpace+what); machine == "" {
		return "", ""
	}
	return machine, what
}

// subjectMachine reads the machine of one of its subjects ("" when the
// subject is not a machine's what, or names no valid machine).
func subjectMachine(subject, what string) string {
	rest, ok := strings.CutPrefix(subject, machineSpace)
	if !ok {
		return ""
	}
	name, ok := strings.CutSuffix(rest, "."+what)
	if !ok || CheckName(name) != nil {
		return ""
	}
	return name
}
