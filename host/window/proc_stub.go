//go:build !unix && !windows

package window

import (
	"os"
	"os/exec"
)

// Platforms without process groups or signals (plan9, js, wasip1) build,
// but supervise crudely: terminate is kill, and nothing ties the window to
// the host but its own --parent-pid watch.

const lockThread = false

const terminateKills = true

func checkExecutable(string) error      { return nil }
func prepare(*exec.Cmd)                 {}
func adopt(*os.Process) (func(), error) { return func() {}, nil }
func terminate(c *child) error          { return kill(c) }
func kill(c *child) error               { return c.cmd.Process.Kill() }
func describeExit(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	return ps.ExitCode(), ""
}
