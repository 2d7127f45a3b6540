package proc

import (
	"errors"
	"strings"
	"sync"

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
	name := unix.ByteSliceToString(k.Proc.P_comm[:])
	t := k.Proc.P_starttime
	const zombie = 5 // SZOMB, <sys/proc.h>
	return Info{PID: pid, PPID: int(k.Eproc.Ppid), Name: name, Start: uint64(t.Sec)*1e6 + uint64(t.Usec), Gone: k.Proc.P_stat == zombie}, nil
}

var boot struct {
	once sync.Once
	id   string
	err  error
}

// BootID is this boot's session UUID (sysctl kern.bootsessionuuid).
func BootID() (string, error) {
	boot.once.Do(func() {
		boot.id, boot.err = unix.Sysctl("kern.bootsessionuuid")
		boot.id = strings.TrimSpace(boot.id)
		if boot.err == nil && !bootRE.MatchString(boot.id) {
			boot.err = errors.New("kern.bootsessionuuid is not an id")
		}
	})
	return boot.id, boot.err
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
