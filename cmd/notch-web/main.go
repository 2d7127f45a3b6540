// Command notch-web is the agents notch's web face: it owns the notch's
// settings and serves them behind their locks, folds session events into the
// schema-4 state.json the desktop window reads, supervises that window, and
// pushes the live board and the Settings pane to any browser tab over SSE.
//
// Usage:
//
//	notch-web [flags]
//	notch-web hook <agent> [--url URL]                  (an agent's command hook: stdin → the host)
//	notch-web hooks install|uninstall|status [<agent>]  (put the hooks into an agent's settings)
//
// Run notch-web -h for the flags, notch-web hooks -h for the agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// run reports its own errors (a log record and one plain line).
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		os.Exit(1)
	}
}
