//go:build unix

package fsx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartCleansTempsOfKilledWriters: the temporary files of writers
// killed outright are removed at the next start however young they are —
// their writer is gone — so restarts in a loop cannot pile them up (issue
// 19), while a young temporary file of a writer still running is kept.
func TestStartCleansTempsOfKilledWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	temps := func() []string {
		var out []string
		for _, n := range dirNames(t, filepath.Dir(path)) {
			if strings.HasPrefix(n, tempPrefix(path)) {
				out = append(out, n)
			}
		}
		return out
	}
	// Kill writers mid-write until one has left a temporary file behind
	// (a kill between two writes leaves none).
	for round := 0; len(temps()) == 0; round++ {
		if round == 50 {
			t.Skip("50 kills left no temporary file")
		}
		cmd := exec.Command(exe, "-test.run=^TestWriterProcessKilled$", "-test.count=1")
		cmd.Env = append(os.Environ(), childWriterEnv+"="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitWrites(t, path, cmd.Process.Pid)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	// A writer still running (this process) has one in flight.
	live, err := createTemp(path)
	if err != nil {
		t.Fatal(err)
	}
	live.Close()
	left := temps()
	// What a host does at start: the same call as state.Writer.Run's.
	RemoveStaleTemps(path, time.Minute, time.Now())
	if got := temps(); len(got) != 1 || got[0] != filepath.Base(live.Name()) {
		t.Errorf("after the start's clean-up: %v (before: %v); want only the live writer's %s", got, left, filepath.Base(live.Name()))
	}
}

// waitWrites waits until the child pid has written path a few times.
func waitWrites(t *testing.T, path string, pid int) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := ReadFileLimit(path, 1<<20); err == nil {
			if p, n, err := checkKilledDoc(b); err == nil && p == pid && n > 20 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never got going")
		}
		time.Sleep(time.Millisecond)
	}
}
