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
	"unicode/utf8"
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
// once, so that nothing it starts inherits it. A mark is taken only as
// Relax writes it (parseGiven) and only by a program already at Slack: one
// set by whoever started notch-web neither skips the slack nor gives what
// notch-web starts a slack of its choosing.
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
		if err := unsetenv(again); err != nil {
			return err
		}
		// Relax's own mark, in a program that has the slack Relax set:
		// executed again. Any other (a caller's, garbage, a slack of
		// seconds) is no mark, and the program relaxes as without it.
		if g, ok := parseGiven(v); ok && Current() >= Slack.Nanoseconds() {
			given = g
			return nil
		}
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
	return false, fmt.Errorf("%s=%s: %w", Env, quoteBounded(v), ErrEnv)
}

// maxQuoted bounds the part of a refused value its one error line quotes.
const maxQuoted = 40

// quoteBounded quotes v on one line, its first maxQuoted bytes (cut at a
// character) and how many more there were.
func quoteBounded(v string) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(v)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more)", strconv.Quote(v[:cut]), len(v)-cut)
}

// parseGiven reads the mark's slack as Relax writes it: a count of
// nanoseconds in plain digits, above 0 and below Slack (Relax executes the
// program again only from a slack below it). Anything else is not Relax's
// mark: 0, false.
func parseGiven(v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n >= Slack.Nanoseconds() || strconv.FormatInt(n, 10) != v {
		return 0, false
	}
	return n, true
}
