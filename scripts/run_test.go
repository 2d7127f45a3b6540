//go:build unix

// Package scripts holds the tests of the repository's shell scripts.
package scripts

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// `make run`'s host stops with make however make is stopped: SIGINT to
// make's process alone (an IDE's Stop), SIGTERM to it, or SIGINT to the
// whole group (Ctrl-C). GNU make passes none but SIGTERM on, and waits for
// its recipe after a SIGINT: without run-under-make.sh the program runs on
// and make hangs.
func TestRunStopsWithMake(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	// Children get SIGINT's default disposition, not an ignored one
	// inherited from a shell that started the tests in the background.
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	defer signal.Stop(c)
	script, err := filepath.Abs("run-under-make.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		group bool
	}{
		{"SIGINT to make alone", syscall.SIGINT, false},
		{"SIGTERM to make alone", syscall.SIGTERM, false},
		{"SIGINT to the group as Ctrl-C sends it", syscall.SIGINT, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			// The program: a shell that says its process id and sleeps
			// in a child of its own, as a server would serve.
			prog := filepath.Join(dir, "server")
			body := "#!/bin/sh\necho $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "\nexec sleep 1000\n"
			if err := os.WriteFile(prog, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			mk := filepath.Join(dir, "Makefile")
			if err := os.WriteFile(mk, []byte("run:\n\t@'"+script+"' '"+prog+"'\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("make", "-s", "-f", mk, "run")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var pid int
			waitfor.Until(t, "the program to start", func() bool {
				b, _ := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return pid > 0
			})
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			target := cmd.Process.Pid
			if tc.group {
				target = -target
			}
			if err := syscall.Kill(target, tc.sig); err != nil {
				t.Fatal(err)
			}
			waitfor.Until(t, "the program to stop", func() bool {
				return syscall.Kill(pid, 0) != nil
			})
			waitfor.Until(t, "make to end", func() bool {
				select {
				case <-done:
					return true
				default:
					return false
				}
			})
		})
	}
}
