package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/notch-web/notch-web/internal/timerslack"
	"github.com/notch-web/notch-web/internal/waitfor"
)

func TestHosting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"run"}, true},
		{[]string{"run", "--addr", "127.0.0.1:0"}, true},
		{[]string{"--addr", "127.0.0.1:0"}, true},
		{[]string{"-addr=127.0.0.1:0"}, true},
		{[]string{"--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"--version"}, false},
		{[]string{"version"}, false},
		{[]string{"hook", "claude-code"}, false},
		{[]string{"hooks", "install"}, false},
		{[]string{"statusline"}, false},
		{[]string{"join", "CODE"}, false},
		{[]string{"nonsense"}, false},
	} {
		if got := hosting(tc.args); got != tc.want {
			t.Errorf("hosting(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// A host started as a user starts it runs every thread at the timer
// slack (internal/timerslack), in the process it was started as; the
// window it starts runs at the slack the host was started with.
func TestHostRunsRelaxed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the timer slack is Linux's")
	}
	runtime.LockOSThread()
	mine := timerslack.Current()
	runtime.UnlockOSThread()
	dir := t.TempDir()
	win := filepath.Join(dir, "window")
	said := filepath.Join(dir, "slack")
	script := "#!/bin/sh\ncat /proc/self/timerslack_ns > " + said + ".tmp && mv " + said + ".tmp " + said + "\nexec sleep 60\n"
	if err := os.WriteFile(win, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, cmd := startChildIn(t, t.TempDir(), "", "--window", win)
	pid := strconv.Itoa(cmd.Process.Pid)
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 3 {
		t.Fatalf("the host has %d threads", len(tasks))
	}
	// The window first: the thread that starts it runs at the slack the
	// host was started with until the window has been forked (ForChild).
	var got []byte
	waitfor.Until(t, "the window's slack", func() bool {
		got, _ = os.ReadFile(said)
		return len(got) > 0
	})
	// Then every thread, the one that forked it back at the slack once
	// ForChild's restore has run (a moment after the fork, not before).
	var slow []string
	defer func() {
		if t.Failed() {
			t.Logf("threads below the slack: %q", slow)
		}
	}()
	waitfor.Until(t, "every thread of the host at the timer slack", func() bool {
		slow = slow[:0]
		read := 0
		tasks, err := os.ReadDir("/proc/" + pid + "/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tasks {
			b, err := os.ReadFile("/proc/" + e.Name() + "/timerslack_ns") // a thread's own entry
			if err != nil {
				continue // a thread that ended meanwhile
			}
			read++
			ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			if err != nil || ns < timerslack.Slack.Nanoseconds() {
				slow = append(slow, e.Name()+"="+strings.TrimSpace(string(b)))
			}
		}
		return read >= 3 && len(slow) == 0
	})
	if mine < timerslack.Slack.Nanoseconds() && strings.TrimSpace(string(got)) != strconv.FormatInt(mine, 10) {
		t.Errorf("the window's timer slack: %q, want %d (the host's before it relaxed)", got, mine)
	}
}

// A host keeps its name through the timer slack's re-execution: ps, top,
// pgrep and a service manager see notch-web, not "exe" (the kernel names a
// process after the path it was executed by).
func TestHostKeepsItsName(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the timer slack is Linux's")
	}
	runtime.LockOSThread()
	mine := timerslack.Current()
	runtime.UnlockOSThread()
	if mine >= timerslack.Slack.Nanoseconds() {
		t.Skipf("this test runs at a slack of %d ns already: the host would not execute itself again", mine)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// This test binary, as notch-web (TestMain runs the host).
	bin := filepath.Join(t.TempDir(), "notch-web")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "NOTCH_WEB_RUN_ARGS="+strings.Join([]string{"--addr", "127.0.0.1:0", "--dsh-home", t.TempDir(), "--log-level", "error"}, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("the host printed no URL: %v", err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	slack, err := os.ReadFile("/proc/" + pid + "/timerslack_ns")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.ParseInt(strings.TrimSpace(string(slack)), 10, 64); n < timerslack.Slack.Nanoseconds() {
		t.Fatalf("the host's slack is %s ns: it was not executed again, so its name proves nothing", slack)
	}
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tasks {
		comm, err := os.ReadFile("/proc/" + pid + "/task/" + e.Name() + "/comm")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(comm)); got != "notch-web" {
			t.Errorf("the host's thread %s is named %q, want notch-web", e.Name(), got)
		}
	}
}
