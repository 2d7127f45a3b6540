package proc

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// Lookup reads a process of this machine through sysctl kern.proc.pid.
func Lookup(pid int) (Info, error) {
	if pid <= 0 {
		return Info{}, ErrNoProcess
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Info{}, err
	}
	if int(k.Proc.P_pid) != pid { // a PID with no process reads as zeros
		return Info{}, ErrNoProcess
	}
	return info(k), nil
}

func info(k *unix.KinfoProc) Info {
	t := k.Proc.P_starttime
	const zombie = 5 // SZOMB, <sys/proc.h>
	return Info{PID: int(k.Proc.P_pid), PPID: int(k.Eproc.Ppid), Name: unix.ByteSliceToString(k.Proc.P_comm[:]),
		Start: uint64(t.Sec)*1e6 + uint64(t.Usec), Gone: k.Proc.P_stat == zombie,
		Pgrp: int(k.Eproc.Pgid), TTY: int(k.Eproc.Tdev), TPgrp: int(k.Eproc.Tpgid)}
}

// Group lists the live processes of process group pgrp (sysctl
// kern.proc.pgrp); root is not needed here.
func Group(_, pgrp int) ([]Info, error) {
	if pgrp <= 0 {
		return nil, ErrNoProcess
	}
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgrp)
	if err != nil {
		return nil, err
	}
	var out []Info
	for i := range ks {
		if in := info(&ks[i]); !in.Gone {
			out = append(out, in)
		}
	}
	return out, nil
}

// bootID reads this boot's session UUID (sysctl kern.bootsessionuuid).
func bootID() (string, error) {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	return strings.TrimSpace(id), err
}

// exitFD opens a kqueue that holds pid's exit event (EVFILT_PROC,
// NOTE_EXIT): readable once the process has ended.
func exitFD(pid int) (int, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return -1, err
	}
	ev := unix.Kevent_t{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		unix.Close(kq)
		if errors.Is(err, unix.ESRCH) {
			return -1, ErrNoProcess
		}
		return -1, err
	}
	if err := unix.SetNonblock(kq, true); err != nil {
		unix.Close(kq)
		return -1, err
	}
	return kq, nil
}

// ended reports, without waiting, whether the kqueue holds the exit.
func ended(kq int) bool {
	out := make([]unix.Kevent_t, 1)
	n, err := unix.Kevent(kq, nil, out, &unix.Timespec{})
	return err == nil && n > 0
}

// Environ is not read on macOS (its KERN_PROCARGS2 is not parsed here):
// terminals other than tmux are not followed there.
func Environ(int, string) (string, bool, error) { return "", false, ErrUnsupported }
