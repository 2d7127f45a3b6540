package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestModeNeverWidened: a private (0600) settings file is never, even for
// an instant, in place with a wider mode: the temporary file is made with
// the final mode before it is renamed over, so no chmod ever touches the
// file in place. inotify shows every change of metadata (IN_ATTRIB) in the
// folder; none may name the settings file after the rename put it there.
func TestModeNeverWidened(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, userSettings)
	os.Chmod(path, 0o600)

	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(path), unix.IN_ATTRIB|unix.IN_MOVED_TO|unix.IN_CREATE|unix.IN_MODIFY); err != nil {
		t.Fatal(err)
	}
	mustInstall(t, o)

	var log []string
	moved := false
	buf := make([]byte, 64<<10)
	n, _ := unix.Read(fd, buf)
	for off := 0; n > 0 && off+unix.SizeofInotifyEvent <= n; {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
		off += unix.SizeofInotifyEvent + int(ev.Len)
		switch {
		case ev.Mask&unix.IN_MOVED_TO != 0:
			log = append(log, "moved to "+name)
			if name == "settings.json" {
				moved = true
			}
		case ev.Mask&unix.IN_ATTRIB != 0:
			log = append(log, "attrib "+name)
			if name == "settings.json" && moved {
				t.Errorf("the settings file's mode was changed in place after the rename")
			}
		}
	}
	if !moved {
		t.Fatalf("no rename seen: %s", strings.Join(log, "; "))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if t.Failed() {
		t.Logf("events: %s", strings.Join(log, "; "))
	}
}
