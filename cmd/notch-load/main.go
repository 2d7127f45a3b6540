//go:build unix

// Command notch-load measures notch-web under load, on loopback only, in
// bounded count and time. For each number of open streams it starts a fresh
// notch-web (or targets one), opens the streams the way the browser does,
// drives changes through POST /agents-notch/events, and reports in one run:
// change → patch latency at every client (p50/p99/max), the same latency for
// a 340 ms poller of state.json (the desktop window's way), bytes per update,
// server CPU per update, RSS per open stream, renders per change, settings
// POSTs per second with the durable write, and how fast a client that stops
// reading is dropped.
//
// Usage:
//
//	notch-load [-bin bin/notch-web] [-streams 1,100,1000,10000] [-changes 40] [-out raw.jsonl]
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "notch-load:", err)
		os.Exit(1)
	}
}
