//go:build unix

// Command notch-load measures notch-web under load, on loopback only, in
// bounded count and time. For each number of open streams it starts a fresh
// notch-web, opens the streams the way the browser does, drives changes
// through POST /agents-notch/events, and reports in one run: change → patch
// latency at every client (p50/p99/max), the same latency for a 340 ms
// poller of state.json (the desktop window's way), bytes per change, server
// CPU per change, RSS per open stream and renders per change. After the
// events it drives changes through POST /agents-notch/settings (a durable
// write first) on the same streams, beside its own timing of that write.
//
// Each notch-web run alternates with a run of the floor: a bare SSE
// broadcaster this binary serves as its own process (notch-load
// floor-server) that sends the same bytes per change with no render, no
// diff and no state, read by the same clients. The report gives both p99s
// and the ratio of their medians with its spread. Follow mode (a state.json
// renamed into place), a client that stops reading and the settings POST
// rate are measured on notch-web alone. The idle mode measures notch-web
// with live rows and open tabs while nothing changes, beside the floor.
//
// Usage:
//
//	notch-load [-bin bin/notch-web] [-streams 1,100,1000,10000] [-runs 3] [-changes 60] [-out raw.jsonl]
//	notch-load floor-server [-addr 127.0.0.1:0]
//	notch-load hooks [-sessions 20] [-rate 50] [-duration 10s] [-procs 200]
//	notch-load idle [-rows 20,200] [-tabs 2] [-duration 60s] [-runs 3] [-base bin/notch-web-before]
//	notch-load mesh [-tabs 100] [-changes 60] [-runs 3] [-machines 50] [-sessions 20] [-rate 5] [-duration 10s]
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
