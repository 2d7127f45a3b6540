//go:build unix && !linux

package window

import (
	"os"
	"os/exec"
	"syscall"
)

const lockThread = false

const terminateKills = false

// prepare makes the window its own process group leader, as on Linux.
// macOS has no parent-death signal: a window whose host was killed outright
// ends by its own --parent-pid watch (the contract's "child is killed with
// the parent"), which the window program does on every platform.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func adopt(*os.Process) (func(), error) { return func() {}, nil }
