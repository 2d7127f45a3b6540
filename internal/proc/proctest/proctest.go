// Package proctest starts the processes the tests of typing into a
// terminal need: an agent that leads a pseudo-terminal of its own and is
// its foreground, as one run in a tmux pane is.
package proctest

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// TTYAgent starts a process that leads a pseudo-terminal of its own
// (script(1) gives it one) until the test ends, and returns it. It skips
// the test where the processes cannot be read (/proc) or script(1) is
// missing.
func TTYAgent(t *testing.T) proc.ID {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the processes are read from /proc")
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed: no terminal for the agent")
	}
	cmd := exec.Command("script", "-qfec", "exec sleep 600", "/dev/null")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var id proc.ID
	waitfor.Until(t, "the agent on its terminal", func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if in, err := proc.Lookup(pid); err == nil && in.PPID == cmd.Process.Pid && in.Name == "sleep" && in.TPgrp == in.Pgrp {
				id, err = proc.Of(pid)
				return err == nil
			}
		}
		return false
	})
	return id
}
