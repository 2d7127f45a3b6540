//go:build !linux

package timerslack

// relax does nothing off Linux: macOS coalesces timers on its own, and
// neither it nor Windows has a per-thread slack to set.
func relax() error { return nil }

// Current is -1 off Linux: there is no timer slack to read.
func Current() int64 { return -1 }

// ForChild does nothing off Linux.
func ForChild() (restore func()) { return func() {} }
