// Package proc knows the agent behind a hook: the process that ran
// "notch-web hook" (its parent, past any shell), named by its PID, its
// start time and the boot it belongs to (ID), so a reused PID or another
// machine's process is never mistaken for it; the one request header that
// carries an ID from the hook to the host (Header, Encode, Parse); and a
// watch that says when such a process has ended (Watch) — through the
// kernel where it can tell (Linux: a pidfd; macOS: kqueue's exit event),
// costing nothing while the process runs, else by a slow check.
//
// Windows is not supported: Lookup says ErrUnsupported, hooks send no ID,
// and the host watches nothing (docs/agents.md).
package proc

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/notch-web/notch-web/internal/ascii"
)

// ErrUnsupported: this platform cannot name a process by its start time.
var ErrUnsupported = errors.New("process facts are not supported on this platform")

// ErrNoProcess: no such process (it ended, or never was).
var ErrNoProcess = errors.New("no such process")

// ID names one process for as long as the machine runs: its PID, when it
// started (in the platform's own unit: clock ticks since boot on Linux,
// microseconds since the epoch on macOS) and the boot it started in.
type ID struct {
	PID   int
	Start uint64
	Boot  string
}

// IsZero reports whether id names nothing.
func (id ID) IsZero() bool { return id == ID{} }

// Info is what Lookup reads of one process.
type Info struct {
	PID, PPID int
	Name      string // the program's short name (Linux: comm, at most 15 bytes)
	Start     uint64
	// Gone: the process has exited and waits only to be reaped (a
	// zombie): it runs no more.
	Gone bool
	// Pgrp is its process group; TTY its controlling terminal (a device
	// number, 0 for none); TPgrp that terminal's foreground process
	// group (-1 or 0 for none): the group the keys typed there reach.
	Pgrp, TTY, TPgrp int
	// Session is its session id: the PID of its session's leader, which
	// for a process on a terminal is the terminal's first process (the
	// shell a terminal pane started). 0 where the platform does not say.
	Session int
}

// Table reads one process (Lookup on this machine; a recorded tree in
// tests).
type Table func(pid int) (Info, error)

// maxDepth bounds how far Agent walks up: a hook is a child or grandchild
// of its agent, a few shells and wrappers deep at most.
const maxDepth = 12

// shells are the programs that stand between an agent and its hook
// command and are never the agent itself: the shells that run a hook's
// command line, and the wrappers such a line may put before notch-web
// (`timeout 5 notch-web hook …`) that run it as their child and end with
// it. A wrapper that executes its command instead (nice, nohup, stdbuf,
// env, ionice, chrt, taskset) is not in the chain at all; it is listed
// for the platforms and versions that fork.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true,
	"fish": true, "tcsh": true, "csh": true, "busybox": true, "env": true,
	"timeout": true, "gtimeout": true, "flock": true, "time": true, "sudo": true, "doas": true,
	"xargs": true, "setsid": true, "nice": true, "nohup": true, "stdbuf": true, "ionice": true,
	"chrt": true, "taskset": true, "caffeinate": true, "unbuffer": true, "expect": true,
}

// IsShell reports whether a program name is a shell (or env, or a wrapper
// such as timeout) that a hook command may run under.
func IsShell(name string) bool { return shells[strings.TrimPrefix(name, "-")] }

// Agent is the process a hook runs for: the first ancestor of the process
// parent (itself included) that is not a shell nor a wrapper, in boot. A chain that
// reaches PID 1, goes deeper than maxDepth or cannot be read names no
// agent (ErrNoProcess).
func Agent(t Table, parent int, boot string) (ID, error) {
	pid := parent
	for range maxDepth {
		if pid <= 1 {
			break
		}
		in, err := t(pid)
		if err != nil {
			return ID{}, err
		}
		if !IsShell(in.Name) {
			return ID{PID: in.PID, Start: in.Start, Boot: boot}, nil
		}
		pid = in.PPID
	}
	return ID{}, ErrNoProcess
}

// Of is the ID of a live process of this machine.
func Of(pid int) (ID, error) {
	in, err := Lookup(pid)
	if err != nil {
		return ID{}, err
	}
	boot, err := BootID()
	if err != nil {
		return ID{}, err
	}
	return ID{PID: in.PID, Start: in.Start, Boot: boot}, nil
}

// Alive reports whether the process id names still runs: same boot, and
// its PID held by a process that started when it did.
func Alive(id ID) bool {
	boot, err := BootID()
	if err != nil || boot != id.Boot {
		return false
	}
	in, err := Lookup(id.PID)
	return err == nil && in.Start == id.Start && !in.Gone
}

// Local reports whether id belongs to this machine's current boot: only
// such a process can be watched here.
func Local(id ID) bool {
	boot, err := BootID()
	return err == nil && !id.IsZero() && boot == id.Boot
}

// BootID is this boot's id (Linux: its random boot_id; macOS: its boot
// session UUID), read once.
func BootID() (string, error) { return bootIDOnce() }

var bootIDOnce = sync.OnceValues(func() (string, error) {
	id, err := bootID()
	if err == nil && !bootChars.Span(id, 1, 64) {
		err = fmt.Errorf("the boot id %q is not an id", id)
	}
	return id, err
})

// Header carries a hook's ID from "notch-web hook" to the host, as a URL
// query (Encode); absent, the hook says nothing of its process.
const Header = "Notch-Proc"

// MaxHeader bounds the header's value.
const MaxHeader = 160

var (
	digits    = ascii.NewSet(ascii.Digits)
	bootChars = ascii.NewSet(ascii.Alnum, ".-")
)

// maxPID bounds a PID (Linux's is at most 2^22, macOS's 99,999).
const maxPID = 1<<31 - 1

// Encode is id as the header's value ("" for the zero ID).
func (id ID) Encode() string {
	if id.IsZero() {
		return ""
	}
	v := url.Values{}
	v.Set("pid", strconv.Itoa(id.PID))
	v.Set("start", strconv.FormatUint(id.Start, 10))
	v.Set("boot", id.Boot)
	return v.Encode()
}

// Parse reads the header's value. It is strict: a value too long, a key
// missing, unknown or given twice, or any value out of its form yields the
// zero ID (the hook itself is applied all the same).
func Parse(s string) ID {
	if s == "" || len(s) > MaxHeader {
		return ID{}
	}
	v, err := url.ParseQuery(s)
	if err != nil || len(v) != 3 {
		return ID{}
	}
	one := func(k string, set *ascii.Set, max int) (string, bool) {
		vs := v[k]
		return strings.Join(vs, ""), len(vs) == 1 && set.Span(vs[0], 1, max)
	}
	p, ok1 := one("pid", digits, 20)
	st, ok2 := one("start", digits, 20)
	boot, ok3 := one("boot", bootChars, 64)
	if !ok1 || !ok2 || !ok3 {
		return ID{}
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(st, 10, 64)
	if err1 != nil || err2 != nil || pid <= 1 || pid > maxPID {
		return ID{}
	}
	return ID{PID: pid, Start: start, Boot: boot}
}
