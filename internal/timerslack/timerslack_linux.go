package timerslack

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// exe is this program, as the kernel holds it: still the same file after
// the path it was started by is replaced or removed (an upgrade). Relax
// executes it by a path to the same file when it has one (program), for
// the process's name.
const exe = "/proc/self/exe"

func relax() error {
	// The slack set and the execve must be the same thread's: the new
	// program's threads all descend from the one that called execve.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	was := Current()
	if was < 0 || was >= Slack.Nanoseconds() {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(Slack.Nanoseconds()), 0, 0, 0); err != nil {
		return nil // not allowed here (a seccomp filter): the default is fine
	}
	if Current() < Slack.Nanoseconds() {
		return nil
	}
	env := append(os.Environ(), again+"="+strconv.FormatInt(max(was, 1), 10))
	path := program(exe, os.Args[0], os.Executable)
	err := unix.Exec(path, os.Args, env)
	// Still here: the slack is this thread's alone, and goes with it.
	unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(was), 0, 0, 0)
	return fmt.Errorf("executing %s again for a timer slack of %v: %w", path, Slack, err)
}

// Current is the calling thread's timer slack in nanoseconds, or -1 when
// it cannot be read.
func Current() int64 {
	n, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return -1
	}
	return int64(n)
}

// ForChild gives the calling thread back the slack the program was started
// with, until the returned func is called: a program started meanwhile
// (os/exec forks from the calling thread) runs as if notch-web had never
// raised it. The caller's goroutine is locked to its thread
// (runtime.LockOSThread) from before ForChild until after the func.
func ForChild() (restore func()) {
	if given <= 0 {
		return func() {}
	}
	unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(given), 0, 0, 0)
	return func() { unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(Slack.Nanoseconds()), 0, 0, 0) }
}
