package window

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

const lockThread = false

// terminateKills: terminate is a kill here (see terminate).
const terminateKills = true

// checkExecutable: Windows has no execute bit; CreateProcess runs .exe files
// (a .bat or .cmd would need cmd.exe, and its quoting rules).
func checkExecutable(path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".exe") {
		return fmt.Errorf("%w: not an .exe", ErrNotProgram)
	}
	return nil
}

// prepare keeps a console from flashing up should the window program be a
// console build; a GUI program ignores the flag.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
}

// adopt puts the window in a job object that kills its processes when the
// job's last handle closes. The host holds that handle until the window is
// reaped; if the host dies, however it dies, Windows closes it, and the
// window (with any process it started) goes too. The window runs for the
// moment between CreateProcess and the assignment outside the job; a
// process it starts in that moment would escape, which its own --parent-pid
// watch still covers.
func adopt(p *os.Process) (func(), error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return func() {}, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return func() {}, fmt.Errorf("setting kill-on-close: %w", err)
	}
	// The process is not yet waited for, so its pid still names it.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return func() {}, fmt.Errorf("opening the window's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return func() {}, fmt.Errorf("assigning the window to a job: %w", err)
	}
	return func() { windows.CloseHandle(job) }, nil
}

// terminate is kill on Windows: there is no SIGTERM, and a console control
// event does not reach a GUI program. The window keeps nothing that needs
// saving (it reads state.json, and writes quit.json only on a tray quit).
func terminate(c *child) error { return kill(c) }

// kill ends the window. os.Process holds the process handle, so this can
// never reach another process, even after the window is gone.
func kill(c *child) error {
	err := c.cmd.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// describeExit returns the exit code; Windows has no signals.
func describeExit(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	return ps.ExitCode(), ""
}
