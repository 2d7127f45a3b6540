//go:build unix

package window

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func checkExecutable(path string) error {
	if err := unix.Access(path, unix.X_OK); err != nil {
		return errors.Join(ErrNotProgram, err)
	}
	return nil
}

// terminate asks the window to go: SIGTERM to its process group (prepare
// made it a group leader), so helpers it started hear it too.
func terminate(c *child) error { return signalGroup(c, syscall.SIGTERM) }

// kill ends the window and its group at once.
func kill(c *child) error { return signalGroup(c, syscall.SIGKILL) }

// signalGroup signals the window's process group while the window is not
// yet reaped: until then its pid cannot name another process, nor its
// group another group. After that, a stray signal could reach a stranger.
func signalGroup(c *child, sig syscall.Signal) error {
	select {
	case <-c.reaped:
		return os.ErrProcessDone
	default:
	}
	if err := syscall.Kill(-c.pid, sig); err != nil {
		// Not a group leader after all (Setpgid refused): the window alone.
		return c.cmd.Process.Signal(sig)
	}
	return nil
}

// describeExit returns the exit code (-1 when there is none) and the name
// of the signal that ended the process ("" when none did).
func describeExit(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}
