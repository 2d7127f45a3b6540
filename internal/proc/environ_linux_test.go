package proc

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// Environ reads what a process was started with; Lookup names its
// session.
func TestEnvironAndSession(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = []string{"NOTCH_PANE=7", "NOTCH_EMPTY=", "NOTCH_EQ=a=b"}
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep here:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Start returns once the exec is past its point of no return, a
	// moment before the kernel has laid out the new program's
	// environment: until then /proc/PID/environ reads empty (the soak of
	// issue 48 caught it once in 10 runs beside two CPU hogs).
	waitfor.Until(t, "the child's environment", func() bool {
		_, ok, _ := Environ(cmd.Process.Pid, "NOTCH_EQ")
		return ok
	})
	for _, tc := range []struct {
		key, want string
		ok        bool
	}{
		{"NOTCH_PANE", "7", true},
		{"NOTCH_EMPTY", "", true},
		{"NOTCH_EQ", "a=b", true},
		{"NOTCH", "", false},
		{"PATH", "", false},
	} {
		v, ok, err := Environ(cmd.Process.Pid, tc.key)
		if err != nil || v != tc.want || ok != tc.ok {
			t.Errorf("Environ(%s) = %q %v %v, want %q %v", tc.key, v, ok, err, tc.want, tc.ok)
		}
	}
	if _, _, err := Environ(0, "X"); err == nil {
		t.Error("Environ of no process: no error")
	}
	sid, _ := unix.Getsid(os.Getpid())
	if in, err := Lookup(os.Getpid()); err != nil || in.Session != sid {
		t.Errorf("Lookup's session %d %v, want %d", in.Session, err, sid)
	}
}
