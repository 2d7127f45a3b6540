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
