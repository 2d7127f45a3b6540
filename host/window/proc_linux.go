package window

import (
	"os"
	"os/exec"
	"syscall"
)

// lockThread: on Linux the parent-death signal is tied to the thread that
// forked the child, so spawn keeps that thread to itself (see spawn).
const lockThread = true

// terminateKills: terminate is a request (SIGTERM) the window may act on.
const terminateKills = false

// prepare makes the window its own process group leader (a terminal's ^C
// reaches the host only, which then stops the window in order; a terminate
// reaches the window's helpers too) and has the kernel SIGKILL it when the
// host dies, however it dies: a host that was kill -9ed leaves no window.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// adopt has nothing to do: Pdeathsig is set at fork.
func adopt(*os.Process) (func(), error) { return func() {}, nil }
