//go:build unix

package window

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// alive reports whether pid names a live process: one that exists and, on
// Linux, is not a zombie (a dead child whose new parent, in a container,
// may never reap it).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err) // no /proc (macOS): the signal said it lives
	}
	// pid (comm) S …: the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || (stat[i+2] != 'Z' && stat[i+2] != 'X')
}
