package timerslack

import (
	"os"
	"path/filepath"
	"strings"
)

// program is the path Relax executes: one that names the file this process
// runs, so that the kernel names the new program as it named this one.
// The kernel names a process after the last element of the path it was
// executed by (/proc/<pid>/comm, what ps, top, pgrep and a service manager
// see); executed by /proc/self/exe, notch-web would be called "exe". So
// program takes the path it was started by (its first argument, when that
// is a path) or else the binary's resolved path (os.Executable) — each only
// while it is still the very file running, compared by device and inode
// with self. When neither is (the binary was replaced or removed since it
// started, as `make build` replaces it), program is self: the program that
// was started, under the name "exe", rather than another one under its
// name. (Setting the name after the fact, prctl(PR_SET_NAME), names only
// the calling thread, not those the runtime started before any Go code.)
func program(self, arg0 string, executable func() (string, error)) string {
	running, err := os.Stat(self)
	if err != nil {
		return self
	}
	var paths []string
	if strings.ContainsRune(arg0, filepath.Separator) {
		paths = append(paths, arg0)
	}
	if p, err := executable(); err == nil && p != "" {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, running) {
			return p
		}
	}
	return self
}
