package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Lookup reads a process of this machine from /proc/<pid>/stat.
func Lookup(pid int) (Info, error) {
	if pid <= 0 {
		return Info{}, ErrNoProcess
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH) {
		return Info{}, ErrNoProcess
	}
	if err != nil {
		return Info{}, err
	}
	return parseStat(b)
}

// parseStat reads /proc/<pid>/stat: "pid (comm) state ppid …", the start
// time being field 22 (clock ticks after boot). comm may hold spaces and
// parentheses: it ends at the last ")".
func parseStat(b []byte) (Info, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return Info{}, fmt.Errorf("%w: a stat line without its (comm)", ErrNoProcess)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Info{}, fmt.Errorf("%w: stat pid: %v", ErrNoProcess, err)
	}
	rest := strings.Fields(string(b[end+1:]))
	// rest[0] is field 3 (state); the start time is field 22.
	if len(rest) < 20 {
		return Info{}, fmt.Errorf("%w: a stat line of %d fields", ErrNoProcess, len(rest)+2)
	}
	// Fields 4 (ppid), 5 (pgrp), 6 (session), 7 (tty_nr) and 8 (tpgid).
	ppid, err1 := strconv.Atoi(rest[1])
	sid, err6 := strconv.Atoi(rest[3])
	start, err2 := strconv.ParseUint(rest[19], 10, 64)
	pgrp, err3 := strconv.Atoi(rest[2])
	tty, err4 := strconv.Atoi(rest[4])
	tpgrp, err5 := strconv.Atoi(rest[5])
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return Info{}, fmt.Errorf("%w: stat fields", ErrNoProcess)
	}
	gone := rest[0] == "Z" || rest[0] == "X" // a zombie, or dead
	return Info{PID: pid, PPID: ppid, Name: string(b[open+1 : end]), Start: start, Gone: gone,
		Pgrp: pgrp, TTY: tty, TPgrp: tpgrp, Session: sid}, nil
}

// maxEnviron bounds the environment Environ reads.
const maxEnviron = 256 << 10

// Environ is the value of key in the environment a process of this
// machine (of this user) was started with (/proc/<pid>/environ, NUL
// separated; what it set later is not there), and whether it was set.
func Environ(pid int, key string) (string, bool, error) {
	if pid <= 0 {
		return "", false, ErrNoProcess
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH) {
		return "", false, ErrNoProcess
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	b := make([]byte, maxEnviron)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	v, ok := envValue(b[:n], key)
	return v, ok, nil
}

// envValue is key's value in a NUL-separated environment block.
func envValue(block []byte, key string) (string, bool) {
	for kv := range bytes.SplitSeq(block, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte("=")); ok && string(k) == key {
			return string(v), true
		}
	}
	return "", false
}

// Group lists the live processes of process group pgrp that descend from
// root (root itself included): a terminal's foreground job is its
// session leader's descendants. It walks /proc/<pid>/task/<tid>/children
// down from root (a handful of small reads, only when a keystroke is about
// to be typed, never on a beat), up to maxGroupWalk processes; where the
// kernel keeps no children files it scans all of /proc.
func Group(root, pgrp int) ([]Info, error) {
	if pgrp <= 0 || root <= 0 {
		return nil, ErrNoProcess
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(root) + "/task/" + strconv.Itoa(root) + "/children"); err != nil {
		return scanGroup(pgrp)
	}
	var out []Info
	seen := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 && len(seen) < maxGroupWalk {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if in, err := Lookup(pid); err == nil && in.Pgrp == pgrp && !in.Gone {
			out = append(out, in)
		}
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		for _, t := range tasks {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					queue = append(queue, c)
				}
			}
		}
	}
	return out, nil
}

// maxGroupWalk bounds Group's walk.
const maxGroupWalk = 256

// scanGroup is Group by a scan of every process.
func scanGroup(pgrp int) ([]Info, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if in, err := Lookup(pid); err == nil && in.Pgrp == pgrp && !in.Gone {
			out = append(out, in)
		}
	}
	return out, nil
}

// bootID reads this boot's random id (/proc/sys/kernel/random/boot_id).
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b)), err
}

// exitFD opens a pidfd for pid: readable once the process has ended.
func exitFD(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if errors.Is(err, unix.EINVAL) { // PIDFD_NONBLOCK is Linux 5.10+
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			err = unix.SetNonblock(fd, true)
			if err != nil {
				unix.Close(fd)
			}
		}
	}
	switch {
	case errors.Is(err, unix.ESRCH):
		return -1, ErrNoProcess
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM), errors.Is(err, unix.EINVAL):
		return -1, ErrUnsupported // before Linux 5.3, or a sandbox that forbids it
	}
	return fd, err
}

// ended reports, without waiting, whether the process of a pidfd ended.
func ended(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents != 0
}
