package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/notch-web/notch-web/internal/logx"
)

// terminal is a writer that says whether a person reads it: tests pass
// one to stand for a terminal, or for a pipe.
type ttyWriter interface{ IsTerminal() bool }

// isTerminal reports whether w is a terminal: a writer that says so, or an
// *os.File whose descriptor is a terminal (tty_*.go). Anything else — a
// pipe, a file, a supervisor's log — is not.
func isTerminal(w io.Writer) bool {
	switch w := w.(type) {
	case ttyWriter:
		return w.IsTerminal()
	case *os.File:
		return fileIsTerminal(w)
	}
	return false
}

// reportFatal says why the host stopped, once: the plain line a person
// reads when stderr is a terminal; otherwise the ecosystem's standard fatal
// ERROR record (seed 002: level ERROR, fatal true, the host's log_type, the
// same words in its message) on the log stream, which is stderr.
func reportFatal(stderr io.Writer, log *slog.Logger, started bool, err error) {
	if isTerminal(stderr) {
		fmt.Fprintln(stderr, "notch-web:", err)
		return
	}
	name := "StartupError"
	if started {
		name = "FatalError"
	}
	log.Error(err.Error(), "log_type", logx.TypeHost, "fatal", true, logx.Err(name, err))
}

// listenError says why the address could not be had, and what to do: with
// --addr, or under make (MAKELEVEL set) with make run's ADDR=.
func listenError(addr string, err error, getenv func(string) string) error {
	var why string
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		why = "the address is in use (another notch-web?)"
	case errors.Is(err, syscall.EACCES):
		why = "permission denied (a port below 1024?)"
	default:
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	if getenv("MAKELEVEL") != "" {
		return fmt.Errorf("cannot listen on %s: %s; ADDR=%s make run listens on another port", addr, why, nextAddr(addr))
	}
	return fmt.Errorf("cannot listen on %s: %s; --addr 127.0.0.1:0 picks a free port", addr, why)
}

// nextAddr is addr on the next port (7340 → 7341); a port below 1024
// (refused without privileges) becomes make run's default, 7340.
func nextAddr(addr string) string {
	host, portS, _ := net.SplitHostPort(addr) // checked by parseFlags
	port, _ := strconv.Atoi(portS)
	if port < 1024 || port >= 65535 {
		port = 7339
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(port+1))
}
