package proc

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestParseStat(t *testing.T) {
	rest := " S 700 900 900 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 10000 200 18446744073709551615"
	tests := []struct {
		line      string
		name      string
		pid, ppid int
		start     uint64
		gone      bool
		bad       bool
	}{
		{line: "800 (claude)" + rest, name: "claude", pid: 800, ppid: 700, start: 123456},
		// comm may hold spaces and parentheses: it ends at the last ")".
		{line: "801 (a b) (c))" + rest, name: "a b) (c)", pid: 801, ppid: 700, start: 123456},
		{line: "802 (tmux: server)" + rest, name: "tmux: server", pid: 802, ppid: 700, start: 123456},
		{line: "804 (claude)" + strings.Replace(rest, " S ", " Z ", 1), name: "claude", pid: 804, ppid: 700, start: 123456, gone: true},
		{line: "803 (x)", bad: true},
		{line: "(x)" + rest, bad: true},
		{line: "803 x" + rest, bad: true},
		{line: "abc (x)" + rest, bad: true},
		{line: "803 (x) S notanumber" + strings.Repeat(" 0", 20), bad: true},
		{line: "", bad: true},
	}
	for _, tt := range tests {
		in, err := parseStat([]byte(tt.line))
		if tt.bad {
			if err == nil {
				t.Errorf("parseStat(%q) = %+v, want an error", tt.line, in)
			}
			continue
		}
		if err != nil || in.Name != tt.name || in.PID != tt.pid || in.PPID != tt.ppid || in.Start != tt.start || in.Gone != tt.gone {
			t.Errorf("parseStat(%q) = %+v, %v", tt.line, in, err)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("800 (claude) S 700 900 900 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1 2")) // a real line's shape
	f.Add([]byte("801 (a b) (c)) S 1"))                                                            // parentheses in comm
	f.Add([]byte(")("))                                                                            // reversed
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := parseStat(b)
		if err != nil {
			return
		}
		// comm is what stands between the first "(" and the last ")".
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if in.Name != string(b[open+1:end]) {
			t.Fatalf("parseStat(%q).Name = %q", b, in.Name)
		}
	})
}

// The terminal fields: a process's group, its controlling terminal and
// that terminal's foreground group (what Reply and Stop check).
func TestParseStatTerminal(t *testing.T) {
	for _, tc := range []struct {
		line             string
		pgrp, tty, tpgrp int
	}{
		{"800 (claude) S 700 800 700 34817 800 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 10000 200", 800, 34817, 800},
		{"801 (bash) S 700 801 801 34817 900 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 10000 200", 801, 34817, 900},
		{"802 (daemon) S 1 802 802 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 10000 200", 802, 0, -1},
	} {
		in, err := parseStat([]byte(tc.line))
		if err != nil || in.Pgrp != tc.pgrp || in.TTY != tc.tty || in.TPgrp != tc.tpgrp {
			t.Errorf("parseStat(%q) = %+v, %v; want pgrp %d tty %d tpgrp %d", tc.line, in, err, tc.pgrp, tc.tty, tc.tpgrp)
		}
	}
}

// Group finds a process's children in its group by walking down from it,
// and leaves out a child in a group of its own.
func TestGroup(t *testing.T) {
	self, err := Lookup(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	same := exec.Command("sleep", "60")
	own := exec.Command("sleep", "61")
	own.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	for _, c := range []*exec.Cmd{same, own} {
		if err := c.Start(); err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	got := map[int]bool{}
	ms, err := Group(os.Getpid(), self.Pgrp)
	for _, m := range ms {
		got[m.PID] = true
	}
	if err != nil || !got[os.Getpid()] || !got[same.Process.Pid] || got[own.Process.Pid] {
		t.Errorf("Group = %+v, %v; want this process and %d, not %d", ms, err, same.Process.Pid, own.Process.Pid)
	}
}
