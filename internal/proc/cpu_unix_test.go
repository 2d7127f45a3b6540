//go:build unix

package proc

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
