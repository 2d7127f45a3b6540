package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// fileIsTerminal reports whether f is a console: it has a console mode.
func fileIsTerminal(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
