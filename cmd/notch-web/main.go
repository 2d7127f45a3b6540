// Command notch-web is the agents notch's web face: it owns the notch's
// settings and serves them behind their locks, folds session events into the
// schema-4 state.json the desktop window reads, supervises that window, and
// pushes the live board and the Settings pane to any browser tab over SSE.
//
// Usage:
//
//	notch-web [run] [flags]                             the host
//	notch-web hook <agent> [--url URL]                  (an agent's command hook: stdin → the host)
//	notch-web hooks install|uninstall|status [<agent>]  (put the hooks into an agent's settings)
//	notch-web statusline | pair | join CODE | version
//
// notch-web help lists every command (help.go); notch-web help <command>,
// or notch-web <command> -h, prints one's own help.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/notch-web/notch-web/internal/timerslack"
)

func main() {
	relaxTimers(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// run reports its own errors (a log record and one plain line).
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		os.Exit(1)
	}
}

// relaxTimers gives the host a timer slack of a millisecond, so that an
// idle host wakes half as often (internal/timerslack): on Linux, the
// first time, it executes the program again and does not return. Only the
// host: a command is over before it would pay. A bad NOTCH_WEB_TIMER_SLACK
// is the one line and exit 1 of any bad input; a failure to execute the
// program again is said on one line, and the host runs on.
func relaxTimers(args []string) {
	if !hosting(hoistGlobals(args)) {
		return
	}
	if err := timerslack.Relax(os.Getenv, os.Unsetenv); err != nil {
		fmt.Fprintln(os.Stderr, "notch-web:", err)
		if errors.Is(err, timerslack.ErrEnv) {
			os.Exit(1)
		}
	}
}

// hosting reports whether args run the host, as run reads them: none,
// "run", or flags (but for help and the version).
func hosting(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "run":
		return true
	case "-h", "-help", "--help", "-version", "--version":
		return false
	}
	return strings.HasPrefix(args[0], "-")
}
