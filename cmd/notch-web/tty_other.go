//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || windows)

package main

import "os"

// fileIsTerminal is false where notch-web cannot tell: the standard record
// is what a reader there gets.
func fileIsTerminal(*os.File) bool { return false }
