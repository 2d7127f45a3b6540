//go:build !linux

package host

// procStartIsTicks: only on Linux is an agent's recorded process start
// known to be in internal/proc's unit; elsewhere it is not used.
const procStartIsTicks = false
