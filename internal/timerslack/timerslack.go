// Package timerslack lets an idle host wake the machine less often.
//
// Linux lets a thread's timed sleeps end up to its timer slack late, so that
// wake-ups due close together are served by one (prctl(2),
// PR_SET_TIMERSLACK; 50 µs by default). An idle host's wake-ups are
// state.json's beat, about three a second, and the Go runtime's around it:
// while any goroutine runs, the runtime's monitor thread (sysmon) sleeps
// 20 µs at a time, a handful of times a beat. With a slack of a
// millisecond its first such sleep outlasts the beat, and an idle host
// wakes half as often (docs/performance.md, issue 34's eighth round).
// Nothing notch-web does is timed finer than a millisecond: its timers are
// tens of milliseconds and more, and a click or a hook is an answer to the
// network, which no slack delays.
//
// A thread's slack is inherited by the threads it creates and by the
// program it executes, but a thread sets only its own (another's needs
// CAP_SYS_NICE). The monitor thread exists before any Go code runs, so the
// one way to give it the slack is to set it and execute the program again:
// Relax.
package timerslack

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Slack is the timer slack Relax gives the process.
const Slack = time.Millisecond

// Env, set to "off", keeps the kernel's timer slack (and the program is
// not executed again): for a debugger that would lose it.
const Env = "NOTCH_WEB_TIMER_SLACK"

// ErrEnv is Relax's error for an Env it does not take.
var ErrEnv = errors.New("the one value it takes is off (keep the kernel's timer slack)")

// again marks the program executed again by Relax, with the slack it was
// started with; the new program keeps that (given) and removes the mark at
// once, so that nothing it starts inherits it.
const again = "NOTCH_WEB_TIMER_SLACK_GIVEN"

// given is the slack in nanoseconds the program was started with, when
// Relax raised it (0: it did not).
var given int64

// Relax gives the process a timer slack of at least Slack (on Linux; a
// no-op elsewhere). When the calling thread's slack is below it, Relax
// sets it and executes the program again, same path, arguments,
// environment and process id, and does not return; so it must come first
// in main, before any file or socket is opened. It returns nil when there
// is nothing to do (the slack is already as large, Env is "off", this is
// the program executed again, or the kernel refused the slack), and an
// error when Env holds anything else (ErrEnv) or the program could not be executed
// again; the program then carries on at the slack it has.
func Relax(getenv func(string) string, unsetenv func(string) error) error {
	if v := getenv(again); v != "" {
		given = parseGiven(v)
		return unsetenv(again)
	}
	off, err := parseEnv(getenv(Env))
	if err != nil || off {
		return err
	}
	return relax()
}

// parseEnv reads Env: empty relaxes, "off" does not.
func parseEnv(v string) (off bool, err error) {
	switch v {
	case "":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: %w", Env, v, ErrEnv)
}

// parseGiven reads the mark's slack: a positive count of nanoseconds, or 0
// for anything else (a mark not of Relax's making is ignored).
func parseGiven(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
