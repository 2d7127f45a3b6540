//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileIsTerminal reports whether f is a terminal: it has termios.
func fileIsTerminal(f *os.File) bool { return hasTermios(f, unix.TIOCGETA) }
