//go:build conformance

package conformance

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killStrays ends every process the run left behind: any whose program or
// working directory is under the run's root. Codex 0.169 starts `codex
// app-server` daemons from the temp HOME in sessions of their own, which
// outlive the tmux server; an agent whose terminal went away may linger.
// Only this run's temp folders are matched, never another process's.
func (r *run) killStrays() {
	var pids []int
	for _, p := range r.strays() {
		if syscall.Kill(p, syscall.SIGTERM) == nil {
			pids = append(pids, p)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(pids) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		pids = r.strays()
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	if len(pids) > 0 {
		r.t.Logf("killed %d stray processes that ignored SIGTERM", len(pids))
	}
}

// strays are the live processes whose executable or cwd is under r.root.
func (r *run) strays() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	root := r.root + string(filepath.Separator)
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, link := range []string{"exe", "cwd"} {
			if target, err := os.Readlink(filepath.Join("/proc", e.Name(), link)); err == nil && strings.HasPrefix(target, root) {
				if state, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); !zombie(state) {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}

// zombie reports whether a /proc/PID/stat line is a zombie's (state Z),
// which no signal ends (its parent reaps it).
func zombie(stat []byte) bool {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimLeft(s[i+1:], " "), "Z")
}
